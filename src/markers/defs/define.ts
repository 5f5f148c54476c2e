/**
 * How a marker is declared: the definition type every marker module (this folder) uses, and the helpers that spell
 * argument shapes and places briefly. A definition requires its effect, so a marker cannot be registered without one.
 */
import { sliceOf, string, type ArgSpec, type ArgType, type MarkerShape } from '../grammar.js';
import type { MarkerEffect, SchemaEffect } from './effect.js';

/** What a marker may stand on: the package (a free-standing comment), a type, or a field. */
export type MarkerTarget = 'package' | 'type' | 'field';

/**
 * A known marker: its name, where it may stand, how it takes arguments, the help text the marker reference shows,
 * and what it does.
 */
export interface MarkerDefinition<E extends MarkerEffect = MarkerEffect> {
  readonly name: string;
  readonly targets: readonly MarkerTarget[];
  readonly shape: MarkerShape;
  readonly help: string;
  readonly effect: E;
}

/** The markers of one module, under the heading the marker reference lists them with. */
export interface MarkerGroup {
  readonly title: string;
  readonly definitions: readonly MarkerDefinition[];
}

/** A marker without arguments: `+optional`. */
export const flag: MarkerShape = { kind: 'flag' };

/** A marker with one unnamed argument: `+kubebuilder:validation:Maximum=10`. */
export const anon = (type: ArgType, optional = false): MarkerShape => ({ kind: 'anonymous', arg: { type, optional } });

/** A marker with named arguments, `[type, 'optional']` for those that may be left out: `+kubebuilder:resource:scope=Cluster`. */
export const struct = (args: Record<string, ArgType | [ArgType, 'optional']>): MarkerShape => ({
  kind: 'struct',
  args: Object.fromEntries(
    Object.entries(args).map(([k, v]): [string, ArgSpec] =>
      Array.isArray(v) ? [k, { type: v[0], optional: true }] : [k, { type: v }],
    ),
  ),
});

/** An optional named argument of a struct marker. */
export const opt = (t: ArgType): [ArgType, 'optional'] => [t, 'optional'];

/** A list of strings: `verbs=get;list;watch`. */
export const strings = sliceOf(string);

/** Package markers: free-standing comments. */
export const PKG: readonly MarkerTarget[] = ['package'];
/** Type markers: above an interface, type alias or enum. */
export const TYPE: readonly MarkerTarget[] = ['type'];
/** Field markers: above a property. */
export const FIELD: readonly MarkerTarget[] = ['field'];
/** Markers of fields and of types. */
export const FIELD_TYPE: readonly MarkerTarget[] = ['field', 'type'];

/** A schema effect of the given priority (controller-gen's default is 10). */
export const schemaEffect = (apply: SchemaEffect['apply'], priority = 10): SchemaEffect => ({
  on: 'schema',
  priority,
  items: false,
  apply,
});
