/**
 * The registry of every marker controller-gen knows: the groups of src/markers/defs (each definition with its
 * effect), and the lookup that resolves a marker's text to its definition (controller-gen's tryAnonLookup: the full
 * name before `=` first, then the name without its last segment, whose last segment is then the first argument's
 * name).
 */
import { closest, editDistance, splitMarker, type ArgType } from './grammar.js';
import { crdMarkers } from './defs/crd.js';
import type { MarkerDefinition, MarkerGroup, MarkerTarget } from './defs/define.js';
import { defaultMarkers } from './defs/defaults.js';
import { foreignPrefixes, OWN_NAMESPACE } from './defs/foreign.js';
import { KUBESCAFFOLD_NAMESPACE, kubescaffoldMarkers } from './defs/kubescaffold.js';
import { objectMarkers } from './defs/object.js';
import { packageMarkers } from './defs/package.js';
import { rbacMarkers } from './defs/rbac.js';
import { requiredMarkerGroup } from './defs/required.js';
import { topologyMarkers } from './defs/topology.js';
import { itemsValidationMarkers, validationMarkers } from './defs/validation.js';
import { webhookMarkers } from './defs/webhook.js';

/** Every group of markers, in the order the marker reference lists them. */
export const markerGroups: readonly MarkerGroup[] = [
  packageMarkers,
  objectMarkers,
  crdMarkers,
  requiredMarkerGroup,
  validationMarkers,
  itemsValidationMarkers,
  defaultMarkers,
  topologyMarkers,
  rbacMarkers,
  webhookMarkers,
  kubescaffoldMarkers,
];

/** Every marker definition. */
export const definitions: readonly MarkerDefinition[] = markerGroups.flatMap((g) => g.definitions);

const byName = new Map<string, MarkerDefinition>(definitions.map((d) => [d.name, d]));

/** The definition of a registered marker name (a collected Marker's `name`), if there is one. */
export function definitionNamed(name: string): MarkerDefinition | undefined {
  return byName.get(name);
}

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
    (d) =>
      !d.name.includes(':') &&
      (d.name.toLowerCase() === anonName.toLowerCase() || d.name.toLowerCase() === name.toLowerCase()),
  );
  if (caseless) return { kind: 'unknown', suggestion: caseless.name };
  return { kind: 'foreign' };
}

function isOurs(name: string): boolean {
  return [OWN_NAMESPACE, KUBESCAFFOLD_NAMESPACE].some((ns) => name.startsWith(`${ns}:`) || name === ns);
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
