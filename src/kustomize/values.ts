/** A YAML document as plain JSON data: what kustomize's resources become once parsed. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function deepClone<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}

export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The string form of a scalar, as a YAML node's value would read. */
export function scalarText(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

/** Reads a string field of an object, '' when missing or not a string. */
export function stringField(obj: JsonValue | undefined, ...path: string[]): string {
  let cur: JsonValue | undefined = obj;
  for (const p of path) {
    if (!isObject(cur)) return '';
    cur = cur[p];
  }
  return typeof cur === 'string' ? cur : '';
}
