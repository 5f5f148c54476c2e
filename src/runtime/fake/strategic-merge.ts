// Strategic merge patch as the API server applies it (apimachinery's strategicpatch.StrategicMergeMapPatch, with
// MergeParallelList and IgnoreUnmatchedNulls): maps merge key by key, lists merge or replace as their field's
// patchStrategy says, keyed by its patchMergeKey, with the $patch, $retainKeys, $setElementOrder and
// $deleteFromPrimitiveList directives. The order of merged list items follows Go's algorithm step by step, since a
// reconciler's test may compare lists whole.
import { isObject, type JSONObject, type JSONValue } from '../json/index.js';

/** What a strategic merge needs to know about one field: its patch strategies, merge key, and its value's schema. */
export interface FieldPatchMeta {
  /** patchStrategy split on ',' ('merge', 'replace', 'retainKeys'); [''] when it has none. */
  strategies: string[];
  /** patchMergeKey; '' when it has none. */
  mergeKey: string;
  /** The schema of the field's value, or of its items when it is a list. */
  schema: PatchSchema;
}

/** The patch metadata of a struct type's fields (apimachinery's LookupPatchMeta). */
export interface PatchSchema {
  /** The metadata of the field named `key` (a JSON field name). */
  field(key: string): FieldPatchMeta;
}

/** How the API server answers a patch it cannot apply: 400, 422, or (for the errors it does not classify) 500. */
export type StrategicMergeFailure = 'BadRequest' | 'Invalid' | 'Internal';

/** A strategic merge patch that cannot apply, with the message the API server gives. */
export class StrategicMergeError extends Error {
  constructor(
    message: string,
    /** The kind of answer the server gives. */
    readonly failure: StrategicMergeFailure,
  ) {
    super(message);
    this.name = 'StrategicMergeError';
  }
}

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

// apimachinery's mergepatch errors the server answers 400 to (the others become 500s, with Go's text).
const badPrimitiveList = (): StrategicMergeError =>
  new StrategicMergeError('invalid patch format of primitive list', 'BadRequest');
const badRetainKeys = (): StrategicMergeError =>
  new StrategicMergeError('invalid patch format of retainKeys', 'BadRequest');
const badSetElementOrder = (): StrategicMergeError =>
  new StrategicMergeError('invalid patch format of setElementOrder list', 'BadRequest');
const internal = (message: string): StrategicMergeError => new StrategicMergeError(message, 'Internal');
const noMergeKey = (m: JSONObject, key: string): StrategicMergeError =>
  internal(`map: ${goString(m)} does not contain declared merge key: ${key}`);
const badPatchType = (t: JSONValue | undefined, m: JSONObject): StrategicMergeError =>
  internal(`unknown patch type: ${goString(t)} in map: ${goString(m)}`);
const badArgType = (expected: GoKind, actual: JSONValue | undefined): StrategicMergeError =>
  internal(`expected a ${GO_TYPE_NAMES[expected]}, but received a ${GO_TYPE_NAMES[goKind(actual)]}`);

type GoKind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

const GO_TYPE_NAMES: Record<GoKind, string> = {
  map: 'map[string]interface {}',
  slice: '[]interface {}',
  string: 'string',
  number: 'int64',
  bool: 'bool',
  nil: '<nil>',
};

/** The Go type a decoded JSON value has, as reflect.TypeOf compares them. */
function goKind(v: JSONValue | undefined): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  return 'bool';
}

/** A value as Go's %v prints it, for error messages: map[a:1 b:[x y]]. */
function goString(v: JSONValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goString).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goString(v[k])}`)
      .join(' ')}]`;
  return String(v);
}

/**
 * `patch` applied to `original` as the API server applies a strategic merge patch to a built-in kind; `schema` is the
 * kind's. Neither argument is changed. Throws a StrategicMergeError for a patch the server refuses.
 */
export function strategicMerge(original: JSONObject, patch: JSONObject, schema: PatchSchema): JSONObject {
  return mergeMap(structuredClone(original), structuredClone(patch), schema);
}

