/**
 * Every marker controller-gen knows, with where it may stand and the type of its arguments, plus the lookup that
 * resolves a marker's text to its definition (controller-gen's tryAnonLookup: the full name before `=` first,
 * then the name without its last segment, whose last segment is then the first argument's name).
 */
import {
  anyValue,
  bool,
  closest,
  editDistance,
  int,
  number,
  sliceOf,
  splitMarker,
  string,
  type ArgSpec,
  type ArgType,
  type MarkerShape,
} from './grammar.js';

/** What a marker may stand on: the package (a free-standing comment), a type, or a field. */
export type MarkerTarget = 'package' | 'type' | 'field';

/**
 * A known marker: its name, where it may stand, how it takes arguments, and the help text the marker reference shows.
 */
export interface MarkerDefinition {
  name: string;
  targets: readonly MarkerTarget[];
  shape: MarkerShape;
  help: string;
}

const flag: MarkerShape = { kind: 'flag' };
const anon = (type: ArgType, optional = false): MarkerShape => ({ kind: 'anonymous', arg: { type, optional } });
const struct = (args: Record<string, ArgType | [ArgType, 'optional']>): MarkerShape => ({
  kind: 'struct',
  args: Object.fromEntries(
    Object.entries(args).map(([k, v]): [string, ArgSpec] => (Array.isArray(v) ? [k, { type: v[0], optional: true }] : [k, { type: v }])),
  ),
});
const opt = (t: ArgType): [ArgType, 'optional'] => [t, 'optional'];
const strings = sliceOf(string);

const PKG: readonly MarkerTarget[] = ['package'];
const TYPE: readonly MarkerTarget[] = ['type'];
const FIELD: readonly MarkerTarget[] = ['field'];
const FIELD_TYPE: readonly MarkerTarget[] = ['field', 'type'];

/** The prefix of the validation markers (`+kubebuilder:validation:Maximum=...`). */
export const VALIDATION_PREFIX = 'kubebuilder:validation:';
/** The prefix of the validation markers that apply to a list's items (`+kubebuilder:validation:items:Maximum=...`). */
export const ITEMS_PREFIX = 'kubebuilder:validation:items:';

/** The `kubebuilder:validation:<Name>` markers that also exist as `kubebuilder:validation:items:<Name>`, for fields and types. */
const validationMarkers: ReadonlyArray<[string, MarkerShape, string]> = [
  ['Maximum', anon(number), 'the maximum numeric value'],
  ['Minimum', anon(number), 'the minimum numeric value (negative numbers are supported)'],
  ['ExclusiveMaximum', anon(bool), 'whether the maximum is exclusive'],
  ['ExclusiveMinimum', anon(bool), 'whether the minimum is exclusive'],
  ['MultipleOf', anon(number), 'the value must be a multiple of this number'],
  ['MinProperties', anon(int), 'the minimum number of properties of an object'],
  ['MaxProperties', anon(int), 'the maximum number of properties of an object'],
  ['MaxLength', anon(int), 'the maximum length of a string'],
  ['MinLength', anon(int), 'the minimum length of a string'],
  ['Pattern', anon(string), 'a regular expression the string must match'],
  ['MaxItems', anon(int), 'the maximum length of an array'],
  ['MinItems', anon(int), 'the minimum length of an array'],
  ['UniqueItems', anon(bool), 'all items of the array must be unique'],
  ['Enum', anon(sliceOf(anyValue)), 'the allowed values, e.g. Enum=a;b;c'],
  ['Format', anon(string), 'the OpenAPI format, e.g. date-time'],
  ['Type', anon(string), 'overrides the OpenAPI type'],
  ['XPreserveUnknownFields', flag, 'x-kubernetes-preserve-unknown-fields: true (use kubebuilder:pruning:PreserveUnknownFields)'],
  ['XEmbeddedResource', flag, 'x-kubernetes-embedded-resource: true'],
  ['XIntOrString', flag, 'x-kubernetes-int-or-string: true'],
  [
    'XValidation',
    struct({ rule: string, message: opt(string), messageExpression: opt(string), reason: opt(string), fieldPath: opt(string), optionalOldSelf: opt(bool) }),
    'a CEL validation rule, e.g. XValidation:rule="self.a <= self.b",message="a must not exceed b"',
  ],
];

