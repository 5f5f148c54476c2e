import type { KubeObject } from '../rest/types.js';
import type { TransformFunc } from './delta_fifo.js';

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

/** Applies transforms in order. */
export function chainTransforms<T extends KubeObject>(...fns: TransformFunc<T>[]): TransformFunc<T> {
  return (obj) => fns.reduce((o, f) => f(o), obj);
}

export interface StringInternerOptions {
  /** Strings longer than this are left alone (they are rarely repeated). Default 64. */
  maxLength?: number;
  /** The table is emptied when it grows past this many strings, bounding its memory. Default 50,000. */
  maxEntries?: number;
}

// Values under these keys are unique per object: interning them would only fill the table.
const UNIQUE_KEYS = new Set(['uid', 'resourceVersion']);

/**
 * A transform that makes equal short strings across cached objects share one copy (label values, namespaces,
 * image names, timestamps, enum-like fields). JSON.parse allocates every value anew; sharing cuts heap by a tenth
 * or more for typical objects, for a few microseconds per object.
 */
export function newStringInterner<T extends KubeObject>(opts: StringInternerOptions = {}): TransformFunc<T> {
  const maxLength = opts.maxLength ?? 64;
  const maxEntries = opts.maxEntries ?? 50_000;
  const table = new Map<string, string>();
  const intern = (s: string): string => {
    if (s.length > maxLength) return s;
    const c = table.get(s);
    if (c !== undefined) return c;
    if (table.size >= maxEntries) table.clear();
    table.set(s, s);
    return s;
  };
  const visit = (o: Record<string, unknown> | unknown[]): void => {
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
        if (!UNIQUE_KEYS.has(k)) o[k] = intern(v);
      } else if (v !== null && typeof v === 'object') {
        visit(v as Record<string, unknown>);
      }
    }
  };
  return (obj) => {
    visit(obj as unknown as Record<string, unknown>);
    return obj;
  };
}

/** stripManagedFields, then string interning: the smallest cache for full objects. */
export function compactObjects<T extends KubeObject>(opts: StringInternerOptions = {}): TransformFunc<T> {
  return chainTransforms<T>(stripManagedFields, newStringInterner<T>(opts));
}
