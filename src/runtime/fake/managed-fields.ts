// Field ownership for the fake client (the API server's managedFields, structured-merge-diff's rules, simplified): who
// owns which leaf field, what an apply removes, and which fields conflict. Lists are atomic (owned and replaced whole,
// as a CRD's lists are by default); the server merges keyed lists of built-in kinds, finalizers and ownerReferences
// item by item.
import { ApiError } from '../rest/errors.js';
import { deepEqual, isObject, type JSONObject, type JSONValue } from '../json/index.js';

/** One metav1.ManagedFieldsEntry, as the server writes it. */
interface Entry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JSONObject;
  subresource?: string;
}

type Path = string[];

/** What a write's ownership is computed from. */
export interface OwnershipContext {
  /** The writing manager; a write without one takes fields from others but is not recorded. */
  manager: string | undefined;
  /** 'status' for the status subresource, '' for the object. */
  subresource: string;
  /** The resource's apiVersion, recorded in the entry. */
  apiVersion: string;
  /** The entry's time (RFC 3339). */
  now: string;
  /** Whether status is a subresource: then the object's writes own no status field and status writes own only those. */
  statusSubresource: boolean;
}

// metadata fields that are owned; the rest (name, uid, resourceVersion, ...) belong to the server.
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

const key = (p: Path): string => JSON.stringify(p);

/**
 * The fields of `obj` a write to ctx.subresource may own: the leaves, and with `containers` the objects holding them
 * too (an update owns the objects it adds, an apply only the leaves it sets).
 */
function fields(obj: JSONObject, ctx: OwnershipContext, containers = false): Map<string, Path> {
  const out = new Map<string, Path>();
  const walk = (v: JSONValue, p: Path): void => {
    if (isObject(v) && Object.keys(v).length > 0) {
      if (containers) out.set(key(p), p);
      for (const [k, child] of Object.entries(v)) walk(child, [...p, k]);
    } else out.set(key(p), p);
  };
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (ctx.statusSubresource && (k === 'status') !== (ctx.subresource === 'status')) continue;
    if (k === 'metadata') {
      if (ctx.subresource === 'status' || !isObject(v)) continue;
      for (const [mk, mv] of Object.entries(v)) if (OWNED_METADATA.has(mk)) walk(mv, ['metadata', mk]);
    } else walk(v, [k]);
  }
  return out;
}

function valueAt(obj: JSONValue | undefined, p: Path): JSONValue | undefined {
  let v = obj;
  for (const k of p) v = isObject(v) ? v[k] : undefined;
  return v;
}

function removeAt(obj: JSONObject, p: Path): void {
  const parent = valueAt(obj, p.slice(0, -1));
  if (isObject(parent)) delete parent[p.at(-1)!];
}

// A set of paths as fieldsV1: a path that is in the set and has children in it too is marked '.'.
function toFieldsV1(paths: Iterable<Path>): JSONObject {
  const root: JSONObject = {};
  const all = [...paths];
  for (const p of all) {
    let node = root;
    for (const k of p) node = (node[`f:${k}`] ??= {}) as JSONObject;
  }
  for (const p of all) {
    const node = valueAt(
      root,
      p.map((k) => `f:${k}`),
    );
    if (isObject(node) && Object.keys(node).length > 0) node['.'] = {};
  }
  return root;
}

/** The paths of a fieldsV1 set (f: fields only: the fake writes no others). */
function fromFieldsV1(fs: JSONObject, prefix: Path = []): Path[] {
  const children = Object.entries(fs).filter(([k]) => k.startsWith('f:'));
  const self = prefix.length > 0 && (children.length === 0 || '.' in fs) ? [prefix] : [];
  return [...self, ...children.flatMap(([k, v]) => fromFieldsV1(isObject(v) ? v : {}, [...prefix, k.slice(2)]))];
}

function entriesOf(obj: JSONObject | undefined): Entry[] {
  const meta = obj?.metadata;
  const mf = isObject(meta) && Array.isArray(meta.managedFields) ? meta.managedFields : [];
  return mf as unknown as Entry[];
}

function pathsOf(e: Entry): Map<string, Path> {
  return new Map(fromFieldsV1(e.fieldsV1).map((p) => [key(p), p]));
}

/** The manager as the server prints it in a conflict: `"name"`, or `"name" using <apiVersion>` for an update. */
function printManager(e: Entry): string {
  return e.operation === 'Update' ? `"${e.manager}" using ${e.apiVersion}` : `"${e.manager}"`;
}