function define(): MarkerDefinition[] {
  const defs: MarkerDefinition[] = [];
  const add = (name: string, targets: readonly MarkerTarget[], shape: MarkerShape, help: string): void => {
    defs.push({ name, targets, shape, help });
  };

  // package level
  add('groupName', PKG, anon(string, true), 'the API group of this version folder, e.g. +groupName=crew.example.com');
  add('versionName', PKG, anon(string), 'the API version of this folder (default: the folder name)');
  add('kubebuilder:skip', PKG, flag, 'do not treat this folder as an API version');
  add('kubebuilder:validation:Optional', ['package', 'field'], flag, 'on a field: the field is optional; in a package: all fields are optional by default');
  add('kubebuilder:validation:Required', ['package', 'field'], flag, 'on a field: the field is required');
  add('kubebuilder:object:generate', ['package', 'type'], anon(bool), 'deepcopy generation switch (accepted, no effect in TypeScript)');
  add(
    'kubebuilder:rbac',
    PKG,
    struct({ groups: opt(strings), resources: opt(strings), resourceNames: opt(strings), verbs: strings, urls: opt(strings), namespace: opt(string), roleName: opt(string) }),
    'an RBAC rule, e.g. +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch',
  );
  add(
    'kubebuilder:webhook',
    PKG,
    struct({
      mutating: bool,
      failurePolicy: string,
      matchPolicy: opt(string),
      sideEffects: opt(string),
      timeoutSeconds: opt(int),
      groups: strings,
      resources: strings,
      verbs: strings,
      versions: strings,
      name: string,
      path: opt(string),
      url: opt(string),
      serviceName: opt(string),
      serviceNamespace: opt(string),
      servicePort: opt(int),
      webhookVersions: opt(strings),
      admissionReviewVersions: strings,
      reinvocationPolicy: opt(string),
      patch: opt(string),
    }),
    'an admission webhook, e.g. +kubebuilder:webhook:path=/mutate-...,mutating=true,failurePolicy=fail,sideEffects=None,groups=...,resources=...,verbs=create;update,versions=v1,name=m....io,admissionReviewVersions=v1',
  );
  add('kubebuilder:webhookconfiguration', PKG, struct({ mutating: bool, name: opt(string) }), 'names the webhook configuration object');

  // type level (CRD)
  add('kubebuilder:object:root', TYPE, anon(bool, true), 'marks a Kind: +kubebuilder:object:root=true');
  add('kubebuilder:subresource:status', TYPE, flag, 'enables the status subresource');
  add(
    'kubebuilder:subresource:scale',
    TYPE,
    struct({ specpath: string, statuspath: string, selectorpath: opt(string) }),
    'enables the scale subresource, e.g. +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas',
  );
  add(
    'kubebuilder:printcolumn',
    TYPE,
    struct({ name: string, type: string, JSONPath: string, description: opt(string), format: opt(string), priority: opt(int) }),
    'a kubectl column, e.g. +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`',
  );
  add(
    'kubebuilder:resource',
    TYPE,
    struct({ path: opt(string), shortName: opt(strings), categories: opt(strings), singular: opt(string), scope: opt(string) }),
    'resource names and scope, e.g. +kubebuilder:resource:scope=Cluster,shortName=cap',
  );
  add('kubebuilder:storageversion', TYPE, flag, 'this version is the storage version');
  add('kubebuilder:skipversion', TYPE, flag, 'leave this version out of the CRD');
  add('kubebuilder:unservedversion', TYPE, flag, 'this version is not served');
  add('kubebuilder:deprecatedversion', TYPE, struct({ warning: opt(string) }), 'this version is deprecated');
  add('kubebuilder:metadata', TYPE, struct({ annotations: opt(strings), labels: opt(strings) }), 'CRD annotations and labels, each "key=value"');
  add('kubebuilder:selectablefield', TYPE, struct({ JSONPath: string }), 'a field selector, e.g. +kubebuilder:selectablefield:JSONPath=`.spec.name`');
  add('kubebuilder:externalDocs', FIELD_TYPE, struct({ url: string, description: opt(string) }), 'externalDocs of the schema');

  // validation, for fields and types, and for their array items
  for (const [name, shape, help] of validationMarkers) {
    add(VALIDATION_PREFIX + name, FIELD_TYPE, shape, help);
    add(ITEMS_PREFIX + name, FIELD_TYPE, shape, `for array items: ${help}`);
  }
  add('kubebuilder:validation:AtMostOneOf', TYPE, anon(strings), 'at most one of these fields may be set');
  add('kubebuilder:validation:ExactlyOneOf', TYPE, anon(strings), 'exactly one of these fields must be set');
  add('kubebuilder:validation:AtLeastOneOf', TYPE, anon(strings), 'at least one of these fields must be set');
  add('k8s:enum', FIELD_TYPE, flag, 'the type is an enum of its values');

  // field only
  add('required', FIELD, flag, 'the field is required');
  add('optional', FIELD, flag, 'the field is optional');
  add('k8s:required', FIELD, flag, 'the field is required');
  add('k8s:optional', FIELD, flag, 'the field is optional');
  add('nullable', FIELD, flag, 'the field accepts null');
  add('kubebuilder:default', FIELD, anon(anyValue), 'the default value, e.g. +kubebuilder:default=3 or +kubebuilder:default={a,b}');
  add('default', FIELD, { kind: 'json' }, 'the default value as JSON, e.g. +default="TCP"');
  add('kubebuilder:example', FIELD, anon(anyValue), 'an example value');
  add('kubebuilder:validation:EmbeddedResource', FIELD, flag, 'x-kubernetes-embedded-resource: true');
  add('kubebuilder:validation:Schemaless', FIELD, flag, 'do not generate a schema for the field type');
  add('k8s:immutable', FIELD, flag, 'the field cannot change once set');

  // field and type, other prefixes
  add('kubebuilder:pruning:PreserveUnknownFields', FIELD_TYPE, flag, 'x-kubernetes-preserve-unknown-fields: true');
  add('kubebuilder:title', FIELD_TYPE, anon(anyValue), 'the schema title');
  for (const prefix of ['', 'k8s:']) {
    add(`${prefix}listType`, FIELD_TYPE, anon(string), 'x-kubernetes-list-type: map, set or atomic');
    add(`${prefix}listMapKey`, FIELD_TYPE, anon(string), 'a key of an associative list (with listType=map); repeatable');
  }
  add('mapType', FIELD_TYPE, anon(string), 'x-kubernetes-map-type: granular or atomic');
  add('structType', FIELD_TYPE, anon(string), 'x-kubernetes-map-type of a struct: granular or atomic');
  return defs;
}

