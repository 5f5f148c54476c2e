import { KeyedHeap } from './keyed-heap.js';

/** What a Deadlines holds per key: when it is due (on the queue's clock; set while parked) and its insertion order. */
export interface Deadline {
  readyAt: number | undefined;
  readonly seq: number;
}

/**
 * Items parked until a deadline, found by key, with one timer armed for the earliest; each is handed to `onDue` once
 * its time has come, equal deadlines first in first out. What the delaying queue and the priority queue share.
 */
export class Deadlines<V extends Deadline> {
  private readonly heap = new KeyedHeap<unknown, V>((a, b) =>
    a.readyAt !== b.readyAt ? a.readyAt! < b.readyAt! : a.seq < b.seq,
  );
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly now: () => number,
    private readonly onDue: (v: V) => void,
  ) {}

  get size(): number {
    return this.heap.size;
  }

  get(key: unknown): V | undefined {
    return this.heap.get(key);
  }

  /** Parks (or re-parks) v under key, and arms the timer if it is now the earliest. */
  set(key: unknown, v: V): void {
    this.heap.set(key, v);
    this.arm();
  }

  delete(key: unknown): void {
    this.heap.delete(key);
  }

  keys(): IterableIterator<unknown> {
    return (function* (entries) {
      for (const [k] of entries) yield k;
    })(this.heap.entries());
  }

  /** Drops everything parked and disarms the timer. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.heap.clear();
  }

  private arm(): void {
    const next = this.heap.peek();
    if (!next) return;
    const at = next.readyAt!;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    for (let next = this.heap.peek(); next && next.readyAt! <= now; next = this.heap.peek()) {
      this.heap.pop();
      this.onDue(next);
    }
    this.arm();
  }
}
