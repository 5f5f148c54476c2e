import type { KubeObject } from '../rest/types.js';
import { metaNamespaceKeyFunc, type DeletedFinalStateUnknown, type KeyFunc } from './keys.js';
import { ConfigurationError } from '../errors.js';

/** Maps an object to the values it is indexed under. */
export type IndexFunc<T> = (obj: T) => string[];
/** Named index functions (client-go's cache.Indexers). */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** client-go's cache.Store: objects by key. */
export interface Store<T> {
  /** Inserts the object under its key, or replaces what is there. */
  add(obj: T): void;
  /** Replaces the object stored under its key. */
  update(obj: T): void;
  /** Removes the object (or the tombstone's object) under its key. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** Every stored object. */
  list(): T[];
  /** Every stored key. */
  listKeys(): string[];
  /** How many objects are stored. */
  readonly size: number;
  /** The stored object with the same key as obj. */
  get(obj: T): T | undefined;
  /** The object stored under key ('namespace/name' or 'name'). */
  getByKey(key: string): T | undefined;
  /** Replaces the whole content with items. */
  replace(items: T[], resourceVersion: string): void;
  /** Re-delivers the stored objects to whoever consumes the store (a no-op for plain stores). */
  resync(): void;
}

/** A Store with secondary indexes. */
export interface Indexer<T> extends Store<T> {
  /** Objects sharing any index value with obj. */
  index(indexName: string, obj: T): T[];
  /** Keys of the objects the named index maps to this value. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value the named index holds. */
  listIndexFuncValues(indexName: string): string[];
  /** The objects the named index maps to this value (client-go's ByIndex). */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The index functions, by name. */
  getIndexers(): Indexers<T>;
  /** Adds indexes; existing objects are indexed at once. */
  addIndexers(newIndexers: Indexers<T>): void;
}

/** Read access by key, what DeltaFIFO needs of the informer's indexer. */
export interface KeyListerGetter<T> {
  /** Every key in the store. */
  listKeys(): string[];
  /** The object stored under key. */
  getByKey(key: string): T | undefined;
}

/** Name of the index by namespace every informer has (client-go's cache.NamespaceIndex). */
export const NAMESPACE_INDEX = 'namespace';

/** Indexes objects by namespace ('' for cluster-scoped ones). */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

function unknownIndex(name: string): Error {
  return new ConfigurationError(`index with name ${name} does not exist`);
}

/**
 * client-go's threadSafeMap: items by key plus, per index, value → set of keys. JavaScript is single-threaded, so
 * "thread safe" only means every mutation keeps the indices consistent.
 */
