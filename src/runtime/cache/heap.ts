import { KeyedHeap } from '../workqueue/keyed-heap.js';
import type { KeyFunc } from './keys.js';

/** client-go's cache.Heap: a keyed priority queue (smallest first by less); adding a present key updates it. */
export class Heap<T> {
  private readonly heap: KeyedHeap<string, T>;
  private closed = false;
  private waiter: (() => void) | undefined;

  constructor(
    private readonly keyOf: KeyFunc<T>,
    less: (a: T, b: T) => boolean,
  ) {
    this.heap = new KeyedHeap<string, T>(less);
  }

  add(obj: T): void {
    this.heap.set(this.keyOf(obj), obj);
    this.wake();
  }

  update(obj: T): void {
    this.add(obj);
  }

  addIfNotPresent(obj: T): void {
    const key = this.keyOf(obj);
    if (!this.heap.has(key)) this.add(obj);
  }

  delete(obj: T): void {
    this.heap.delete(this.keyOf(obj));
  }

  /** The smallest object, removed; undefined when empty. */
  tryPop(): T | undefined {
    return this.heap.pop()?.value;
  }

  /** Resolves with the smallest object, waiting for one; undefined once closed and empty. */
  async pop(): Promise<T | undefined> {
    for (;;) {
      const obj = this.tryPop();
      if (obj !== undefined) return obj;
      if (this.closed) return undefined;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  peek(): T | undefined {
    return this.heap.peek();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  list(): T[] {
    return [...this.heap.entries()].map(([, v]) => v);
  }

  listKeys(): string[] {
    return [...this.heap.entries()].map(([k]) => k);
  }

  get(obj: T): T | undefined {
    return this.heap.get(this.keyOf(obj));
  }

  getByKey(key: string): T | undefined {
    return this.heap.get(key);
  }

  get length(): number {
    return this.heap.size;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