function extractRetainKeysPatchStrategy(strategies: string[]): string {
  if (strategies.length === 1) return strategies[0] === 'retainKeys' ? '' : strategies[0]!;
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return strategies[1]!;
    if (strategies[1] === 'retainKeys') return strategies[0]!;
  }
  throw internal(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

// "$setElementOrder/containers" → "containers".
function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix)
    throw prefix === DELETE_FROM_PRIMITIVE_LIST ? badPrimitiveList() : badSetElementOrder();
  return key.slice(slash + 1);
}

function mergeMap(original: JSONObject, patch: JSONObject, schema: PatchSchema): JSONObject {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      // The patch replaces the map as it is: directives and nulls below are not processed.
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema);
  for (const [patchKey, patchV] of Object.entries(patch)) {
    // $deleteFromPrimitiveList/<list>: the values to remove from <list>.
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const key = isDeleteList ? extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST) : patchKey;
    if (patchV === null) {
      delete original[key];
      continue;
    }
    const originalV = original[key];
    if (originalV === undefined || goKind(originalV) !== goKind(patchV)) {
      // A new value (or one of another type) is taken from the patch, without its nulls and directives.
      if (!isDeleteList) setWithoutDirectives(original, key, discardNulls(patchV));
      continue;
    }
    const meta = schema.field(key);
    const strategy = extractRetainKeysPatchStrategy(meta.strategies);
    if (isObject(originalV))
      original[key] = strategy === 'replace' ? patchV : mergeMap(originalV, patchV as JSONObject, meta.schema);
    else if (Array.isArray(originalV))
      original[key] = mergeSliceHandler(originalV, patchV as JSONValue[], meta, strategy, isDeleteList);
    else setWithoutDirectives(original, key, patchV);
  }
  return original;
}

function setWithoutDirectives(target: JSONObject, key: string, value: JSONValue): void {
  const [v, keep] = removeDirectives(value);
  if (keep) target[key] = v;
  else delete target[key];
}

// A value without the maps that carry a $patch directive (a directive in a new value has nothing to act on).
function removeDirectives(v: JSONValue): [JSONValue, boolean] {
  if (Array.isArray(v)) {
    const out: JSONValue[] = [];
    for (const item of v) {
      const [x, keep] = removeDirectives(item);
      if (keep) out.push(x);
    }
    return [out, true];
  }
  if (isObject(v)) {
    if (DIRECTIVE in v) return [null, false];
    for (const [k, x] of Object.entries(v)) {
      const [y, keep] = removeDirectives(x);
      if (keep) v[k] = y;
      else delete v[k];
    }
  }
  return [v, true];
}

function discardNulls(v: JSONValue): JSONValue {
  if (Array.isArray(v)) v.forEach(discardNulls);
  else if (isObject(v))
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else discardNulls(x);
    }
  return v;
}

// $retainKeys: [a, b] clears every other key of the original; the patch may set only those keys.
function applyRetainKeysDirective(original: JSONObject, patch: JSONObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw badRetainKeys();
  const keep = new Set<JSONValue>(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw badRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

// $setElementOrder/<list>: merges <list> and puts its items in the given order (server-only items where they were).
function mergePatchIntoOriginal(original: JSONObject, patch: JSONObject, schema: PatchSchema): void {
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('slice', order);
    const listKey = extractKey(key, SET_ELEMENT_ORDER);
    const originalList = original[listKey];
    const patchList = patch[listKey];
    if (originalList !== undefined && !Array.isArray(originalList)) throw badArgType('slice', originalList);
    if (patchList !== undefined && !Array.isArray(patchList)) throw badArgType('slice', patchList);
    const meta = schema.field(listKey);
    const strategy = extractRetainKeysPatchStrategy(meta.strategies);
    validatePatchWithSetOrderList(patchList ?? [], order, meta.mergeKey);
    let merged: JSONValue[];
    if (originalList !== undefined && patchList === undefined) merged = originalList;
    else if (originalList === undefined && patchList !== undefined)
      merged = removeDirectives(patchList)[0] as JSONValue[];
    else if (originalList !== undefined && patchList !== undefined)
      merged = mergeSliceHandler(structuredClone(originalList), patchList, meta, strategy, false);
    else continue;
    const [patchItems, serverOnly] = meta.mergeKey
      ? partitionMapsByPresentInList(merged, order, meta.mergeKey)
      : partitionPrimitivesByPresentInList(merged, order);
    const kind = sliceElementType(originalList ?? [], patchList ?? []);
    original[listKey] = normalizeElementOrder(patchItems, serverOnly, order, originalList ?? [], meta.mergeKey, kind);
    delete patch[listKey];
  }
}

// The patch list's items (but deletions) must appear in the $setElementOrder list, in its order.
function validatePatchWithSetOrderList(patchList: JSONValue[], order: JSONValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < nonDelete.length && o < order.length) {
    const item = nonDelete[p]!;
    if (isObject(item) && DIRECTIVE in item) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[o]!, mergeKey)) p++;
    o++;
  }
  if (p < nonDelete.length && o >= order.length)
    throw internal(
      `The order in patch list:\n${goString(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goString(order)}\n`,
    );
}

