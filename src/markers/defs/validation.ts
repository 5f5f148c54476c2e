/**
 * Validation markers (controller-gen's pkg/crd/markers/validation.go): `+kubebuilder:validation:<Name>` on fields and
 * types, their `+kubebuilder:validation:items:<Name>` twins for the items of an array, the OneOf rules and the k8s:
 * validation tags. Each definition carries the change it makes to a schema, with controller-gen's checks and
 * messages.
 */
import type { JSONValue } from '@kubescaffold/runtime/json';
import { anyValue, bool, int, number, sliceOf, string, type MarkerShape, type MarkerValue } from '../grammar.js';
import type { ValidationRule } from '../apiextensions.js';
import {
  anon,
  FIELD,
  FIELD_TYPE,
  flag,
  opt,
  schemaEffect,
  strings,
  struct,
  TYPE,
  type MarkerDefinition,
  type MarkerGroup,
  type MarkerTarget,
} from './define.js';
import type { ReadElsewhere, SchemaEffect } from './effect.js';
import { patternProblem } from './go-regexp.js';
import { addRule, isNumeric, isTextual, typeOf } from './schema-type.js';

/** The prefix of the validation markers (`+kubebuilder:validation:Maximum=...`). */
export const VALIDATION_PREFIX = 'kubebuilder:validation:';
/** The prefix of the validation markers that apply to a list's items (`+kubebuilder:validation:items:Maximum=...`). */
export const ITEMS_PREFIX = 'kubebuilder:validation:items:';

type Apply = SchemaEffect['apply'];

const validation = (
  name: string,
  targets: readonly MarkerTarget[],
  shape: MarkerShape,
  help: string,
  apply: Apply,
  priority?: number,
): MarkerDefinition<SchemaEffect> => ({
  name: VALIDATION_PREFIX + name,
  targets,
  shape,
  help,
  effect: schemaEffect(apply, priority),
});

/** The `items:` twin of a validation marker: the same change, to the items of an array, after the other markers. */
const itemsTwin = (def: MarkerDefinition<SchemaEffect>): MarkerDefinition<SchemaEffect> => ({
  name: ITEMS_PREFIX + def.name.slice(VALIDATION_PREFIX.length),
  targets: def.targets,
  shape: def.shape,
  help: `for array items: ${def.help}`,
  effect: { ...def.effect, items: true },
});

const numericBound =
  (key: 'maximum' | 'minimum' | 'multipleOf'): Apply =>
  (s, value) => {
    const num = value as number;
    if (!isNumeric(s)) return `must apply ${key.toLowerCase()} to a numeric value, found ${typeOf(s)}`;
    if (s.type === 'integer' && !Number.isInteger(num))
      return `cannot apply non-integral ${key.toLowerCase()} validation (${num}) to integer value`;
    s[key] = num;
    return undefined;
  };

const exclusive =
  (key: 'exclusiveMaximum' | 'exclusiveMinimum'): Apply =>
  (s, value) => {
    if (!isNumeric(s)) return `must apply ${key.toLowerCase()} to a numeric value, found ${typeOf(s)}`;
    // false is the schema default; controller-gen leaves it out (a Go bool with omitempty)
    if (value === true) s[key] = true;
    else delete s[key];
    return undefined;
  };

const length =
  (key: 'maxLength' | 'minLength'): Apply =>
  (s, value) => {
    if (!isTextual(s)) return `must apply ${key.toLowerCase()} to a textual value, found type "${s.type ?? ''}"`;
    s[key] = value as number;
    return undefined;
  };

const pattern: Apply = (s, value) => {
  if (!isTextual(s)) return `must apply pattern to a textual value, found type "${s.type ?? ''}"`;
  const problem = patternProblem(value as string);
  if (problem)
    return `invalid regular expression ${JSON.stringify(value)}: ${problem}; patterns use Go's RE2 syntax, as the API server checks them`;
  s.pattern = value as string;
  return undefined;
};

const itemCount =
  (key: 'maxItems' | 'minItems'): Apply =>
  (s, value) => {
    if (s.type !== 'array') return `must apply ${key.toLowerCase()} to an array, found ${typeOf(s)}`;
    s[key] = value as number;
    return undefined;
  };

const uniqueItems: Apply = (s, value) => {
  if (s.type !== 'array') return `must apply uniqueitems to an array, found ${typeOf(s)}`;
  if (value === true) s.uniqueItems = true;
  else delete s.uniqueItems;
  return undefined;
};

const propertyCount =
  (key: 'maxProperties' | 'minProperties'): Apply =>
  (s, value) => {
    if (s.type !== 'object') return `must apply ${key.toLowerCase()} to an object, found ${typeOf(s)}`;
    s[key] = value as number;
    return undefined;
  };

const set =
  <K extends 'x-kubernetes-preserve-unknown-fields' | 'x-kubernetes-embedded-resource' | 'x-kubernetes-int-or-string'>(
    key: K,
  ): Apply =>
  (s) => {
    s[key] = true;
    return undefined;
  };

const REASONS = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'];

