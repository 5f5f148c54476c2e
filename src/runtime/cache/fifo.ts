import { Deque } from '../workqueue/deque.js';
import { metaNamespaceKeyFunc, type DeletedFinalStateUnknown, type KeyFunc } from './keys.js';

/**
 * client-go's FIFO: a queue of the latest state of each key. Adding a key that is queued replaces its object but keeps
 * its place; a deleted key is skipped when its turn comes.
 */
export class FIFO<T> {
  private readonly items = new Map<string, T>();
  private queue = new Deque<string>(16);
  private readonly queued = new Set<string>();
  private populated = false;
  private initialPopulationCount = 0;
  private closed = false;
  private waiter: (() => void) | undefined;

  constructor(private readonly keyOf: KeyFunc<T | DeletedFinalStateUnknown<T>> = metaNamespaceKeyFunc as KeyFunc<T | DeletedFinalStateUnknown<T>>) {}

  add(obj: T): void {
    this.populated = true;
    const key = this.keyOf(obj);
    if (!this.queued.has(key)) {
      this.queued.add(key);
      this.queue.push(key);
    }
    this.items.set(key, obj);
    this.wake();
  }

  update(obj: T): void {
    this.add(obj);
  }

  /** Adds obj only if its key is not queued already. */
  addIfNotPresent(obj: T): void {
    this.populated = true;
    if (this.items.has(this.keyOf(obj))) return;
    this.add(obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.populated = true;
    this.items.delete(this.keyOf(obj));
  }

  /** Replaces the content: exactly list's objects, queued in list order. */
  replace(list: T[], _resourceVersion: string): void {
    this.items.clear();
    this.queue = new Deque<string>(Math.max(16, list.length));
    this.queued.clear();
    for (const obj of list) {
      const key = this.keyOf(obj);
      if (!this.queued.has(key)) {
        this.queued.add(key);
        this.queue.push(key);
      }
      this.items.set(key, obj);
    }
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = this.queue.length;
    }
    this.wake();
  }

  /** Re-queues every stored key that is not queued. */
  resync(): void {
    for (const key of this.items.keys()) {
      if (this.queued.has(key)) continue;
      this.queued.add(key);
      this.queue.push(key);
    }
    this.wake();
  }

  /** Pops the oldest stored object; undefined when nothing is queued. */
  tryPop(): T | undefined {
    for (;;) {
      const key = this.queue.shift();
      if (key === undefined) return undefined;
      this.queued.delete(key);
      if (this.initialPopulationCount > 0) this.initialPopulationCount--;
      const obj = this.items.get(key);
      // A key deleted after it was queued is skipped.
      if (obj === undefined) continue;
      this.items.delete(key);
      return obj;
    }
  }

  /** Resolves with the next object, waiting for one; undefined once closed and empty. */
  async pop(): Promise<T | undefined> {
    for (;;) {
      const obj = this.tryPop();
      if (obj !== undefined) return obj;
      if (this.closed) return undefined;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyOf(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