export class ThreadSafeStore<T> {
  private items = new Map<string, T>();
  private readonly indexers: Indexers<T> = {};
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Indexers<T> = {}) {
    this.addIndexers(indexers);
  }

  add(key: string, obj: T): void {
    this.update(key, obj);
  }

  /** Stores obj under key; returns what was stored there before. */
  update(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.updateIndices(old, obj, key);
    return old;
  }

  delete(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.updateIndices(old, undefined, key);
    this.items.delete(key);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  replace(items: Map<string, T>): void {
    this.items = items;
    for (const index of this.indices.values()) index.clear();
    for (const [key, obj] of items) this.updateIndices(undefined, obj, key);
  }

  index(indexName: string, obj: T): T[] {
    const fn = this.indexers[indexName];
    if (!fn) throw unknownIndex(indexName);
    const index = this.indices.get(indexName)!;
    const keys = new Set<string>();
    for (const v of fn(obj)) for (const k of index.get(v) ?? []) keys.add(k);
    return this.objectsFor(keys);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    if (!this.indexers[indexName]) throw unknownIndex(indexName);
    return this.objectsFor(this.indices.get(indexName)!.get(indexedValue) ?? []);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    if (!this.indexers[indexName]) throw unknownIndex(indexName);
    return [...(this.indices.get(indexName)!.get(indexedValue) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  getIndexers(): Indexers<T> {
    return { ...this.indexers };
  }

  addIndexers(newIndexers: Indexers<T>): void {
    for (const name of Object.keys(newIndexers)) {
      if (this.indexers[name]) throw new ConfigurationError(`indexer conflict: ${name}`);
    }
    for (const [name, fn] of Object.entries(newIndexers)) {
      this.indexers[name] = fn;
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(index, v, key);
    }
  }

  private objectsFor(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  private updateIndices(oldObj: T | undefined, newObj: T | undefined, key: string): void {
    for (const name in this.indexers) {
      const fn = this.indexers[name]!;
      const index = this.indices.get(name)!;
      const oldValues = oldObj === undefined ? undefined : fn(oldObj);
      const newValues = newObj === undefined ? undefined : fn(newObj);
      // The common case (one unchanged value, like a namespace) touches nothing.
      if (oldValues?.length === 1 && newValues?.length === 1 && oldValues[0] === newValues[0]) continue;
      if (oldValues) for (const v of oldValues) removeFrom(index, v, key);
      if (newValues) for (const v of newValues) addTo(index, v, key);
    }
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (!set) index.set(value, (set = new Set()));
  set.add(key);
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const set = index.get(value);
  if (!set) return;
  set.delete(key);
  // Drop empty sets so index values do not pile up as objects churn.
  if (set.size === 0) index.delete(value);
}

/** client-go's cache: a Store/Indexer over a ThreadSafeStore with a key function. */
export class Cache<T> implements Indexer<T> {
  private readonly store: ThreadSafeStore<T>;

  constructor(
    private readonly keyFunc: KeyFunc<T | DeletedFinalStateUnknown<T>>,
    indexers: Indexers<T> = {},
  ) {
    this.store = new ThreadSafeStore(indexers);
  }

  add(obj: T): void {
    this.store.add(this.keyFunc(obj), obj);
  }
  update(obj: T): void {
    this.store.update(this.keyFunc(obj), obj);
  }

  /** Stores obj under its key (an add or an update) and returns what was stored there before. */
  put(obj: T): T | undefined {
    return this.store.update(this.keyFunc(obj), obj);
  }
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.store.delete(this.keyFunc(obj));
  }
  list(): T[] {
    return this.store.list();
  }
  listKeys(): string[] {
    return this.store.listKeys();
  }
  get(obj: T): T | undefined {
    return this.store.get(this.keyFunc(obj));
  }
  getByKey(key: string): T | undefined {
    return this.store.get(key);
  }
  get size(): number {
    return this.store.size;
  }
  replace(items: T[], _resourceVersion: string): void {
    const m = new Map<string, T>();
    for (const item of items) m.set(this.keyFunc(item), item);
    this.store.replace(m);
  }
  resync(): void {}
  index(indexName: string, obj: T): T[] {
    return this.store.index(indexName, obj);
  }
  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.store.indexKeys(indexName, indexedValue);
  }
  listIndexFuncValues(indexName: string): string[] {
    return this.store.listIndexFuncValues(indexName);
  }
  byIndex(indexName: string, indexedValue: string): T[] {
    return this.store.byIndex(indexName, indexedValue);
  }
  getIndexers(): Indexers<T> {
    return this.store.getIndexers();
  }
  addIndexers(newIndexers: Indexers<T>): void {
    this.store.addIndexers(newIndexers);
  }
}

/** A Store keyed by keyFunc (metaNamespaceKeyFunc by default). */
export function newStore<T extends KubeObject>(
  keyFunc: KeyFunc<T | DeletedFinalStateUnknown<T>> = metaNamespaceKeyFunc,
): Store<T> {
  return new Cache<T>(keyFunc);
}

/** An Indexer keyed by keyFunc with the given indexes (e.g. { [NAMESPACE_INDEX]: metaNamespaceIndexFunc }). */
export function newIndexer<T extends KubeObject>(
  indexers: Indexers<T> = {},
  keyFunc: KeyFunc<T | DeletedFinalStateUnknown<T>> = metaNamespaceKeyFunc,
): Indexer<T> {
  return new Cache<T>(keyFunc, indexers);
}
