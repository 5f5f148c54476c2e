/**
 * The shape of a CRD's openAPIV3Schema before the importer reads it: every key the importer relies on holds a value
 * of the kind the apiextensions API gives it, so a malformed file is refused at its line rather than misread.
 */
import { isObject } from '@kubescaffold/runtime/json';

type Path = (string | number)[];

/** A malformed part of a schema: where, and what it should be. */
export interface ShapeProblem {
  path: Path;
  message: string;
}

const NUMBER_KEYS = ['maximum', 'minimum', 'multipleOf'];
const INTEGER_KEYS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'];
const BOOLEAN_KEYS = [
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];
const STRING_KEYS = [
  'type',
  'format',
  'title',
  'description',
  'pattern',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
];
// Deeper than any CRD nests; the YAML reader bounds nesting too, this keeps the walk's stack small.
const MAX_DEPTH = 200;

/** The first malformed part of `schema` (under `path`), or undefined. */
export function schemaShapeProblem(schema: unknown, path: Path, depth = 0): ShapeProblem | undefined {
  if (!isObject(schema)) return { path, message: 'a schema must be a mapping' };
  if (depth > MAX_DEPTH) return { path, message: `the schema nests more than ${MAX_DEPTH} levels deep` };
  const bad = (key: string, what: string): ShapeProblem => ({
    path: [...path, key],
    message: `${key} must be ${what}`,
  });
  for (const k of NUMBER_KEYS) if (k in schema && typeof schema[k] !== 'number') return bad(k, 'a number');
  for (const k of INTEGER_KEYS)
    if (k in schema && (typeof schema[k] !== 'number' || !Number.isInteger(schema[k]) || (schema[k] as number) < 0))
      return bad(k, 'a non-negative integer');
  for (const k of BOOLEAN_KEYS) if (k in schema && typeof schema[k] !== 'boolean') return bad(k, 'true or false');
  for (const k of STRING_KEYS) if (k in schema && typeof schema[k] !== 'string') return bad(k, 'a string');
  for (const k of ['required', 'x-kubernetes-list-map-keys'])
    if (k in schema && (!Array.isArray(schema[k]) || (schema[k] as unknown[]).some((x) => typeof x !== 'string')))
      return bad(k, 'a list of strings');
  if ('enum' in schema && !Array.isArray(schema.enum)) return bad('enum', 'a list');
  if ('x-kubernetes-validations' in schema) {
    const rules = schema['x-kubernetes-validations'];
    if (!Array.isArray(rules)) return bad('x-kubernetes-validations', 'a list of rules');
    for (let i = 0; i < rules.length; i++) {
      const r: unknown = rules[i];
      if (!isObject(r) || typeof r.rule !== 'string')
        return { path: [...path, 'x-kubernetes-validations', i], message: 'a validation rule needs rule: <CEL>' };
      for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'])
        if (k in r && typeof r[k] !== 'string')
          return { path: [...path, 'x-kubernetes-validations', i, k], message: `${k} must be a string` };
    }
  }
  if ('properties' in schema) {
    if (!isObject(schema.properties)) return bad('properties', 'a mapping of property names to schemas');
    for (const [name, prop] of Object.entries(schema.properties)) {
      const p = schemaShapeProblem(prop, [...path, 'properties', name], depth + 1);
      if (p) return p;
    }
  }
  if ('items' in schema) {
    if (Array.isArray(schema.items))
      return bad('items', 'one schema (a list of schemas, a tuple, is not a structural schema)');
    const p = schemaShapeProblem(schema.items, [...path, 'items'], depth + 1);
    if (p) return p;
  }
  if ('additionalProperties' in schema && typeof schema.additionalProperties !== 'boolean') {
    const p = schemaShapeProblem(schema.additionalProperties, [...path, 'additionalProperties'], depth + 1);
    if (p) return p;
  }
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    if (!(k in schema)) continue;
    const list = schema[k];
    if (!Array.isArray(list)) return bad(k, 'a list of schemas');
    for (let i = 0; i < list.length; i++) {
      const p = schemaShapeProblem(list[i], [...path, k, i], depth + 1);
      if (p) return p;
    }
  }
  if ('not' in schema) return schemaShapeProblem(schema.not, [...path, 'not'], depth + 1);
  return undefined;
}
