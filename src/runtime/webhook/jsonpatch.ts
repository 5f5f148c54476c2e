/**
 * The JSON patch (RFC 6902) that turns one JSON document into another, as controller-runtime's
 * PatchResponseFromRaw sends for a defaulting webhook. Object members are added, removed or diffed recursively;
 * arrays are diffed index by index, then trimmed or extended at the end.
 */
import { isObject as isPlainObject } from '../json/index.js';
import { jsonPointerEscape, type JsonPatchOperation } from '../client/patch.js';

/**
 * The operations that turn `original` into `current`. `original` is a JSON value (as JSON.parse returns it);
 * `current` may be one a user's code changed: it is read as JSON.stringify would write it (members that are
 * undefined or functions are absent, array holes null, toJSON used), without a copy through JSON first, which would
 * hold another whole copy of a large object.
 */
export function createJsonPatch(original: unknown, current: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diff(original, asJson(current, ''), '', ops);
  return ops;
}

const ABSENT = Symbol('absent');

// One value as JSON.stringify sees it (shallowly): ABSENT where it would be left out.
function asJson(v: unknown, key: string): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(k: string): unknown }).toJSON(key);
  }
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return ABSENT;
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  return v;
}

function diff(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (a === b) return;
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key) || asJson(b[key], key) === ABSENT)
        ops.push({ op: 'remove', path: `${path}/${jsonPointerEscape(key)}` });
    }
    for (const key of Object.keys(b)) {
      const value = asJson(b[key], key);
      if (value === ABSENT) continue;
      const p = `${path}/${jsonPointerEscape(key)}`;
      if (Object.hasOwn(a, key)) diff(a[key], value, p, ops);
      else ops.push({ op: 'add', path: p, value });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const item = (i: number): unknown => {
      const v = asJson(b[i], String(i));
      return v === ABSENT ? null : v;
    };
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) diff(a[i], item(i), `${path}/${i}`, ops);
    // From the end, so each index still names the element it meant.
    for (let i = a.length - 1; i >= b.length; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = a.length; i < b.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: item(i) });
    return;
  }
  ops.push({ op: 'replace', path, value: b });
}
