import { KustomizeError } from './errors.js';
import { isObject, type JSONObject, type JSONValue } from './values.js';

// Strict readers for kustomization fields: kustomize unmarshals strictly, so unknown keys and wrong types are errors.

/** The candidate closest to a misspelt field name, if close enough to suggest ("did you mean"). */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return bestDist <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** A mapping with only the allowed keys; an unknown key is an error that names the closest allowed one. */
export function mapping(v: JSONValue | undefined, where: string, allowed: readonly string[]): JSONObject {
  if (!isObject(v)) throw new KustomizeError(`${where} must be a mapping`);
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) {
      const hint = closestName(key, allowed);
      throw new KustomizeError(
        `${where} has unknown field "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}; known fields: ${allowed.join(', ')}`,
      );
    }
  }
  return v;
}

/** A string field; '' when absent or null. */
export function optString(v: JSONValue | undefined, where: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new KustomizeError(`${where} must be a string, not ${describe(v)}`);
  return v;
}

/** A boolean field; false when absent or null. */
export function optBool(v: JSONValue | undefined, where: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new KustomizeError(`${where} must be true or false, not ${describe(v)}`);
  return v;
}

/** An integer field; 0 when absent or null. */
export function optInt(v: JSONValue | undefined, where: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new KustomizeError(`${where} must be an integer, not ${describe(v)}`);
  return v;
}

/** A list field; [] when absent or null. */
export function optList(v: JSONValue | undefined, where: string): JSONValue[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new KustomizeError(`${where} must be a list, not ${describe(v)}`);
  return v;
}

/** A list of strings; [] when absent or null. */
export function stringList(v: JSONValue | undefined, where: string): string[] {
  return optList(v, where).map((x, i) => optString(x, `${where}[${i}]`));
}

/** A mapping of strings to strings (labels, annotations); {} when absent or null. */
export function stringMap(v: JSONValue | undefined, where: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new KustomizeError(`${where} must be a mapping of strings`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = optString(val, `${where}.${k}`);
  return out;
}

function describe(v: JSONValue): string {
  if (Array.isArray(v)) return 'a list';
  if (isObject(v)) return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}
