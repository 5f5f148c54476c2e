import { Deque } from './deque.js';
import type { MetricsProvider } from './metrics.js';
import type { GetResult } from './queue.js';
import { PriorityQueue } from './priority-queue.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** Options of a PartitionedQueue. */
export interface PartitionedQueueOptions<T> {
  /** Which partition an item belongs to; undefined when it belongs to none this side knows of (it is dropped). */
  partitionOf: (item: T) => number | undefined;
  /** Identity for dedupe, as QueueOptions.keyOf. */
  keyOf: (item: T) => unknown;
  /** Prefix of each partition's queue name: `<name>-partition-<p>`. */
  name?: string;
  /** Makes each partition's queue metrics (with `name`). */
  metricsProvider?: MetricsProvider;
  /**
   * Makes each partition's rate limiter, so that a partition's backoff history goes with it. Default: client-go's
   * default controller rate limiter, one per partition.
   */
  newRateLimiter?: () => RateLimiter;
  /** Called for an item added to a partition that is not open (or to none). */
  onDrop?: (item: T) => void;
  /** Monotonic milliseconds, as QueueOptions.now. */
  now?: () => number;
  /** Each partition a PriorityQueue (highest priority first) rather than a first-in first-out one. Default false. */
  usePriorityQueue?: boolean;
}

const SHUTDOWN: GetResult<never> = Object.freeze({ item: undefined, shutdown: true });

/** One partition's queue, as the PartitionedQueue uses it; it says when an item becomes ready. */
interface PartitionQueue<T> {
  notify: () => void;
  add(item: T, priority?: number): void;
  addAfter(item: T, delayMs: number, priority?: number): void;
  addRateLimited(item: T, priority?: number): void;
  forget(item: T): void;
  get(): Promise<GetResult<T> & { priority?: number }>;
  done(item: T): void;
  len(): number;
  shutDown(): void;
}

/** A first-in first-out partition: it tells the PartitionedQueue when an item becomes ready (an add, a delayed add firing). */
class FifoPartition<T> extends RateLimitingQueue<T> implements PartitionQueue<T> {
  notify: () => void = () => {};

  override add(item: T): void {
    super.add(item);
    if (this.len() > 0) this.notify();
  }

  override done(item: T): void {
    super.done(item);
    if (this.len() > 0) this.notify();
  }
}

/** A priority partition; PriorityQueue calls onReady itself whenever items are ready. */
class PriorityPartition<T> extends PriorityQueue<T> implements PartitionQueue<T> {
  notify: () => void = () => {};

  protected override onReady(): void {
    this.notify();
  }
}

/**
 * A rate-limiting work queue split into partitions, each with its own queue, rate limiter and metrics, for a
 * sharded controller: an item goes to its partition's queue if that partition is open, and is dropped otherwise.
 * Closing a partition drops everything queued or waiting in it at once, and its backoff history with it. Workers
 * take items from the open partitions in turn, so one busy partition does not starve the others.
 */
export class PartitionedQueue<T> {
  private readonly opts: PartitionedQueueOptions<T>;
  private readonly partitions = new Map<number, PartitionQueue<T>>();
  // Which partition's queue handed each item out, so done() reaches it whatever partitionOf says by then.
  private readonly processing = new Map<unknown, { partition: number; queue: PartitionQueue<T> }>();
  private readonly waiters = new Deque<(r: Promise<GetResult<T> & { priority?: number }> | GetResult<T>) => void>();
  private order: number[] = [];
  private turn = 0;
  private closing = false;

  constructor(opts: PartitionedQueueOptions<T>) {
    this.opts = opts;
  }

  /** Opens `partition`: items of it are queued from now on. A no-op when it is open. */
  open(partition: number): void {
    if (this.closing || this.partitions.has(partition)) return;
    const Partition = this.opts.usePriorityQueue ? PriorityPartition : FifoPartition;
    const q: PartitionQueue<T> = new Partition<T>({
      keyOf: this.opts.keyOf,
      rateLimiter: (this.opts.newRateLimiter ?? defaultControllerRateLimiter)(),
      ...(this.opts.name && this.opts.metricsProvider
        ? { name: `${this.opts.name}-partition-${partition}`, metricsProvider: this.opts.metricsProvider }
        : {}),
      ...(this.opts.now ? { now: this.opts.now } : {}),
    });
    q.notify = () => this.dispatch();
    this.partitions.set(partition, q);
    this.order = [...this.partitions.keys()].sort((a, b) => a - b);
  }

