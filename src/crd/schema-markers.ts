/**
 * Applies schema markers to a schema, in controller-gen's order (pkg/crd/schema.go applyMarkers): by priority
 * (Type, XIntOrString, listType and +default first; OneOf rules last), source order within a priority, and the
 * `items:` markers after all others. What each marker does, with its checks and messages, is its definition's
 * schema effect (src/markers/defs); this module only orders the markers and reports at each marker's position.
 */
import type { Marker } from '../markers/collector.js';
import type { DiagnosticBag } from '../diagnostics.js';
import type { JSONSchemaProps } from '../markers/apiextensions.js';
import type { SchemaEffect, SchemaMarkerTarget } from '../markers/defs/effect.js';
import { definitionNamed } from '../markers/registry.js';

interface Applicable {
  marker: Marker;
  effect: SchemaEffect;
}

/** The markers with a schema effect (others, like +optional, are read elsewhere) with their effects. */
function schemaMarkers(markers: readonly Marker[]): Applicable[] {
  const out: Applicable[] = [];
  for (const marker of markers) {
    const effect = definitionNamed(marker.name)?.effect;
    if (effect?.on === 'schema') out.push({ marker, effect });
  }
  return out;
}

const byPriority = (list: Applicable[]): Applicable[] =>
  list
    .map((a, i) => ({ a, i }))
    .sort((x, y) => x.a.effect.priority - y.a.effect.priority || x.i - y.i)
    .map((x) => x.a);

/**
 * Changes only `schema`'s own keys (and a copy of its items): nested schemas may be shared with other fields, so
 * they are replaced, never modified.
 */
export function applySchemaMarkers(
  schema: JSONSchemaProps,
  markers: readonly Marker[],
  target: SchemaMarkerTarget,
  diags: DiagnosticBag,
): void {
  const relevant = schemaMarkers(markers);
  for (const { marker: m, effect } of byPriority(relevant.filter((a) => !a.effect.items))) {
    const err = effect.apply(schema, m.value, target);
    if (err) diags.at(m.pos, `+${m.name}: ${err}`);
  }
  for (const { marker: m, effect } of byPriority(relevant.filter((a) => a.effect.items))) {
    if (schema.type !== 'array' || !schema.items) {
      diags.at(
        m.pos,
        `must apply ${m.name} to an array value, found ${schema.type ?? 'no type'}; use the marker without items: for a single value`,
      );
      continue;
    }
    schema.items = { ...schema.items };
    const err = effect.apply(schema.items, m.value, target);
    if (err) diags.at(m.pos, `+${m.name}: ${err}`);
  }
}
