// A YAML document as plain JSON data, what kustomize's resources become once parsed: the runtime's JSON types.
import { isObject, type JSONValue } from '@kubescaffold/runtime/json';

export { deepEqual, isObject, type JSONObject, type JSONValue } from '@kubescaffold/runtime/json';

/** Whether a value is a YAML scalar (string, number or boolean; not null). */
export function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** A deep copy of a JSON value. */
export function deepClone<T extends JSONValue>(v: T): T {
  return structuredClone(v);
}

/** The string form of a scalar, as a YAML node's value would read. */
export function scalarText(v: JSONValue | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

/** Reads a string field of an object, '' when missing or not a string. */
export function stringField(obj: JSONValue | undefined, ...path: string[]): string {
  let cur: JSONValue | undefined = obj;
  for (const p of path) {
    if (!isObject(cur)) return '';
    cur = cur[p];
  }
  return typeof cur === 'string' ? cur : '';
}