  /**
   * Closes `partition`: what is queued or waiting in it is dropped and later adds to it are too. Items handed out
   * before are still to be marked done.
   */
  close(partition: number): void {
    const q = this.partitions.get(partition);
    if (!q) return;
    this.partitions.delete(partition);
    this.order = [...this.partitions.keys()].sort((a, b) => a - b);
    q.shutDown();
    // Handing out what is left, at once and to nobody, keeps the partition's depth metric true.
    while (q.len() > 0) void q.get().then((r) => r.shutdown || q.done(r.item));
  }

  /** The open partitions, in order. */
  openPartitions(): number[] {
    return [...this.order];
  }

  /** Queues item in its partition; drops it (onDrop) when that partition is not open. */
  add(item: T, priority?: number): void {
    this.route(item)?.add(item, priority);
  }

  /** Queues item in its partition after delayMs. */
  addAfter(item: T, delayMs: number, priority?: number): void {
    this.route(item)?.addAfter(item, delayMs, priority);
  }

  /** Queues item in its partition once that partition's rate limiter allows it. */
  addRateLimited(item: T, priority?: number): void {
    this.route(item)?.addRateLimited(item, priority);
  }

  /** Clears item's failure history in its partition. */
  forget(item: T): void {
    this.owner(item)?.forget(item);
  }

  /** Resolves with the next item of the open partitions, taken in turn, or with shutdown once shut down and empty. */
  get(): Promise<GetResult<T> & { priority?: number }> {
    const r = this.take();
    if (r) return r;
    if (this.closing) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends processing of item in the partition that handed it out. */
  done(item: T): void {
    const key = this.opts.keyOf(item);
    const handedOut = this.processing.get(key);
    this.processing.delete(key);
    handedOut?.queue.done(item);
  }

  /** Items waiting to be handed out, over all open partitions. */
  len(): number {
    let n = 0;
    for (const q of this.partitions.values()) n += q.len();
    return n;
  }

  shuttingDown(): boolean {
    return this.closing;
  }

  /** Shuts every partition down; idle get()s resolve with shutdown once what is queued has been handed out. */
  shutDown(): void {
    this.closing = true;
    for (const q of this.partitions.values()) q.shutDown();
    if (this.len() === 0) while (this.waiters.length > 0) this.waiters.shift()!(SHUTDOWN);
  }

  /** The open partition queue item belongs to; undefined (and onDrop) when there is none. */
  private route(item: T): PartitionQueue<T> | undefined {
    const q = this.owner(item);
    if (!q) this.opts.onDrop?.(item);
    return q;
  }

  /** An item being processed belongs to the queue that handed it out, while that partition stays open. */
  private owner(item: T): PartitionQueue<T> | undefined {
    const handedOut = this.processing.get(this.opts.keyOf(item));
    if (handedOut) return this.partitions.get(handedOut.partition) === handedOut.queue ? handedOut.queue : undefined;
    const p = this.opts.partitionOf(item);
    return p === undefined ? undefined : this.partitions.get(p);
  }

  /** Takes the next item from the first partition with one, starting after the last served (round robin). */
  private take(): Promise<GetResult<T> & { priority?: number }> | undefined {
    const n = this.order.length;
    for (let i = 0; i < n; i++) {
      const p = this.order[(this.turn + i) % n]!;
      const q = this.partitions.get(p)!;
      if (q.len() === 0) continue;
      this.turn = (this.turn + i + 1) % n;
      // A queue with items takes one synchronously, inside get(): no other worker can take it meanwhile.
      return q.get().then((r) => {
        if (!r.shutdown) this.processing.set(this.opts.keyOf(r.item), { partition: p, queue: q });
        return r;
      });
    }
    return undefined;
  }

  private dispatch(): void {
    while (this.waiters.length > 0) {
      const r = this.take();
      if (!r) return;
      this.waiters.shift()!(r);
    }
  }
}
