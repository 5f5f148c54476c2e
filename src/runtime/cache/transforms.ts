import type { KubeObject } from '../rest/types.js';
import type { TransformFunc } from './delta-fifo.js';

/**
 * Drops metadata.managedFields before caching (controller-runtime's TransformStripManagedFields): they are often a
 * third of an object's JSON and, as many tiny objects, half of its heap; controllers rarely read them.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (!meta || meta.managedFields === undefined) return obj;
  // A rebuilt object, not `delete`: deleting a property other than the last one (custom resources' metadata keys
  // arrive sorted, managedFields mid-way) turns the object into a hash table several hundred bytes larger.
  const { managedFields: _dropped, ...rest } = meta;
  obj.metadata = rest;
  return obj;
}

// Transforms whose first step drops metadata.managedFields: for them a list's decoder may leave those bytes out before
// parsing (ListerWatcherListOptions.omitManagedFields), which saves a third of a typical item's parse.
const droppingManagedFields = new WeakSet<object>([stripManagedFields]);

/** Whether `fn` drops metadata.managedFields before anything else reads the object (stripManagedFields, compactObjects). */
export function dropsManagedFields(fn: object | undefined): boolean {
  return fn !== undefined && droppingManagedFields.has(fn);
}

/** Applies transforms in order. */
export function chainTransforms<T extends KubeObject>(...fns: TransformFunc<T>[]): TransformFunc<T> {
  const chained: TransformFunc<T> = (obj) => fns.reduce((o, f) => f(o), obj);
  if (fns[0] !== undefined && droppingManagedFields.has(fns[0])) droppingManagedFields.add(chained);
  return chained;
}

/** Options of {@link newStringInterner}: which strings are shared, and how big the table may grow. */
export interface StringInternerOptions {
  /** Strings longer than this are left alone (they are rarely repeated). Default 64. */
  maxLength?: number;
  /**
   * The table is emptied when it grows past this many strings, bounding its memory (unique strings such as
   * names accumulate in it as objects come and go). Default 10,000.
   */
  maxEntries?: number;
}

// Values under these keys are unique per object: interning them would only fill the table. metadata.name is too,
// but `name` elsewhere (ports, env, containers) repeats, so only the object's own is skipped.
const UNIQUE_KEYS = new Set(['uid', 'resourceVersion']);

/**
 * A transform that makes equal short strings across cached objects share one copy (label values, namespaces,
 * image names, timestamps, enum-like fields). JSON.parse allocates every value anew; sharing cuts heap by a tenth
 * or more for typical objects, for a few microseconds per object.
 */
export function newStringInterner<T extends KubeObject>(opts: StringInternerOptions = {}): TransformFunc<T> {
  const maxLength = opts.maxLength ?? 64;
  const maxEntries = opts.maxEntries ?? 10_000;
  const table = new Map<string, string>();
  const intern = (s: string): string => {
    if (s.length > maxLength) return s;
    const c = table.get(s);
    if (c !== undefined) return c;
    if (table.size >= maxEntries) table.clear();
    table.set(s, s);
    return s;
  };
  let ownMeta: unknown;
  const visit = (o: Record<string, unknown> | unknown[]): void => {
    // Frozen trees are shared already (newManagedFieldsSharer) and cannot take the interned copies.
    if (Object.isFrozen(o)) return;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const v = o[i];
        if (typeof v === 'string') o[i] = intern(v);
        else if (v !== null && typeof v === 'object') visit(v as Record<string, unknown>);
      }
      return;
    }
    for (const k in o) {
      const v = o[k];
      if (typeof v === 'string') {
        if (!UNIQUE_KEYS.has(k) && !(k === 'name' && o === ownMeta)) o[k] = intern(v);
      } else if (v !== null && typeof v === 'object') {
        visit(v as Record<string, unknown>);
      }
    }
  };
  return (obj) => {
    ownMeta = obj.metadata;
    visit(obj as unknown as Record<string, unknown>);
    return obj;
  };
}

/** Options of {@link newManagedFieldsSharer}: how big its table may grow. */
export interface ManagedFieldsSharerOptions {
  /** The table of distinct field sets is emptied when it grows past this many. Default 4,096. */
  maxEntries?: number;
}

/**
 * A transform that makes equal metadata.managedFields[].fieldsV1 trees share one deep-frozen copy. Those trees are
 * made of many empty objects (`"f:name": {}`), so as parsed they take about as much heap as the rest of the object,
 * yet objects written by the same managers have the same field sets. Lossless: the object reads and serializes as
 * served; a cached object must not be mutated anyway, and writing into a shared tree throws instead of changing
 * other objects.
 */
export function newManagedFieldsSharer<T extends KubeObject>(opts: ManagedFieldsSharerOptions = {}): TransformFunc<T> {
  const maxEntries = opts.maxEntries ?? 4096;
  const trees = new Map<string, unknown>();
  return (obj) => {
    const entries = obj.metadata?.managedFields;
    if (!Array.isArray(entries)) return obj;
    for (const e of entries) {
      const tree = e.fieldsV1;
      if (tree === null || typeof tree !== 'object' || Object.isFrozen(tree)) continue;
      const key = JSON.stringify(tree);
      let shared = trees.get(key);
      if (shared === undefined) {
        if (trees.size >= maxEntries) trees.clear();
        shared = deepFreeze(tree);
        trees.set(key, shared);
      }
      e.fieldsV1 = shared as typeof tree;
    }
    return obj;
  };
}

function deepFreeze<V>(v: V): V {
  if (v !== null && typeof v === 'object') {
    for (const k in v) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/**
 * Options of {@link compactObjects}: whether managed fields are dropped or shared, and the string interner's limits.
 */
export interface CompactObjectsOptions extends StringInternerOptions {
  /**
   * Drop metadata.managedFields (default true). When false they are kept, their field sets shared between
   * objects (newManagedFieldsSharer), so the cached objects stay exactly as served.
   */
  stripManagedFields?: boolean;
}

/**
 * The smallest cache: stripManagedFields (or, with stripManagedFields false, shared field sets), then string
 * interning. Each call makes its own tables; an informer factory shares one transform between its informers.
 */
export function compactObjects<T extends KubeObject>(opts: CompactObjectsOptions = {}): TransformFunc<T> {
  const first = (opts.stripManagedFields ?? true) ? stripManagedFields<T> : newManagedFieldsSharer<T>();
  return chainTransforms<T>(first, newStringInterner<T>(opts));
}