function mergeKeyValueEqual(left: JSONValue, right: JSONValue, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isObject(left)) throw badArgType('map', left);
  if (!isObject(right)) throw badArgType('map', right);
  if (!(mergeKey in left)) throw noMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function mergeSliceHandler(
  original: JSONValue[],
  patch: JSONValue[],
  meta: FieldPatchMeta,
  strategy: string,
  isDeleteList: boolean,
): JSONValue[] {
  // A list without the merge strategy is replaced by the patch's, as it is.
  if (strategy !== 'merge' && !isDeleteList) return patch;
  return mergeSlice(original, patch, meta, isDeleteList);
}

function mergeSlice(
  original: JSONValue[],
  patch: JSONValue[],
  meta: FieldPatchMeta,
  isDeleteList: boolean,
): JSONValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  const { mergeKey } = meta;
  let merged: JSONValue[];
  if (kind !== 'map') {
    if (isDeleteList) {
      const gone = new Set(patch);
      return original.filter((v) => !gone.has(v));
    }
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw internal('cannot merge lists without merge key for struct');
    [original, patch] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements([...original], patch, mergeKey, meta.schema);
  }
  const [patchItems, serverOnly] = mergeKey
    ? partitionMapsByPresentInList(merged, patch, mergeKey)
    : partitionPrimitivesByPresentInList(merged, patch);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
}

// The Go type all items of the lists share; lists of lists, mixed lists and empty lists are errors.
function sliceElementType(...lists: JSONValue[][]): GoKind {
  let kind: GoKind | undefined;
  for (const list of lists)
    for (const v of list) {
      const k = goKind(v);
      if (kind === undefined) {
        if (k === 'slice') throw new StrategicMergeError('lists of lists are not supported', 'Invalid');
        kind = k;
      } else if (k !== kind) throw internal(`list element types are not identical: [${lists.map(goString).join(' ')}]`);
    }
  if (kind === undefined) throw internal('no elements in any of the given slices');
  return kind;
}

// Go's in-place deduplication: a duplicate is overwritten by the last item, so the order changes as Go's does.
function deduplicateScalars(s: JSONValue[]): JSONValue[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++)
    for (let j = i + 1; j <= length; j++)
      if (s[i] === s[j]) {
        s[j] = s[length]!;
        s.length = length;
        length--;
        j--;
      }
  return s;
}

// $patch: delete items remove the original's items with their key; $patch: replace makes the patch the whole list.
function mergeSliceWithSpecialElements(
  original: JSONValue[],
  patch: JSONValue[],
  mergeKey: string,
): [JSONValue[], JSONValue[]] {
  const plain: JSONValue[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JSONObject;
    if (!(DIRECTIVE in item)) {
      plain.push(v);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === 'delete') {
      if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
      original = original.filter((o) => (o as JSONObject)[mergeKey] !== item[mergeKey]);
    } else if (directive === 'replace') replace = true;
    else if (directive === 'merge') throw internal('merging lists cannot yet be specified in the patch');
    else throw badPatchType(directive, item);
  }
  return replace ? [plain, []] : [original, plain];
}

