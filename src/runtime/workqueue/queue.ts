import { Deque } from './deque.js';
import { QueueMetrics, UNFINISHED_WORK_UPDATE_PERIOD_MS, type MetricsProvider } from './metrics.js';

/** Options of a Queue: its name and metrics, how items are deduplicated, and its clock. */
export interface QueueOptions<T> {
  /** Names the queue in metrics; metrics are only recorded when both name and metricsProvider are set. */
  name?: string;
  /** Makes the queue's metrics; none are recorded without it (and a name). */
  metricsProvider?: MetricsProvider;
  /**
   * Identity for dedupe. Items are compared with SameValueZero by default, so pass primitives (strings) or give a
   * key here, e.g. `r => r.namespace + '/' + r.name` for request objects.
   */
  keyOf?: (item: T) => unknown;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
}

/** What get() resolves to: the next item, or shutdown: true once the queue is shut down and drained. */
export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

const SHUTDOWN: GetResult<never> = Object.freeze({ item: undefined, shutdown: true });

/**
 * client-go's workqueue: a FIFO with dedupe. An item is in `dirty` from add until it is handed out, and in
 * `processing` from get until done. An item is never handed out while processing; one added while processing is
 * re-queued once, when done is called.
 */
export class Queue<T> {
  // Keys in FIFO order; the item for a queued key is dirty.get(key).
  private readonly queue = new Deque<unknown>(64);
  private readonly dirty = new Map<unknown, T>();
  private readonly processing = new Set<unknown>();
  private readonly waiters = new Deque<(r: GetResult<T>) => void>();
  private readonly keyOf: ((item: T) => unknown) | undefined;
  protected readonly metrics: QueueMetrics | undefined;
  protected readonly now: () => number;
  private closing = false;
  private drainWaiters: (() => void)[] = [];
  private metricsTimer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: QueueOptions<T> = {}) {
    this.keyOf = opts.keyOf;
    this.now = opts.now ?? (() => performance.now());
    this.metrics =
      opts.name && opts.metricsProvider ? new QueueMetrics(opts.name, opts.metricsProvider, this.now) : undefined;
  }

  /** Marks item as needing processing; a no-op after shutdown or when it is already waiting. */
  add(item: T): void {
    if (this.closing) return;
    const key = this.keyOf ? this.keyOf(item) : item;
    if (this.dirty.has(key)) return;
    if (this.metrics) this.recordAdd(key);
    this.dirty.set(key, item);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    if (this.waiters.length > 0) this.dispatch();
  }

  /** Resolves with the next item (now marked processing), or with shutdown once the queue is shut down and empty. */
  get(): Promise<GetResult<T>> {
    if (this.queue.length > 0) return Promise.resolve(this.take());
    if (this.closing) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends processing of item; if it was added meanwhile it goes back on the queue. */
  done(item: T): void {
    const key = this.keyOf ? this.keyOf(item) : item;
    this.metrics?.done(key);
    this.processing.delete(key);
    // Once shut down the periodic update has stopped: without this, the gauges would keep the in-flight work of the
    // last update forever (a sharded controller's closed partition would look stuck).
    if (this.closing) this.metrics?.updateUnfinishedWork();
    if (this.dirty.has(key)) {
      this.queue.push(key);
      if (this.waiters.length > 0) this.dispatch();
    } else if (this.processing.size === 0 && this.drainWaiters.length > 0) {
      this.finishDrain();
    }
  }

  /** Items waiting to be handed out (not those in processing). */
  len(): number {
    return this.queue.length;
  }

  shuttingDown(): boolean {
    return this.closing;
  }

  /** Ignores further adds; waiting get()s resolve with shutdown once the remaining items are handed out. */
  shutDown(): void {
    this.close();
    if (this.drainWaiters.length > 0) this.finishDrain();
  }

  /** Like shutDown, then resolves once every item handed out so far is done (or shutDown is called). */
  shutDownWithDrain(): Promise<void> {
    this.close();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  protected close(): void {
    this.closing = true;
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    this.metricsTimer = undefined;
    // Items still queued are handed out first, as in client-go; only idle waiters learn of the shutdown.
    while (this.waiters.length > 0 && this.queue.length === 0) this.waiters.shift()!(SHUTDOWN);
  }

  private take(): GetResult<T> {
    const key = this.queue.shift();
    const item = this.dirty.get(key) as T;
    this.metrics?.get(key);
    this.processing.add(key);
    this.dirty.delete(key);
    return { item, shutdown: false };
  }

  private dispatch(): void {
    while (this.waiters.length > 0 && this.queue.length > 0) this.waiters.shift()!(this.take());
  }

  private finishDrain(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private recordAdd(key: unknown): void {
    this.metrics!.add(key);
    if (!this.metricsTimer) {
      // Started on first use rather than in the constructor, and cleared on shutdown.
      const m = this.metrics!;
      this.metricsTimer = setInterval(() => m.updateUnfinishedWork(), UNFINISHED_WORK_UPDATE_PERIOD_MS);
      this.metricsTimer.unref();
    }
  }
}
