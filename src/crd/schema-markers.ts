/**
 * Applies schema markers to a schema, in controller-gen's order (pkg/crd/schema.go applyMarkers): by priority
 * (Type, XIntOrString, listType and +default first; OneOf rules last), source order within a priority, and the
 * `items:` markers after all others. Checks and messages follow pkg/crd/markers/{validation,topology}.go, with
 * the marker's own position and a hint.
 */
import { createRequire } from 'node:module';
import type { Marker } from '../markers/collector.js';
import type { DiagnosticBag } from '../diagnostics.js';
import type { MarkerValue } from '../markers/grammar.js';
import { ITEMS_PREFIX, VALIDATION_PREFIX } from '../markers/registry.js';
import type { JSONSchemaProps, JSONValue, ValidationRule } from './types.js';

type Target = 'field' | 'type';

const priority = (name: string): number => {
  const base = name.startsWith(ITEMS_PREFIX) ? VALIDATION_PREFIX + name.slice(ITEMS_PREFIX.length) : name;
  switch (base) {
    case 'kubebuilder:validation:Type':
    case 'kubebuilder:validation:XIntOrString':
    case 'listType':
    case 'k8s:listType':
    case 'default':
      return 9;
    case 'kubebuilder:validation:AtMostOneOf':
      return 11;
    case 'kubebuilder:validation:ExactlyOneOf':
      return 12;
    case 'kubebuilder:validation:AtLeastOneOf':
      return 13;
    default:
      return 10;
  }
};

/** Markers that shape a schema (others, like +optional, are read elsewhere). */
function isSchemaMarker(name: string): boolean {
  return (
    name.startsWith(VALIDATION_PREFIX) ||
    [
      'nullable',
      'kubebuilder:default',
      'default',
      'kubebuilder:example',
      'kubebuilder:title',
      'kubebuilder:pruning:PreserveUnknownFields',
      'kubebuilder:externalDocs',
      'listType',
      'k8s:listType',
      'listMapKey',
      'k8s:listMapKey',
      'mapType',
      'structType',
      'k8s:enum',
      'k8s:immutable',
    ].includes(name)
  ) && !['kubebuilder:validation:Optional', 'kubebuilder:validation:Required', 'kubebuilder:validation:Schemaless'].includes(name);
}

/**
 * Changes only `schema`'s own keys (and a copy of its items): nested schemas may be shared with other fields, so
 * they are replaced, never modified.
 */
export function applySchemaMarkers(schema: JSONSchemaProps, markers: readonly Marker[], target: Target, diags: DiagnosticBag): void {
  const relevant = markers.filter((m) => isSchemaMarker(m.name));
  const plain = relevant.filter((m) => !m.name.startsWith(ITEMS_PREFIX));
  const items = relevant.filter((m) => m.name.startsWith(ITEMS_PREFIX));
  const byPriority = (list: Marker[]): Marker[] => list.map((m, i) => ({ m, i })).sort((a, b) => priority(a.m.name) - priority(b.m.name) || a.i - b.i).map((x) => x.m);
  for (const m of byPriority(plain)) {
    const err = applyOne(schema, m.name, m.value, target);
    if (err) diags.at(m.pos, `+${m.name}: ${err}`);
  }
  for (const m of byPriority(items)) {
    if (schema.type !== 'array' || !schema.items) {
      diags.at(m.pos, `must apply ${m.name} to an array value, found ${schema.type ?? 'no type'}; use the marker without items: for a single value`);
      continue;
    }
    schema.items = { ...schema.items };
    const err = applyOne(schema.items, VALIDATION_PREFIX + m.name.slice(ITEMS_PREFIX.length), m.value, target);
    if (err) diags.at(m.pos, `+${m.name}: ${err}`);
  }
}

const isNumeric = (s: JSONSchemaProps): boolean => s.type === 'integer' || s.type === 'number';
const isTextual = (s: JSONSchemaProps): boolean => s.type === 'string' || s['x-kubernetes-int-or-string'] === true;
const typeOf = (s: JSONSchemaProps): string => (s.type ? s.type : s['x-kubernetes-int-or-string'] ? 'int-or-string' : 'no type');

