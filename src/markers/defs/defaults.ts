/**
 * Markers for a schema's values and documentation (the rest of controller-gen's pkg/crd/markers/validation.go):
 * nullable, defaults, examples, title and external docs.
 */
import type { JSONValue } from '@kubescaffold/runtime/json';
import { anyValue, string, type MarkerValue } from '../grammar.js';
import {
  anon,
  FIELD,
  FIELD_TYPE,
  flag,
  opt,
  schemaEffect,
  struct,
  type MarkerDefinition,
  type MarkerGroup,
} from './define.js';
import type { SchemaEffect } from './effect.js';

const isEmptyObject = (v: MarkerValue): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** Go's name for the type of a parsed value, as controller-gen's messages say it. */
function goTypeName(v: MarkerValue): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

const definitions: ReadonlyArray<MarkerDefinition<SchemaEffect>> = [
  {
    name: 'nullable',
    targets: FIELD,
    shape: flag,
    help: 'the field accepts null',
    effect: schemaEffect((s) => {
      s.nullable = true;
      return undefined;
    }),
  },
  {
    name: 'kubebuilder:default',
    targets: FIELD,
    shape: anon(anyValue),
    help: 'the default value, e.g. +kubebuilder:default=3 or +kubebuilder:default={a,b}',
    // `{}` is how the marker grammar writes an empty list
    effect: schemaEffect((s, value) => {
      s.default = s.type === 'array' && isEmptyObject(value) ? [] : (value as JSONValue);
      return undefined;
    }),
  },
  {
    name: 'default',
    targets: FIELD,
    shape: { kind: 'json' },
    help: 'the default value as JSON, e.g. +default="TCP"',
    // applied first, as controller-gen's KubernetesDefault
    effect: schemaEffect((s, value) => {
      if (value !== null) s.default = value as JSONValue;
      return undefined;
    }, 9),
  },
  {
    name: 'kubebuilder:example',
    targets: FIELD,
    shape: anon(anyValue),
    help: 'an example value',
    effect: schemaEffect((s, value) => {
      s.example = value as JSONValue;
      return undefined;
    }),
  },
  {
    name: 'kubebuilder:title',
    targets: FIELD_TYPE,
    shape: anon(anyValue),
    help: 'the schema title',
    effect: schemaEffect((s, value) => {
      if (value === null) return undefined;
      if (typeof value !== 'string') return `expected string, got ${goTypeName(value)}; quote the title`;
      s.title = value;
      return undefined;
    }),
  },
  {
    name: 'kubebuilder:externalDocs',
    targets: FIELD_TYPE,
    shape: struct({ url: string, description: opt(string) }),
    help: 'externalDocs of the schema',
    effect: schemaEffect((s, value) => {
      const x = value as Record<string, MarkerValue>;
      const url = x.url as string;
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/\S+$|^\/\S*$/.test(url))
        return `invalid url ${JSON.stringify(url)} in kubebuilder:externalDocs marker`;
      s.externalDocs = x.description ? { url, description: x.description as string } : { url };
      return undefined;
    }),
  },
];

/** The value and documentation markers, as the marker reference lists them. */
export const defaultMarkers: MarkerGroup = { title: 'Defaults, examples and documentation', definitions };
