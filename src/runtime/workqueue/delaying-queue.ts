import { KeyedHeap } from './keyed-heap.js';
import { Queue, type QueueOptions } from './queue.js';

interface Waiting<T> {
  item: T;
  readyAt: number;
  // Insertion order breaks ties so equal deadlines come out FIFO.
  seq: number;
}

/**
 * client-go's delaying queue: addAfter parks an item in a heap until its time, then adds it. Parking the same item
 * twice keeps the earlier deadline. One timer is armed for the earliest deadline; shutDown clears it.
 */
export class DelayingQueue<T> extends Queue<T> {
  private readonly waiting = new KeyedHeap<unknown, Waiting<T>>((a, b) =>
    a.readyAt !== b.readyAt ? a.readyAt < b.readyAt : a.seq < b.seq,
  );
  private readonly delayKeyOf: (item: T) => unknown;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  constructor(opts: QueueOptions<T> = {}) {
    super(opts);
    this.delayKeyOf = opts.keyOf ?? ((item) => item);
  }

  /** Adds item after delayMs milliseconds (at once when delayMs <= 0). */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.metrics?.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.now() + delayMs;
    const key = this.delayKeyOf(item);
    const existing = this.waiting.get(key);
    if (existing) {
      if (readyAt >= existing.readyAt) return;
      this.waiting.set(key, { item: existing.item, readyAt, seq: existing.seq });
    } else {
      this.waiting.set(key, { item, readyAt, seq: this.seq++ });
    }
    this.arm();
  }

  /** Items parked by addAfter that are not yet due. */
  waitingLen(): number {
    return this.waiting.size;
  }

  protected override close(): void {
    super.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.waiting.clear();
  }

  private arm(): void {
    const next = this.waiting.peek();
    if (!next) return;
    if (this.timer && this.timerAt <= next.readyAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next.readyAt;
    this.timer = setTimeout(() => this.fire(), Math.max(0, next.readyAt - this.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    for (let next = this.waiting.peek(); next && next.readyAt <= now; next = this.waiting.peek()) {
      this.waiting.pop();
      this.add(next.item);
    }
    this.arm();
  }
}