/** Applies one marker; returns an error message or undefined. */
function applyOne(s: JSONSchemaProps, name: string, value: MarkerValue, target: Target): string | undefined {
  const v = name.startsWith(VALIDATION_PREFIX) ? name.slice(VALIDATION_PREFIX.length) : name;
  const num = value as number;
  switch (v) {
    case 'Maximum':
    case 'Minimum':
    case 'MultipleOf': {
      const key = v === 'Maximum' ? 'maximum' : v === 'Minimum' ? 'minimum' : 'multipleOf';
      if (!isNumeric(s)) return `must apply ${key.toLowerCase()} to a numeric value, found ${typeOf(s)}`;
      if (s.type === 'integer' && !Number.isInteger(num)) return `cannot apply non-integral ${key.toLowerCase()} validation (${num}) to integer value`;
      s[key] = num;
      return;
    }
    case 'ExclusiveMaximum':
    case 'ExclusiveMinimum': {
      if (!isNumeric(s)) return `must apply ${v.toLowerCase()} to a numeric value, found ${typeOf(s)}`;
      // false is the schema default; controller-gen leaves it out (a Go bool with omitempty)
      const key = v === 'ExclusiveMaximum' ? 'exclusiveMaximum' : 'exclusiveMinimum';
      if (value === true) s[key] = true;
      else delete s[key];
      return;
    }
    case 'MaxLength':
    case 'MinLength':
    case 'Pattern': {
      if (!isTextual(s)) return `must apply ${v.toLowerCase()} to a textual value, found type "${s.type ?? ''}"`;
      if (v === 'Pattern') {
        const problem = patternProblem(value as string);
        if (problem) return `invalid regular expression ${JSON.stringify(value)}: ${problem}; patterns use Go's RE2 syntax, as the API server checks them`;
        s.pattern = value as string;
      } else s[v === 'MaxLength' ? 'maxLength' : 'minLength'] = num;
      return;
    }
    case 'MaxItems':
    case 'MinItems':
    case 'UniqueItems': {
      if (s.type !== 'array') return `must apply ${v.toLowerCase()} to an array, found ${typeOf(s)}`;
      if (v === 'UniqueItems') {
        if (value === true) s.uniqueItems = true;
        else delete s.uniqueItems;
      }
      else s[v === 'MaxItems' ? 'maxItems' : 'minItems'] = num;
      return;
    }
    case 'MaxProperties':
    case 'MinProperties': {
      if (s.type !== 'object') return `must apply ${v.toLowerCase()} to an object, found ${typeOf(s)}`;
      s[v === 'MaxProperties' ? 'maxProperties' : 'minProperties'] = num;
      return;
    }
    case 'Enum':
      s.enum = (value as MarkerValue[]).map((x) => x as JSONValue);
      return;
    case 'Format':
      s.format = value as string;
      return;
    case 'Type':
      s.type = value as string;
      return;
    case 'XPreserveUnknownFields':
    case 'kubebuilder:pruning:PreserveUnknownFields':
      s['x-kubernetes-preserve-unknown-fields'] = true;
      return;
    case 'XEmbeddedResource':
    case 'EmbeddedResource':
      s['x-kubernetes-embedded-resource'] = true;
      return;
    case 'XIntOrString':
      s['x-kubernetes-int-or-string'] = true;
      return;
    case 'XValidation': {
      const x = value as Record<string, MarkerValue>;
      const reasons = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'];
      if (x.reason !== undefined && x.reason !== '' && !reasons.includes(x.reason as string)) {
        return `invalid reason ${String(x.reason)}, valid values are FieldValueRequired, FieldValueInvalid, FieldValueForbidden and FieldValueDuplicate`;
      }
      const rule: ValidationRule = { rule: x.rule as string };
      if (x.message) rule.message = x.message as string;
      if (x.messageExpression) rule.messageExpression = x.messageExpression as string;
      if (x.reason) rule.reason = x.reason as string;
      if (x.fieldPath) rule.fieldPath = x.fieldPath as string;
      if (x.optionalOldSelf !== undefined) rule.optionalOldSelf = x.optionalOldSelf as boolean;
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule];
      return;
    }
    case 'AtMostOneOf':
    case 'ExactlyOneOf':
    case 'AtLeastOneOf': {
      const fields = value as string[];
      if (fields.length === 0) return;
      const nested = fields.filter((f) => f.includes('.'));
      if (nested.length > 0) return `cannot reference nested fields: ${nested.join(',')}`;
      const missing = fields.filter((f) => !(f in (s.properties ?? {})));
      if (missing.length > 0) return `no property ${missing.join(', ')} in this type; list property names of the type the marker stands on`;
      // controller-gen v0.21.0's rule text (later versions count with (has(self.f)?1:0) sums instead)
      const count = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
      const list = `[${fields.join(' ')}]`;
      const rule: ValidationRule =
        v === 'AtMostOneOf'
          ? { rule: `${count} <= 1`, message: `at most one of the fields in ${list} may be set` }
          : v === 'ExactlyOneOf'
            ? { rule: `${count} == 1`, message: `exactly one of the fields in ${list} must be set` }
            : { rule: `${count} >= 1`, message: `at least one of the fields in ${list} must be set` };
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule];
      return;
    }
    case 'nullable':
      s.nullable = true;
      return;
    case 'kubebuilder:default': {
      s.default = s.type === 'array' && isEmptyObject(value) ? [] : (value as JSONValue);
      return;
    }
    case 'default':
      if (value !== null) s.default = value as JSONValue;
      return;
    case 'kubebuilder:example':
      s.example = value as JSONValue;
      return;
    case 'kubebuilder:title':
      if (value === null) return;
      if (typeof value !== 'string') return `expected string, got ${goTypeName(value)}; quote the title`;
      s.title = value;
      return;
    case 'kubebuilder:externalDocs': {
      const x = value as Record<string, MarkerValue>;
      const url = x.url as string;
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/\S+$|^\/\S*$/.test(url)) return `invalid url ${JSON.stringify(url)} in kubebuilder:externalDocs marker`;
      s.externalDocs = x.description ? { url, description: x.description as string } : { url };
      return;
    }
    case 'listType':
    case 'k8s:listType': {
      if (s.type !== 'array') return `must apply listType to an array, found ${typeOf(s)}`;
      if (!['map', 'set', 'atomic'].includes(value as string)) return `ListType must be either "map", "set" or "atomic"`;
      s['x-kubernetes-list-type'] = value as string;
      return;
    }
    case 'listMapKey':
    case 'k8s:listMapKey': {
      if (s.type !== 'array') return `must apply listMapKey to an array, found ${typeOf(s)}`;
      if (s['x-kubernetes-list-type'] !== 'map') return 'must apply listMapKey to an associative-list (add +listType=map)';
      s['x-kubernetes-list-map-keys'] = [...(s['x-kubernetes-list-map-keys'] ?? []), value as string];
      return;
    }
    case 'mapType': {
      if (s.type !== 'object') return 'must apply mapType to an object';
      if (value !== 'atomic' && value !== 'granular') return `MapType must be either "granular" or "atomic"`;
      s['x-kubernetes-map-type'] = value;
      return;
    }
    case 'structType': {
      if (s.type !== 'object' && s.type !== undefined) return 'must apply structType to an object; either explicitly set or defaulted through an empty schema type';
      if (value !== 'atomic' && value !== 'granular') return `StructType must be either "granular" or "atomic"`;
      s['x-kubernetes-map-type'] = value;
      return;
    }
    case 'k8s:enum':
      if (target === 'field') return 'k8s:enum must be set on a type, not a field';
      if (!s.enum || s.type !== 'string') return 'enum type must be a string: use it on a string-literal union or a string enum';
      s.enum = [...s.enum].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0));
      return;
    case 'k8s:immutable':
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), { rule: 'self == oldSelf', message: 'field is immutable' }];
      return;
    default:
      return;
  }
}

function isEmptyObject(v: MarkerValue): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

function goTypeName(v: MarkerValue): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

// re2js, a port of RE2, parses patterns as Go's regexp does (controller-gen and the API server both check them
// with it); loaded on the first Pattern marker only.
let re2: typeof import('re2js') | undefined;
// the same pattern on the same field type in many Kinds is compiled once
const patternProblems = new Map<string, string | undefined>();

/** Go's regexp error for a pattern it refuses ("missing closing ): `a(b`"), or undefined. */
export function patternProblem(pattern: string): string | undefined {
  if (patternProblems.has(pattern)) return patternProblems.get(pattern);
  re2 ??= createRequire(import.meta.url)('re2js') as typeof import('re2js');
  let problem: string | undefined;
  try {
    re2.RE2JS.compile(pattern);
  } catch (err) {
    problem = (err as Error).message.replace(/^error parsing regexp: /, '');
  }
  patternProblems.set(pattern, problem);
  return problem;
}
