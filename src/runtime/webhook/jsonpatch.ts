/**
 * The JSON patch (RFC 6902) that turns one JSON document into another, as controller-runtime's
 * PatchResponseFromRaw sends for a defaulting webhook. Object members are added, removed or diffed recursively;
 * arrays are diffed index by index, then trimmed or extended at the end.
 */
import { jsonPointerEscape, type JsonPatchOperation } from '../client/patch.js';

type JsonObject = { [key: string]: unknown };

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The operations that turn `original` into `current`. Both must be JSON values (as JSON.parse returns them);
 * run objects a user touched through JSON first, so `undefined` members count as absent.
 */
export function createJsonPatch(original: unknown, current: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diff(original, current, '', ops);
  return ops;
}

function diff(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (a === b) return;
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key)) ops.push({ op: 'remove', path: `${path}/${jsonPointerEscape(key)}` });
    }
    for (const key of Object.keys(b)) {
      const p = `${path}/${jsonPointerEscape(key)}`;
      if (Object.hasOwn(a, key)) diff(a[key], b[key], p, ops);
      else ops.push({ op: 'add', path: p, value: b[key] });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) diff(a[i], b[i], `${path}/${i}`, ops);
    // From the end, so each index still names the element it meant.
    for (let i = a.length - 1; i >= b.length; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = a.length; i < b.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: b[i] });
    return;
  }
  ops.push({ op: 'replace', path, value: b });
}
