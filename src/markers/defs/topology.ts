/**
 * Topology markers (controller-gen's pkg/crd/markers/topology.go): how the API server merges lists and maps in
 * server-side apply, as `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type`.
 */
import { string } from '../grammar.js';
import { anon, FIELD_TYPE, schemaEffect, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { SchemaEffect } from './effect.js';
import { typeOf } from './schema-type.js';

// listType comes first (priority 9): listMapKey checks it.
const listType = (name: string): MarkerDefinition<SchemaEffect> => ({
  name,
  targets: FIELD_TYPE,
  shape: anon(string),
  help: 'x-kubernetes-list-type: map, set or atomic',
  effect: schemaEffect((s, value) => {
    if (s.type !== 'array') return `must apply listType to an array, found ${typeOf(s)}`;
    if (!['map', 'set', 'atomic'].includes(value as string)) return `ListType must be either "map", "set" or "atomic"`;
    s['x-kubernetes-list-type'] = value as string;
    return undefined;
  }, 9),
});

const listMapKey = (name: string): MarkerDefinition<SchemaEffect> => ({
  name,
  targets: FIELD_TYPE,
  shape: anon(string),
  help: 'a key of an associative list (with listType=map); repeatable',
  effect: schemaEffect((s, value) => {
    if (s.type !== 'array') return `must apply listMapKey to an array, found ${typeOf(s)}`;
    if (s['x-kubernetes-list-type'] !== 'map')
      return 'must apply listMapKey to an associative-list (add +listType=map)';
    s['x-kubernetes-list-map-keys'] = [...(s['x-kubernetes-list-map-keys'] ?? []), value as string];
    return undefined;
  }),
});

const definitions: ReadonlyArray<MarkerDefinition<SchemaEffect>> = [
  listType('listType'),
  listMapKey('listMapKey'),
  listType('k8s:listType'),
  listMapKey('k8s:listMapKey'),
  {
    name: 'mapType',
    targets: FIELD_TYPE,
    shape: anon(string),
    help: 'x-kubernetes-map-type: granular or atomic',
    effect: schemaEffect((s, value) => {
      if (s.type !== 'object') return 'must apply mapType to an object';
      if (value !== 'atomic' && value !== 'granular') return `MapType must be either "granular" or "atomic"`;
      s['x-kubernetes-map-type'] = value;
      return undefined;
    }),
  },
  {
    name: 'structType',
    targets: FIELD_TYPE,
    shape: anon(string),
    help: 'x-kubernetes-map-type of a struct: granular or atomic',
    effect: schemaEffect((s, value) => {
      if (s.type !== 'object' && s.type !== undefined)
        return 'must apply structType to an object; either explicitly set or defaulted through an empty schema type';
      if (value !== 'atomic' && value !== 'granular') return `StructType must be either "granular" or "atomic"`;
      s['x-kubernetes-map-type'] = value;
      return undefined;
    }),
  },
];

/** The topology markers, as the marker reference lists them. */
export const topologyMarkers: MarkerGroup = { title: 'Lists and maps', definitions };