/** The server's 409 for apply conflicts (apimachinery's internal.NewConflictError): one cause per conflicting field. */
function conflictError(conflicts: { manager: string; path: string }[]): ApiError {
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${conflicts[0]!.manager}: ${conflicts[0]!.path}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
    const lines = [...byManager.keys()]
      .sort()
      .flatMap((m) => [`conflicts with ${m}:`, ...byManager.get(m)!.map((p) => `- ${p}`)]);
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Conflict',
    code: 409,
    details: {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${c.manager}`,
        field: c.path,
      })),
    },
  });
}

function withEntry(entries: Entry[], e: Entry, paths: Map<string, Path>): Entry[] {
  const same = (x: Entry): boolean =>
    x.manager === e.manager && x.operation === e.operation && (x.subresource ?? '') === (e.subresource ?? '');
  const old = entries.find(same);
  const rest = entries.filter((x) => !same(x));
  if (paths.size === 0) return rest;
  const fieldsV1 = toFieldsV1([...paths.values()].sort((a, b) => key(a).localeCompare(key(b))));
  // An entry whose fields did not change keeps its time, so that a write that changes nothing stays a no-op.
  const next = old && deepEqual(old.fieldsV1, fieldsV1) ? old : { ...e, fieldsV1 };
  return [...rest, next];
}

function entry(ctx: OwnershipContext, operation: Entry['operation']): Entry {
  return {
    manager: ctx.manager ?? '',
    operation,
    apiVersion: ctx.apiVersion,
    time: ctx.now,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
    ...(ctx.subresource ? { subresource: ctx.subresource } : {}),
  };
}

/**
 * Server-side apply of `config` onto `current` (undefined when creating) by ctx.manager: fails with the server's 409
 * when a field another manager owns would change, unless `force` takes it; removes the fields this manager applied
 * before and no longer applies (when nobody else owns them); merges the rest in. Returns the new object with its
 * managedFields.
 */
export function applyWithOwnership(
  current: JSONObject | undefined,
  config: JSONObject,
  force: boolean,
  ctx: OwnershipContext,
): JSONObject {
  const applied = fields(config, ctx);
  const entries = entriesOf(current);
  const mine = entry(ctx, 'Apply');
  const isMine = (e: Entry): boolean =>
    e.manager === mine.manager && e.operation === 'Apply' && (e.subresource ?? '') === ctx.subresource;
  const conflicts: { manager: string; path: string; entry: Entry; key: string }[] = [];
  for (const e of entries) {
    if (isMine(e)) continue;
    for (const [k, p] of pathsOf(e)) {
      if (applied.has(k) && !deepEqual(valueAt(current, p), valueAt(config, p)))
        conflicts.push({ manager: printManager(e), path: `.${p.join('.')}`, entry: e, key: k });
    }
  }
  // By manager, then path: the message's order. The server's causes follow Go's map order across managers.
  conflicts.sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : a.path < b.path ? -1 : 1));
  if (conflicts.length > 0 && !force) throw conflictError(conflicts);
  let next = structuredClone(current ?? {});
  let others = entries.filter((e) => !isMine(e));
  // Forced: the fields taken leave their former managers.
  for (const c of conflicts) {
    others = others.map((e) => {
      if (e !== c.entry) return e;
      const kept = pathsOf(e);
      kept.delete(c.key);
      return { ...e, fieldsV1: toFieldsV1(kept.values()) };
    });
  }
  others = others.filter((e) => fromFieldsV1(e.fieldsV1).length > 0);
  const ownedByOthers = new Set(others.flatMap((e) => [...pathsOf(e).keys()]));
  const previous = entries.find(isMine);
  for (const [k, p] of previous ? pathsOf(previous) : []) {
    if (!applied.has(k) && !ownedByOthers.has(k)) removeAt(next, p);
  }
  next = merge(next, config) as JSONObject;
  setManagedFields(next, withEntry(others, mine, applied));
  return next;
}

/**
 * The ownership after a create, update or non-apply patch from `before` to `after` (structured-merge-diff's update):
 * the leaves it changed and the fields it added leave their other owners and join ctx.manager's Update entry; removed
 * fields leave their owners. Sets it on `after`.
 */
export function recordUpdate(before: JSONObject | undefined, after: JSONObject, ctx: OwnershipContext): void {
  const now = fields(after, ctx, true);
  const was = before ? fields(before, ctx, true) : new Map<string, Path>();
  const leavesNow = fields(after, ctx);
  const taken = new Set(
    [...now]
      .filter(([k, p]) => !was.has(k) || (leavesNow.has(k) && !deepEqual(valueAt(before, p), valueAt(after, p))))
      .map(([k]) => k),
  );
  const removed = new Set([...was.keys()].filter((k) => !now.has(k)));
  const isMine = (e: Entry): boolean =>
    ctx.manager !== undefined &&
    e.manager === ctx.manager &&
    e.operation === 'Update' &&
    (e.subresource ?? '') === ctx.subresource;
  const entries: Entry[] = [];
  let minePaths = new Map<string, Path>();
  for (const e of entriesOf(before)) {
    const paths = pathsOf(e);
    const size = paths.size;
    for (const k of [...paths.keys()]) if (removed.has(k) || (taken.has(k) && !isMine(e))) paths.delete(k);
    if (isMine(e)) minePaths = paths;
    else if (paths.size > 0) entries.push(paths.size === size ? e : { ...e, fieldsV1: toFieldsV1(paths.values()) });
  }
  if (ctx.manager === undefined) return setManagedFields(after, entries);
  for (const k of taken) minePaths.set(k, now.get(k)!);
  const mine = entriesOf(before).find(isMine);
  setManagedFields(after, withEntry(mine ? [...entries, mine] : entries, entry(ctx, 'Update'), minePaths));
}

// The server's order (fieldmanager's sortEncodedManagedFields): operation, time, manager, apiVersion, subresource.
function order(a: Entry, b: Entry): number {
  const by = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return (
    by(a.operation, b.operation) ||
    by(a.time, b.time) ||
    by(a.manager, b.manager) ||
    by(a.apiVersion, b.apiVersion) ||
    by(a.subresource ?? '', b.subresource ?? '')
  );
}

function setManagedFields(obj: JSONObject, entries: Entry[]): void {
  const meta: JSONObject = isObject(obj.metadata) ? obj.metadata : (obj.metadata = {});
  if (entries.length > 0) meta.managedFields = [...entries].sort(order) as unknown as JSONValue[];
  else delete meta.managedFields;
}

// Objects merge key by key; lists and scalars are replaced (lists are atomic here).
function merge(target: JSONValue, applied: JSONValue): JSONValue {
  if (!isObject(applied) || !isObject(target)) return applied;
  const out: JSONObject = { ...target };
  for (const [k, v] of Object.entries(applied)) out[k] = k in out ? merge(out[k] as JSONValue, v) : v;
  return out;
}
