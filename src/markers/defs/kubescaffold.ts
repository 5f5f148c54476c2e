/**
 * Markers of our own, `+kubescaffold:`, for what a CRD may hold and controller-gen has no marker for: schema
 * combinators (oneOf, anyOf, allOf, not) written as JSON, an exact `required` order, a JSON merge patch for keys no
 * other marker can set, and the CRD's listKind, preserveUnknownFields, conversion and version order. `scaffold import
 * crd` writes them so that every CRD it reads comes back; src/markers/README.md lists them among the differences.
 */
import { isObject, type JSONValue } from '@kubescaffold/runtime/json';
import { bool, string, type MarkerValue } from '../grammar.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../apiextensions.js';
import { anon, FIELD_TYPE, schemaEffect, strings, TYPE, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { CRDEffect, ReadElsewhere, SchemaEffect, VersionEffect } from './effect.js';

/** The prefix of our markers: a name under it that is not defined here is an error, as under `+kubebuilder:`. */
export const KUBESCAFFOLD_NAMESPACE = 'kubescaffold';

type Combinator = 'oneOf' | 'anyOf' | 'allOf';

/** `+kubescaffold:validation:OneOf=[{...},{...}]`: schemas appended to the schema's oneOf (anyOf, allOf). */
const combinator = (key: Combinator, name: string): MarkerDefinition<SchemaEffect> => ({
  name: `kubescaffold:validation:${name}`,
  targets: FIELD_TYPE,
  shape: { kind: 'json' },
  help: `schemas the value must match (${key}), as a JSON list: +kubescaffold:validation:${name}=[{"required":["a"]},{"required":["b"]}]`,
  effect: schemaEffect((s, value) => {
    if (!Array.isArray(value) || value.length === 0 || !value.every(isObject))
      return `expects a JSON list of schemas (objects), e.g. [{"required":["a"]}]`;
    s[key] = [...(s[key] ?? []), ...(value as JSONSchemaProps[])];
    return undefined;
  }, 14),
});

/** `+kubescaffold:validation:Not={...}`: a schema the value must not match. */
const not: MarkerDefinition<SchemaEffect> = {
  name: 'kubescaffold:validation:Not',
  targets: FIELD_TYPE,
  shape: { kind: 'json' },
  help: 'a schema the value must not match, as a JSON object: +kubescaffold:validation:Not={"required":["a"]}',
  effect: schemaEffect((s, value) => {
    if (!isObject(value)) return 'expects one schema as a JSON object, e.g. {"required":["a"]}';
    if (s.not !== undefined) return 'the schema has a `not` already; write one Not marker';
    s.not = value as JSONSchemaProps;
    return undefined;
  }, 14),
};

/** `+kubescaffold:validation:RequiredOrder=b;a`: the `required` list in this order rather than sorted. */
export const requiredOrder: MarkerDefinition<SchemaEffect> = {
  name: 'kubescaffold:validation:RequiredOrder',
  targets: TYPE,
  shape: anon(strings),
  help: 'the order of the required properties (sorted otherwise), naming each once: +kubescaffold:validation:RequiredOrder=secretName;key',
  effect: schemaEffect((s, value) => {
    const order = value as string[];
    const have = s.required ?? [];
    const sorted = (l: readonly string[]): string => JSON.stringify([...l].sort());
    if (order.length !== new Set(order).size || sorted(order) !== sorted(have))
      return `names ${order.join(', ')}, but the required properties are ${have.join(', ') || 'none'}; name each of them once`;
    s.required = [...order];
    return undefined;
  }, 15),
};

/**
 * A JSON merge patch (RFC 7386) applied to `target`, returning new objects wherever it changes something: the
 * schemas a patch reaches may be shared with other fields, so they are copied, never edited.
 */
export function mergePatch(target: unknown, patch: JSONValue): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** `+kubescaffold:schema:patch={...}`: a JSON merge patch on the schema, after every other marker. */
export const schemaPatch: MarkerDefinition<SchemaEffect> = {
  name: 'kubescaffold:schema:patch',
  targets: FIELD_TYPE,
  shape: { kind: 'json' },
  help: 'a JSON merge patch (RFC 7386) applied to the schema after every other marker, for keys no marker sets: +kubescaffold:schema:patch={"maxLength":10}',
  effect: schemaEffect((s, value) => {
    if (!isObject(value)) return 'expects a JSON object (a merge patch), e.g. {"maxLength":10}';
    const patched = mergePatch(s, value) as Record<string, unknown>;
    const own = s as Record<string, unknown>;
    for (const k of Object.keys(own)) if (!(k in patched)) delete own[k];
    Object.assign(own, patched);
    return undefined;
  }, 20),
};

const crdEffect = (apply: CRDEffect['apply']): CRDEffect => ({ on: 'crd', sameOnEveryVersion: true, apply });

/** `+kubescaffold:crd:listKind=...`: the CRD's listKind (`<Kind>List` otherwise); `""` leaves it out. */
export const listKind: MarkerDefinition<CRDEffect> = {
  name: 'kubescaffold:crd:listKind',
  targets: TYPE,
  shape: anon(string),
  help: 'the CRD\'s listKind, <Kind>List otherwise; +kubescaffold:crd:listKind="" leaves it out',
  effect: crdEffect((crd, value) => {
    const names = crd.spec.names as { listKind?: string };
    if (value === '') delete names.listKind;
    else names.listKind = value as string;
  }),
};

/** `+kubescaffold:crd:singular=""`: leaves the CRD's singular name out (controller-gen always writes it). */
export const singular: MarkerDefinition<CRDEffect> = {
  name: 'kubescaffold:crd:singular',
  targets: TYPE,
  shape: anon(string),
  help: 'the CRD\'s singular name, the Kind in lower case otherwise; +kubescaffold:crd:singular="" leaves it out',
  effect: crdEffect((crd, value) => {
    const names = crd.spec.names as { singular?: string };
    if (value === '') delete names.singular;
    else names.singular = value as string;
  }),
};

/** `+kubescaffold:crd:preserveUnknownFields=false`: the CRD's spec.preserveUnknownFields, written as given. */
export const preserveUnknownFields: MarkerDefinition<CRDEffect> = {
  name: 'kubescaffold:crd:preserveUnknownFields',
  targets: TYPE,
  shape: anon(bool),
  help: "the CRD's spec.preserveUnknownFields (apiextensions.k8s.io/v1 takes only false)",
  effect: crdEffect((crd, value, report) => {
    if (value !== false) report('apiextensions.k8s.io/v1 takes only preserveUnknownFields=false');
    crd.spec.preserveUnknownFields = value as boolean;
  }),
};

/** `+kubescaffold:crd:conversion={...}`: the CRD's spec.conversion, as JSON. */
export const conversion: MarkerDefinition<CRDEffect> = {
  name: 'kubescaffold:crd:conversion',
  targets: TYPE,
  shape: { kind: 'json' },
  help: 'the CRD\'s spec.conversion as JSON: +kubescaffold:crd:conversion={"strategy":"Webhook","webhook":{...}}',
  effect: crdEffect((crd, value: MarkerValue, report) => {
    if (!isObject(value) || (value.strategy !== 'None' && value.strategy !== 'Webhook')) {
      report('expects a JSON object with strategy None or Webhook');
      return;
    }
    crd.spec.conversion = value as CustomResourceDefinition['spec']['conversion'];
  }),
};

/** `+kubescaffold:crd:versions=v1;v1beta1`: the order of the CRD's versions (by name otherwise). */
export const versionOrder: MarkerDefinition<ReadElsewhere> = {
  name: 'kubescaffold:crd:versions',
  targets: TYPE,
  shape: anon(strings),
  help: "the order of the CRD's versions, naming each once (sorted by name otherwise): +kubescaffold:crd:versions=v1;v1beta1",
  effect: { on: 'read', by: 'crd/crd.ts', reads: 'the versions are listed in this order' },
};

const combinators = [combinator('oneOf', 'OneOf'), combinator('anyOf', 'AnyOf'), combinator('allOf', 'AllOf'), not];

/**
 * The markers that say a field's schema as the CRD holds it: on a field of a named type they apply after the field's
 * other markers are flattened onto the type's schema, not through that flattening (which would hoist or drop them).
 */
export const afterFlattening: ReadonlySet<string> = new Set([...combinators, schemaPatch].map((d) => d.name));

/**
 * `+kubescaffold:version:patch={...}`: a JSON merge patch on this version of the CRD, after its other markers (a
 * printer column without `subresources`, `deprecated: false`, a column's `priority: 0`).
 */
export const versionPatch: MarkerDefinition<VersionEffect> = {
  name: 'kubescaffold:version:patch',
  targets: TYPE,
  shape: { kind: 'json' },
  help: 'a JSON merge patch (RFC 7386) applied to this version of the CRD after its other markers: +kubescaffold:version:patch={"subresources":null}',
  effect: {
    on: 'version',
    apply(ver, value, report) {
      if (!isObject(value) || 'name' in value || 'schema' in value) {
        report('expects a JSON object (a merge patch) that sets neither name nor schema');
        return;
      }
      const patched = mergePatch(ver, value) as Record<string, unknown>;
      const own = ver as unknown as Record<string, unknown>;
      for (const k of Object.keys(own)) if (!(k in patched)) delete own[k];
      Object.assign(own, patched);
    },
  },
};

const definitions: readonly MarkerDefinition[] = [
  ...combinators,
  requiredOrder,
  schemaPatch,
  listKind,
  singular,
  preserveUnknownFields,
  conversion,
  versionOrder,
  versionPatch,
];

/** Our markers, as the marker reference lists them. */
export const kubescaffoldMarkers: MarkerGroup = {
  title: 'kubescaffold (no controller-gen counterpart)',
  definitions,
};
