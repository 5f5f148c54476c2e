import { Deadlines } from './deadlines.js';
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
  private readonly waiting = new Deadlines<Waiting<T>>(this.now, (due) => this.add(due.item));
  private readonly delayKeyOf: (item: T) => unknown;
  private seq = 0;

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
  }

  /** Items parked by addAfter that are not yet due. */
  waitingLen(): number {
    return this.waiting.size;
  }

  protected override close(): void {
    super.close();
    this.waiting.clear();
  }
}