const xValidation: Apply = (s, value) => {
  const x = value as Record<string, MarkerValue>;
  if (x.reason !== undefined && x.reason !== '' && !REASONS.includes(x.reason as string)) {
    return `invalid reason ${String(x.reason)}, valid values are FieldValueRequired, FieldValueInvalid, FieldValueForbidden and FieldValueDuplicate`;
  }
  const rule: ValidationRule = { rule: x.rule as string };
  if (x.message) rule.message = x.message as string;
  if (x.messageExpression) rule.messageExpression = x.messageExpression as string;
  if (x.reason) rule.reason = x.reason as string;
  if (x.fieldPath) rule.fieldPath = x.fieldPath as string;
  if (x.optionalOldSelf !== undefined) rule.optionalOldSelf = x.optionalOldSelf as boolean;
  addRule(s, rule);
  return undefined;
};

/** The validation markers that have an `items:` twin, for fields and types. */
const withItems: ReadonlyArray<MarkerDefinition<SchemaEffect>> = [
  validation('Maximum', FIELD_TYPE, anon(number), 'the maximum numeric value', numericBound('maximum')),
  validation(
    'Minimum',
    FIELD_TYPE,
    anon(number),
    'the minimum numeric value (negative numbers are supported)',
    numericBound('minimum'),
  ),
  validation(
    'ExclusiveMaximum',
    FIELD_TYPE,
    anon(bool),
    'whether the maximum is exclusive',
    exclusive('exclusiveMaximum'),
  ),
  validation(
    'ExclusiveMinimum',
    FIELD_TYPE,
    anon(bool),
    'whether the minimum is exclusive',
    exclusive('exclusiveMinimum'),
  ),
  validation(
    'MultipleOf',
    FIELD_TYPE,
    anon(number),
    'the value must be a multiple of this number',
    numericBound('multipleOf'),
  ),
  validation(
    'MinProperties',
    FIELD_TYPE,
    anon(int),
    'the minimum number of properties of an object',
    propertyCount('minProperties'),
  ),
  validation(
    'MaxProperties',
    FIELD_TYPE,
    anon(int),
    'the maximum number of properties of an object',
    propertyCount('maxProperties'),
  ),
  validation('MaxLength', FIELD_TYPE, anon(int), 'the maximum length of a string', length('maxLength')),
  validation('MinLength', FIELD_TYPE, anon(int), 'the minimum length of a string', length('minLength')),
  validation('Pattern', FIELD_TYPE, anon(string), 'a regular expression the string must match', pattern),
  validation('MaxItems', FIELD_TYPE, anon(int), 'the maximum length of an array', itemCount('maxItems')),
  validation('MinItems', FIELD_TYPE, anon(int), 'the minimum length of an array', itemCount('minItems')),
  validation('UniqueItems', FIELD_TYPE, anon(bool), 'all items of the array must be unique', uniqueItems),
  validation('Enum', FIELD_TYPE, anon(sliceOf(anyValue)), 'the allowed values, e.g. Enum=a;b;c', (s, value) => {
    s.enum = (value as MarkerValue[]).map((x) => x as JSONValue);
    return undefined;
  }),
  validation('Format', FIELD_TYPE, anon(string), 'the OpenAPI format, e.g. date-time', (s, value) => {
    s.format = value as string;
    return undefined;
  }),
  // Type and XIntOrString come first: the other markers check the type they set.
  validation(
    'Type',
    FIELD_TYPE,
    anon(string),
    'overrides the OpenAPI type',
    (s, value) => {
      s.type = value as string;
      return undefined;
    },
    9,
  ),
  validation(
    'XPreserveUnknownFields',
    FIELD_TYPE,
    flag,
    'x-kubernetes-preserve-unknown-fields: true (use kubebuilder:pruning:PreserveUnknownFields)',
    set('x-kubernetes-preserve-unknown-fields'),
  ),
  validation(
    'XEmbeddedResource',
    FIELD_TYPE,
    flag,
    'x-kubernetes-embedded-resource: true',
    set('x-kubernetes-embedded-resource'),
  ),
  validation(
    'XIntOrString',
    FIELD_TYPE,
    flag,
    'x-kubernetes-int-or-string: true',
    set('x-kubernetes-int-or-string'),
    9,
  ),
  validation(
    'XValidation',
    FIELD_TYPE,
    struct({
      rule: string,
      message: opt(string),
      messageExpression: opt(string),
      reason: opt(string),
      fieldPath: opt(string),
      optionalOldSelf: opt(bool),
    }),
    'a CEL validation rule, e.g. XValidation:rule="self.a <= self.b",message="a must not exceed b"',
    xValidation,
  ),
];

const byName = (name: string): MarkerDefinition<SchemaEffect> =>
  withItems.find((d) => d.name === VALIDATION_PREFIX + name)!;

/** `+kubebuilder:validation:Type`: also lets an `any`/`unknown` property or alias through the schema generator. */
export const validationType = byName('Type');
/** `+kubebuilder:validation:Pattern`: the schema generator suggests it for template literal types. */
export const validationPattern = byName('Pattern');
/** `+kubebuilder:validation:XPreserveUnknownFields`: also lets an `any`/`unknown` property or alias through. */
export const xPreserveUnknownFields = byName('XPreserveUnknownFields');