// Items with a key the original has merge into its item; the others are appended.
function mergeSliceWithoutSpecialElements(
  original: JSONValue[],
  patch: JSONValue[],
  mergeKey: string,
  schema: PatchSchema,
): JSONValue[] {
  for (const v of patch) {
    const item = v as JSONObject;
    if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    const i = findMapInSlice(original, mergeKey, item[mergeKey]!);
    if (i >= 0) original[i] = mergeMap(original[i] as JSONObject, item, schema);
    else original.push(v);
  }
  return original;
}

function findMapInSlice(list: JSONValue[], key: string, value: JSONValue): number {
  for (const [i, v] of list.entries()) {
    if (!isObject(v)) throw internal(`value for key ${i} is not a map`);
    if (key in v && v[key] === value) return i;
  }
  return -1;
}

function extractToDeleteItems(list: JSONValue[]): [JSONValue[], JSONValue[]] {
  const keep: JSONValue[] = [];
  const gone: JSONValue[] = [];
  for (const v of list) {
    if (!isObject(v)) throw badArgType('map', v);
    (v[DIRECTIVE] === 'delete' ? gone : keep).push(v);
  }
  return [keep, gone];
}

function partitionPrimitivesByPresentInList(list: JSONValue[], by: JSONValue[]): [JSONValue[], JSONValue[]] {
  const present = new Set(by);
  return [list.filter((v) => present.has(v)), list.filter((v) => !present.has(v))];
}

function partitionMapsByPresentInList(
  list: JSONValue[],
  by: JSONValue[],
  mergeKey: string,
): [JSONValue[], JSONValue[]] {
  const inPatch: JSONValue[] = [];
  const serverOnly: JSONValue[] = [];
  for (const v of list) {
    if (!isObject(v)) throw badArgType('map', v);
    if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
    (findMapInSlice(by, mergeKey, v[mergeKey]!) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

// The index of `v` in `list`, by merge key value for maps.
function indexIn(list: JSONValue[], v: JSONValue, mergeKey: string, kind: GoKind): number {
  const value = (x: JSONValue): JSONValue | undefined => (kind === 'map' ? (isObject(x) ? x[mergeKey] : undefined) : x);
  const want = value(v);
  return list.findIndex((x) => value(x) === want);
}

// The patch's items in the patch's order, the server's in the original's, interleaved where the original orders them.
function normalizeElementOrder(
  patch: JSONValue[],
  serverOnly: JSONValue[],
  patchOrder: JSONValue[],
  serverOrder: JSONValue[],
  mergeKey: string,
  kind: GoKind,
): JSONValue[] {
  const right = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: JSONValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = indexIn(serverOrder, left[i]!, mergeKey, kind);
      const ri = indexIn(serverOrder, right[j]!, mergeKey, kind);
      // A server item goes first only when the original had it before the patch item.
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}

function normalizeSliceOrder(toSort: JSONValue[], order: JSONValue[], mergeKey: string, kind: GoKind): JSONValue[] {
  let gone: JSONValue[] = [];
  if (kind === 'map') {
    for (const v of [...toSort, ...order]) {
      if (!isObject(v)) throw badArgType('map', v);
      if (!(mergeKey in v)) throw noMergeKey(v, mergeKey);
    }
    [toSort, gone] = extractToDeleteItems(toSort);
  }
  // Go's sort.SliceStable with its comparator, which calls an item not in `order` smaller: an insertion sort
  // (what Go runs for lists of up to 20 items) gives the same order.
  const s = [...toSort];
  const less = (a: JSONValue, b: JSONValue): boolean => {
    const ia = indexIn(order, a, mergeKey, kind);
    const ib = indexIn(order, b, mergeKey, kind);
    return ia < 0 || ib < 0 || ia < ib;
  };
  for (let i = 1; i < s.length; i++)
    for (let j = i; j > 0 && less(s[j]!, s[j - 1]!); j--) [s[j], s[j - 1]] = [s[j - 1]!, s[j]!];
  return [...s, ...gone];
}
