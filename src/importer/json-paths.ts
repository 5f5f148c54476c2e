import { isObject } from '@kubescaffold/runtime/json';

/** A place in a JSON value: object keys and array indexes from the root. */
export type JSONPath = (string | number)[];

/** The paths where two JSON values differ (objects compared key by key, arrays index by index); empty when equal. */
export function differingPaths(a: unknown, b: unknown, path: JSONPath = []): JSONPath[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: JSONPath[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) out.push(...differingPaths(a[i], b[i], [...path, i]));
    return out;
  }
  if (isObject(a) && isObject(b)) {
    const out: JSONPath[] = [];
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      out.push(...differingPaths(a[k], b[k], [...path, k]));
    return out;
  }
  return Object.is(a, b) ? [] : [path];
}

/** A path as `.spec.versions[0].schema...`; '' for the root. */
export function displayPath(path: JSONPath): string {
  return path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
}

/** The value at `path` in `v`; undefined where the path leaves it. */
export function valueAt(v: unknown, path: JSONPath): unknown {
  let at = v;
  for (const s of path)
    at = Array.isArray(at) || isObject(at) ? (at as Record<string | number, unknown>)[s] : undefined;
  return at;
}
