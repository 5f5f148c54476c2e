import { Deque } from '../workqueue/deque.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc, type KeyFunc } from './keys.js';
import type { KeyListerGetter } from './store.js';

/** The kind of change a Delta records (client-go's DeltaType): Replaced comes from a relist, Sync from a resync. */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/**
 * One change of an object (client-go's cache.Delta); a Deleted delta may carry a DeletedFinalStateUnknown tombstone.
 */
export interface Delta<T> {
  /** What happened. */
  type: DeltaType;
  /** The object as of this change, or a tombstone for a delete the queue inferred. */
  object: T | DeletedFinalStateUnknown<T>;
}

/** The changes queued for one key, oldest first. */
export type Deltas<T> = Delta<T>[];

/** Applied once to every object entering the queue from outside (not to resyncs or tombstones). */
export type TransformFunc<T> = (obj: T) => T;

/** Receives one key's deltas; isInInitialList is true for deltas of the first Replace. */
export type PopProcessFunc<T> = (deltas: Deltas<T>, isInInitialList: boolean) => void;

/**
 * Options of a DeltaFIFO: how keys are computed (metaNamespaceKeyFunc by default), the known objects, and a transform.
 */
export interface DeltaFIFOOptions<T> {
  /** Computes an object's key; default metaNamespaceKeyFunc. */
  keyFunction?: KeyFunc<T | DeletedFinalStateUnknown<T>>;
  /** The informer's indexer: lets Replace find deletions and Resync re-emit known objects. */
  knownObjects?: KeyListerGetter<T>;
  /** Emit Replaced (not Sync) for Replace's items, as informers do. Default true. */
  emitDeltaTypeReplaced?: boolean;
  /** Applied to each object as it enters the queue. */
  transformer?: TransformFunc<T>;
}

/**
 * client-go's DeltaFIFO: a queue of keys, each with its accumulated deltas, so a consumer sees every change of an
 * object in order (consecutive deletes are collapsed). Replace turns objects missing from a relist into Deleted
 * deltas carrying DeletedFinalStateUnknown tombstones.
 */
export class DeltaFIFO<T> {
  private readonly items = new Map<string, Deltas<T>>();
  private readonly queue = new Deque<string>(64);
  private readonly keyOf: KeyFunc<T | DeletedFinalStateUnknown<T>>;
  private readonly knownObjects: KeyListerGetter<T> | undefined;
  private readonly emitDeltaTypeReplaced: boolean;
  private readonly transformer: TransformFunc<T> | undefined;
  private populated = false;
  private initialPopulationCount = 0;
  private closed = false;
  private waiter: (() => void) | undefined;

  constructor(opts: DeltaFIFOOptions<T> = {}) {
    this.keyOf = opts.keyFunction ?? (metaNamespaceKeyFunc as KeyFunc<T | DeletedFinalStateUnknown<T>>);
    this.knownObjects = opts.knownObjects;
    this.emitDeltaTypeReplaced = opts.emitDeltaTypeReplaced ?? true;
    this.transformer = opts.transformer;
  }

  add(obj: T): void {
    this.populated = true;
    this.queueAction('Added', obj);
  }

  update(obj: T): void {
    this.populated = true;
    this.queueAction('Updated', obj);
  }

  /** Queues a delete, unless the object is unknown both here and in knownObjects (a relist already reported it). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    this.populated = true;
    const inItems = this.items.has(id);
    if (this.knownObjects) {
      if (this.knownObjects.getByKey(id) === undefined && !inItems) return;
    } else if (!inItems) {
      return;
    }
    this.queueAction('Deleted', obj);
  }

  /** A full list: Replaced (or Sync) for each item, and tombstoned deletes for known keys the list lacks. */
  replace(list: T[], _resourceVersion: string): void {
    const action: DeltaType = this.emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    const keys = new Set<string>();
    for (const item of list) {
      keys.add(this.keyOf(item));
      this.queueAction(action, item);
    }
    let queuedDeletions = 0;
    for (const [k, deltas] of this.items) {
      if (keys.has(k)) continue;
      const newest = deltas[deltas.length - 1];
      if (!newest) continue;
      const last = newest.object instanceof DeletedFinalStateUnknown ? newest.object.obj : newest.object;
      queuedDeletions++;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(k, last));
    }
    if (this.knownObjects) {
      for (const k of this.knownObjects.listKeys()) {
        if (keys.has(k) || (this.items.get(k)?.length ?? 0) > 0) continue;
        const last = this.knownObjects.getByKey(k);
        if (last === undefined) continue;
        queuedDeletions++;
        this.queueAction('Deleted', new DeletedFinalStateUnknown(k, last));
      }
    }
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /**
   * Records that a first list was applied past the queue (the informer does so when nothing is known or queued): the
   * queue counts as populated and its initial list as handed out, as if every item had been popped.
   */
  markPopulated(): void {
    this.populated = true;
    this.initialPopulationCount = 0;
  }

  /** Queues a Sync for every known object that has nothing queued (a queued change would be newer). */
  resync(): void {
    if (!this.knownObjects) return;
    for (const k of this.knownObjects.listKeys()) {
      if ((this.items.get(k)?.length ?? 0) > 0) continue;
      const obj = this.knownObjects.getByKey(k);
      if (obj !== undefined) this.queueAction('Sync', obj);
    }
  }

  /** Pops the oldest key and hands its deltas to process synchronously; false when nothing is queued. */
  tryPop(process: PopProcessFunc<T>): boolean {
    const id = this.queue.shift();
    if (id === undefined) return false;
    const isInInitialList = !this.hasSynced();
    if (this.initialPopulationCount > 0) this.initialPopulationCount--;
    const deltas = this.items.get(id);
    this.items.delete(id);
    // A key can be queued while its deltas are gone only if a caller mutated items; skip it like client-go.
    if (deltas && deltas.length > 0) process(deltas, isInInitialList);
    return true;
  }

  /** Resolves true once something is queued, false once closed. */
  waitForItems(): Promise<boolean> {
    if (this.queue.length > 0) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiter = () => resolve(this.queue.length > 0);
    });
  }

  /** Wakes a waiting consumer for the last time. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** True once the first Replace (or any add) happened and all of the first Replace's keys were popped. */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** The queued deltas for a key (a copy). */
  getByKey(key: string): Deltas<T> | undefined {
    const d = this.items.get(key);
    return d ? [...d] : undefined;
  }

  get length(): number {
    return this.queue.length;
  }

  private queueAction(type: DeltaType, obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    if (this.transformer && type !== 'Sync' && !(obj instanceof DeletedFinalStateUnknown)) obj = this.transformer(obj);
    const existing = this.items.get(id);
    const delta: Delta<T> = { type, object: obj };
    if (!existing) {
      this.items.set(id, [delta]);
      this.queue.push(id);
      this.wake();
      return;
    }
    existing.push(delta);
    dedupDeltas(existing);
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}

// Collapses two trailing deletes into one, keeping the one that is not a tombstone (it carries more information).
function dedupDeltas<T>(deltas: Deltas<T>): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 2]!;
  const b = deltas[n - 1]!;
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return;
  deltas.length = n - 1;
  deltas[n - 2] = b.object instanceof DeletedFinalStateUnknown ? a : b;
}
