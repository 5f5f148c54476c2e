// What decoding a review into typed structs checks in Go: the request's fields have their types, the object is a JSON
// object, and its TypeMeta and ObjectMeta fields have their types. Without it a defaulter reading
// `obj.metadata.labels` of `metadata: 5` would throw, and the review would be answered 500 "panic" instead of 400
// with what is wrong. As in Go, null reads as the field's zero value.
import { isObject } from '../json/index.js';

const STRING_FIELDS = ['name', 'namespace', 'generateName', 'uid', 'resourceVersion', 'selfLink'] as const;
const OWNER_STRING_FIELDS = ['apiVersion', 'kind', 'name', 'uid'] as const;

/**
 * How deep an object may nest. The defaulting handler copies the object (structuredClone) and diffs the copy, and
 * both recurse once per level: some thousands of levels ran out of stack, a 500 "panic". Go's JSON decoder stops at
 * 10,000; V8's stack does not reach that, and no Kubernetes object comes near this.
 */
export const MAX_OBJECT_DEPTH = 1_000;

/** Whether `v` nests lists and objects more than `limit` levels deep; recurses at most `limit` levels. */
function nestsDeeperThan(v: unknown, limit: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (limit === 0) return true;
  for (const child of Array.isArray(v) ? v : Object.values(v)) if (nestsDeeperThan(child, limit - 1)) return true;
  return false;
}
const MAP_FIELDS = ['labels', 'annotations'] as const;

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * Why `raw` (the review's `field`: request.object or request.oldObject) cannot be decoded as a Kubernetes object, in
 * the words of the field at fault; undefined when it can.
 */
export function objectDecodeProblem(raw: unknown, field: string): string | undefined {
  if (!isObject(raw)) return `${field} is ${typeOf(raw)}, not an object`;
  for (const key of ['apiVersion', 'kind'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string')
      return `${field}.${key} is ${typeOf(raw[key])}, not a string`;
  }
  const meta = raw.metadata;
  if (meta === undefined || meta === null) return undefined;
  if (!isObject(meta)) return `${field}.metadata is ${typeOf(meta)}, not an object`;
  for (const key of STRING_FIELDS) {
    if (meta[key] !== undefined && meta[key] !== null && typeof meta[key] !== 'string')
      return `${field}.metadata.${key} is ${typeOf(meta[key])}, not a string`;
  }
  if (meta.generation !== undefined && meta.generation !== null && !Number.isInteger(meta.generation)) {
    return `${field}.metadata.generation is ${typeOf(meta.generation)}, not an integer`;
  }
  for (const key of MAP_FIELDS) {
    const map = meta[key];
    if (map === undefined || map === null) continue;
    if (!isObject(map)) return `${field}.metadata.${key} is ${typeOf(map)}, not a map of strings`;
    for (const [k, v] of Object.entries(map)) {
      if (typeof v !== 'string') return `${field}.metadata.${key}[${JSON.stringify(k)}] is ${typeOf(v)}, not a string`;
    }
  }
  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string'))
      return `${field}.metadata.finalizers is not a list of strings`;
  }
  const owners = meta.ownerReferences;
  if (owners !== undefined && owners !== null) {
    if (!Array.isArray(owners) || owners.some((o) => !isObject(o)))
      return `${field}.metadata.ownerReferences is not a list of objects`;
    for (const [i, owner] of (owners as Array<Record<string, unknown>>).entries()) {
      const key = OWNER_STRING_FIELDS.find(
        (k) => owner[k] !== undefined && owner[k] !== null && typeof owner[k] !== 'string',
      );
      if (key) return `${field}.metadata.ownerReferences[${i}].${key} is ${typeOf(owner[key])}, not a string`;
    }
  }
  if (nestsDeeperThan(raw, MAX_OBJECT_DEPTH)) return `${field} nests more than ${MAX_OBJECT_DEPTH} levels deep`;
  return undefined;
}

const absent = (v: unknown): boolean => v === undefined || v === null;
const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The first of `keys` of `obj` that is set but not a string, as a problem of `field`. */
function notAString(obj: Record<string, unknown>, keys: readonly string[], field: string): string | undefined {
  const key = keys.find((k) => !absent(obj[k]) && typeof obj[k] !== 'string');
  return key === undefined ? undefined : `${field}.${key} is ${typeOf(obj[key])}, not a string`;
}

/** A GroupVersionKind or GroupVersionResource member of the request: an object of strings. */
function groupVersionProblem(v: unknown, field: string, last: 'kind' | 'resource'): string | undefined {
  if (absent(v)) return undefined;
  if (!isObject(v)) return `${field} is ${typeOf(v)}, not an object`;
  return notAString(v, ['group', 'version', last], field);
}

/**
 * Why an AdmissionReview's `request` (an object with a string uid) cannot be decoded as an AdmissionRequest, in the
 * words of the field at fault; undefined when it can. Its object and oldObject are {@link objectDecodeProblem}'s.
 * Without it a request whose kind.kind is an object with its own toString threw in the kind check, a 500 "panic".
 */
export function requestDecodeProblem(req: Record<string, unknown>): string | undefined {
  const strings = notAString(req, ['subResource', 'requestSubResource', 'name', 'namespace', 'operation'], 'request');
  if (strings) return strings;
  for (const [key, last] of [
    ['kind', 'kind'],
    ['requestKind', 'kind'],
    ['resource', 'resource'],
    ['requestResource', 'resource'],
  ] as const) {
    const bad = groupVersionProblem(req[key], `request.${key}`, last);
    if (bad) return bad;
  }
  if (!absent(req.dryRun) && typeof req.dryRun !== 'boolean')
    return `request.dryRun is ${typeOf(req.dryRun)}, not a boolean`;
  if (!absent(req.options) && !isObject(req.options)) return `request.options is ${typeOf(req.options)}, not an object`;
  const user = req.userInfo;
  if (absent(user)) return undefined;
  if (!isObject(user)) return `request.userInfo is ${typeOf(user)}, not an object`;
  const userStrings = notAString(user, ['username', 'uid'], 'request.userInfo');
  if (userStrings) return userStrings;
  if (!absent(user.groups) && !isStringList(user.groups)) return 'request.userInfo.groups is not a list of strings';
  const extra = user.extra;
  if (!absent(extra) && (!isObject(extra) || !Object.values(extra).every((v) => absent(v) || isStringList(v)))) {
    return 'request.userInfo.extra is not a map of lists of strings';
  }
  return undefined;
}

/**
 * Why a ConversionReview's `request` cannot be decoded as a ConversionRequest (uid and desiredAPIVersion strings,
 * objects a list); undefined when it can. The objects themselves are checked one by one, as each is converted.
 */
export function conversionRequestDecodeProblem(req: Record<string, unknown>): string | undefined {
  const strings = notAString(req, ['uid'], 'request');
  if (strings) return strings;
  if (typeof req.desiredAPIVersion !== 'string')
    return `request.desiredAPIVersion is ${typeOf(req.desiredAPIVersion)}, not a string`;
  if (!Array.isArray(req.objects)) return `request.objects is ${typeOf(req.objects)}, not a list`;
  return undefined;
}