/** Every marker definition, in the order the marker reference lists them. */
export const definitions: readonly MarkerDefinition[] = define();

const byName = new Map<string, MarkerDefinition>(definitions.map((d) => [d.name, d]));

/** `+kubebuilder:` markers that other tools own; they are accepted and ignored. */
const foreignPrefixes = ['kubebuilder:scaffold:', 'kubebuilder:ac:', 'kubebuilder:docs-gen:', 'kubebuilder:informers:', 'kubebuilder:conversion:'];

/**
 * The outcome of resolving a marker's text: its definition, another tool's marker, a known marker in the wrong place,
 * or an unknown one (with the closest known name).
 */
export type Lookup =
  | { kind: 'found'; definition: MarkerDefinition; definedName: string }
  | { kind: 'foreign' }
  | { kind: 'misplaced'; definition: MarkerDefinition }
  | { kind: 'unknown'; suggestion?: string };

/** Resolves marker text (starting with '+') for a node of the given kind. */
export function lookupMarker(marker: string, target: MarkerTarget): Lookup {
  const { name, anonName } = splitMarker(marker);
  let elsewhere: MarkerDefinition | undefined;
  for (const candidate of [anonName, name]) {
    const def = byName.get(candidate);
    if (def === undefined) continue;
    if (def.targets.includes(target)) return { kind: 'found', definition: def, definedName: candidate };
    elsewhere ??= def;
  }
  if (elsewhere) return { kind: 'misplaced', definition: elsewhere };
  if (isOurs(anonName)) {
    if (foreignPrefixes.some((p) => anonName.startsWith(p))) return { kind: 'foreign' };
    return { kind: 'unknown', suggestion: suggest(anonName, name) };
  }
  // Unprefixed markers belong to many tools (+genclient, +enum, ...); only near-misses of ours are errors.
  const caseless = definitions.find(
    (d) => !d.name.includes(':') && (d.name.toLowerCase() === anonName.toLowerCase() || d.name.toLowerCase() === name.toLowerCase()),
  );
  if (caseless) return { kind: 'unknown', suggestion: caseless.name };
  return { kind: 'foreign' };
}

function isOurs(name: string): boolean {
  return name.startsWith('kubebuilder:') || name === 'kubebuilder';
}

function suggest(anonName: string, name: string): string | undefined {
  const names = definitions.map((d) => d.name);
  // `+kubebuilder:printcolum:name=x` is a misspelt struct marker: compare its shorter name too, keep the closer.
  const options = [anonName, name]
    .map((n) => ({ n, c: closest(n, names) }))
    .filter((o): o is { n: string; c: string } => o.c !== undefined)
    .map((o) => ({ c: o.c, d: editDistance(o.n.toLowerCase(), o.c.toLowerCase()) }));
  options.sort((a, b) => a.d - b.d);
  return options[0]?.c;
}

/** Human-readable form of a marker's expected syntax, for error messages. */
export function usage(def: MarkerDefinition): string {
  const shape = def.shape;
  switch (shape.kind) {
    case 'flag':
      return `+${def.name}`;
    case 'anonymous':
      return `+${def.name}=<${typeName(shape.arg.type)}>`;
    case 'json':
      return `+${def.name}=<JSON>`;
    case 'struct':
      return `+${def.name}:${Object.entries(shape.args)
        .map(([k, s]) => (s.optional ? `[${k}=<${typeName(s.type)}>]` : `${k}=<${typeName(s.type)}>`))
        .join(',')}`;
  }
}

function typeName(t: ArgType): string {
  switch (t.kind) {
    case 'slice':
      return `${typeName(t.item)};...`;
    case 'map':
      return `{key: ${typeName(t.item)}}`;
    case 'any':
      return 'value';
    default:
      return t.kind;
  }
}