type OneOf = 'AtMostOneOf' | 'ExactlyOneOf' | 'AtLeastOneOf';

// controller-gen v0.21.0's rule text (later versions count with (has(self.f)?1:0) sums instead)
const oneOfRule = (kind: OneOf, fields: string[]): ValidationRule => {
  const count = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
  const list = `[${fields.join(' ')}]`;
  switch (kind) {
    case 'AtMostOneOf':
      return { rule: `${count} <= 1`, message: `at most one of the fields in ${list} may be set` };
    case 'ExactlyOneOf':
      return { rule: `${count} == 1`, message: `exactly one of the fields in ${list} must be set` };
    case 'AtLeastOneOf':
      return { rule: `${count} >= 1`, message: `at least one of the fields in ${list} must be set` };
  }
};

// The OneOf rules come last (priorities 11-13, in this order), after every property is in place.
const oneOf = (kind: OneOf, help: string, priority: number): MarkerDefinition<SchemaEffect> =>
  validation(
    kind,
    TYPE,
    anon(strings),
    help,
    (s, value) => {
      const fields = value as string[];
      if (fields.length === 0) return undefined;
      const nested = fields.filter((f) => f.includes('.'));
      if (nested.length > 0) return `cannot reference nested fields: ${nested.join(',')}`;
      const missing = fields.filter((f) => !(f in (s.properties ?? {})));
      if (missing.length > 0)
        return `no property ${missing.join(', ')} in this type; list property names of the type the marker stands on`;
      addRule(s, oneOfRule(kind, fields));
      return undefined;
    },
    priority,
  );

/** `+kubebuilder:validation:AtMostOneOf=a;b`. */
export const atMostOneOf = oneOf('AtMostOneOf', 'at most one of these fields may be set', 11);
/** `+kubebuilder:validation:ExactlyOneOf=a;b`. */
export const exactlyOneOf = oneOf('ExactlyOneOf', 'exactly one of these fields must be set', 12);
/** `+kubebuilder:validation:AtLeastOneOf=a;b`. */
export const atLeastOneOf = oneOf('AtLeastOneOf', 'at least one of these fields must be set', 13);
/** The OneOf markers, whose fields must be optional (the schema generator checks it). */
export const oneOfMarkers: readonly MarkerDefinition[] = [atMostOneOf, exactlyOneOf, atLeastOneOf];

/** `+kubebuilder:validation:Schemaless`: the schema generator writes no schema for the property's type. */
export const schemaless: MarkerDefinition<ReadElsewhere> = {
  name: `${VALIDATION_PREFIX}Schemaless`,
  targets: FIELD,
  shape: flag,
  help: 'do not generate a schema for the field type',
  effect: { on: 'read', by: 'crd/schema.ts', reads: 'the property gets an empty schema, whatever its type' },
};

/** `+kubebuilder:pruning:PreserveUnknownFields`: also lets an `any`/`unknown` property or alias through. */
export const preserveUnknownFields: MarkerDefinition<SchemaEffect> = {
  name: 'kubebuilder:pruning:PreserveUnknownFields',
  targets: FIELD_TYPE,
  shape: flag,
  help: 'x-kubernetes-preserve-unknown-fields: true',
  effect: schemaEffect(set('x-kubernetes-preserve-unknown-fields')),
};

/** `+k8s:immutable`: a field that cannot change; an optional one also cannot be removed (crd/schema.ts adds that rule). */
export const immutable: MarkerDefinition<SchemaEffect> = {
  name: 'k8s:immutable',
  targets: FIELD,
  shape: flag,
  help: 'the field cannot change once set',
  effect: schemaEffect((s) => {
    addRule(s, { rule: 'self == oldSelf', message: 'field is immutable' });
    return undefined;
  }),
};

const others: ReadonlyArray<MarkerDefinition> = [
  atMostOneOf,
  exactlyOneOf,
  atLeastOneOf,
  {
    name: 'k8s:enum',
    targets: FIELD_TYPE,
    shape: flag,
    help: 'the type is an enum of its values',
    effect: schemaEffect((s, _value, target) => {
      if (target === 'field') return 'k8s:enum must be set on a type, not a field';
      if (!s.enum || s.type !== 'string')
        return 'enum type must be a string: use it on a string-literal union or a string enum';
      s.enum = [...s.enum].sort((a, b) =>
        JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0,
      );
      return undefined;
    }),
  },
  validation(
    'EmbeddedResource',
    FIELD,
    flag,
    'x-kubernetes-embedded-resource: true',
    set('x-kubernetes-embedded-resource'),
  ),
  schemaless,
  immutable,
  preserveUnknownFields,
];

/** The validation markers, as the marker reference lists them. */
export const validationMarkers: MarkerGroup = { title: 'Validation', definitions: [...withItems, ...others] };

/** The `items:` validation markers, as the marker reference lists them. */
export const itemsValidationMarkers: MarkerGroup = {
  title: 'Validation of array items',
  definitions: withItems.map(itemsTwin),
};
