import { Deque } from './deque.js';
import { Deadlines } from './deadlines.js';
import { QueueMetrics, UNFINISHED_WORK_UPDATE_PERIOD_MS } from './metrics.js';
import type { QueueOptions } from './queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** How an item is added to a PriorityQueue (controller-runtime's priorityqueue.AddOpts). */
export interface PriorityAddOptions {
  /** Hand it out no sooner than this many milliseconds from now. */
  after?: number;
  /** Wait as long as the rate limiter says (counting one more failure); the shorter of this and `after` wins. */
  rateLimited?: boolean;
  /** Higher goes first; default 0. An item queued again keeps the higher of its priorities. */
  priority?: number;
}

/** What PriorityQueue.get() resolves to: the item and the priority it was queued with, or shutdown. */
export type PriorityGetResult<T> =
  { item: T; priority: number; shutdown: false } | { item: undefined; priority: 0; shutdown: true };

/** Options of a PriorityQueue: a Queue's options plus the rate limiter. */
export interface PriorityQueueOptions<T> extends QueueOptions<T> {
  /** Sees the queue's key for each item. Default: defaultControllerRateLimiter(). */
  rateLimiter?: RateLimiter;
}

/** The low priority controller-runtime gives events of the initial list and resyncs (handler.LowPriority). */
export const LOW_PRIORITY = -100;

const SHUTDOWN: PriorityGetResult<never> = Object.freeze({ item: undefined, priority: 0, shutdown: true });

interface Entry<T> {
  readonly key: unknown;
  readonly item: T;
  readonly priority: number;
  // Milliseconds on the queue's clock at which a waiting entry becomes ready; undefined once ready.
  readyAt: number | undefined;
  // Insertion order: FIFO among equal priorities (and equal deadlines).
  readonly seq: number;
  // When it became ready (for workqueue_queue_duration_seconds); -1 until then, or without metrics.
  addedAt: number;
}

/**
 * controller-runtime's priority queue (pkg/controller/priorityqueue), the default queue of its controllers since
 * v0.23: a deduplicating, rate-limiting queue that hands out ready items highest priority first, first in first out
 * within a priority. An item added again while queued keeps the higher priority and the earlier deadline, and one
 * already ready stays ready; an item added while it is being processed is handed out again only once it is done.
 *
 * Ready items sit in one FIFO per priority. Raising an item's priority queues a new entry at the end of its new
 * priority's FIFO (as controller-runtime gives it a new insertion counter) and leaves the old one behind, skipped when
 * reached, so every operation is O(1) but for delayed items, which wait in a heap by deadline.
 */
export class PriorityQueue<T> {
  private readonly items = new Map<unknown, Entry<T>>();
  private readonly processing = new Set<unknown>();
  private readonly ready = new Map<number, Deque<Entry<T>>>();
  // The priorities that have a FIFO, highest first.
  private priorities: number[] = [];
  private readyCount = 0;
  private readonly waiting: Deadlines<Entry<T>>;
  private readonly getters = new Deque<(r: PriorityGetResult<T>) => void>();
  private readonly keyOf: (item: T) => unknown;
  private readonly rateLimiter: RateLimiter;
  protected readonly metrics: QueueMetrics | undefined;
  protected readonly now: () => number;
  private seq = 0;
  private closing = false;
  private drainWaiters: (() => void)[] = [];
  private metricsTimer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: PriorityQueueOptions<T> = {}) {
    this.keyOf = opts.keyOf ?? ((item) => item);
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter();
    this.now = opts.now ?? (() => performance.now());
    this.waiting = new Deadlines<Entry<T>>(this.now, (due) => {
      due.readyAt = undefined;
      this.insert(due);
    });
    this.metrics =
      opts.name && opts.metricsProvider ? new QueueMetrics(opts.name, opts.metricsProvider, this.now) : undefined;
  }

  /** Queues item (controller-runtime's AddWithOpts); a no-op after shutdown. */
  addWithOpts(item: T, opts: PriorityAddOptions = {}): void {
    this.enqueue(item, opts.after ?? 0, opts.rateLimited === true, opts.priority ?? 0);
  }

  /** Queues item at priority (default 0). */
  add(item: T, priority?: number): void {
    this.enqueue(item, 0, false, priority ?? 0);
  }

  /** Queues item after delayMs. */
  addAfter(item: T, delayMs: number, priority?: number): void {
    this.enqueue(item, delayMs, false, priority ?? 0);
  }

  /** Queues item once the rate limiter allows it. */
  addRateLimited(item: T, priority?: number): void {
    this.enqueue(item, 0, true, priority ?? 0);
  }

  // addWithOpts' work, with its options as arguments: every add of every controller comes through here.
  private enqueue(item: T, afterMs: number, rateLimited: boolean, priority: number): void {
    if (this.closing) return;
    const key = this.keyOf(item);
    let after = afterMs;
    if (rateLimited) {
      const limited = this.rateLimiter.when(key);
      if (!(after > 0) || limited < after) after = limited;
    }
    let readyAt: number | undefined;
    if (after > 0) {
      readyAt = this.now() + after;
      this.metrics?.retry();
    }
    const existing = this.items.get(key);
    if (!existing) {
      this.insert({ key, item, priority, readyAt, seq: this.seq++, addedAt: -1 });
      return;
    }
    if (existing.readyAt === undefined) {
      // Ready already: it stays ready, and only a higher priority moves it.
      if (priority > existing.priority) {
        this.metrics?.changePriority(existing.priority, priority);
        // The old entry stays in its FIFO, skipped when reached; it no longer counts as ready.
        if (!this.processing.has(key)) this.readyCount--;
        this.insert(
          { key, item: existing.item, priority, readyAt: undefined, seq: this.seq++, addedAt: existing.addedAt },
          false,
        );
      }
      return;
    }
    // Waiting: the earlier deadline (none at all if this add is ready now) and the higher priority win.
    const newReadyAt = readyAt === undefined || readyAt < existing.readyAt ? readyAt : existing.readyAt;
    const raised = priority > existing.priority;
    if (newReadyAt === existing.readyAt && !raised) return;
    this.waiting.delete(key);
    this.insert({
      key,
      item: existing.item,
      priority: raised ? priority : existing.priority,
      readyAt: newReadyAt,
      seq: raised ? this.seq++ : existing.seq,
      addedAt: existing.addedAt,
    });
  }

  /** Clears item's failure history; the item itself stays queued if it is. */
  forget(item: T): void {
    this.rateLimiter.forget(this.keyOf(item));
  }

  /** How many failures the rate limiter has counted for item. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(this.keyOf(item));
  }

  /** Resolves with the ready item of the highest priority (now processing), or shutdown once shut down and empty. */
  get(): Promise<PriorityGetResult<T>> {
    const next = this.take();
    if (next) return Promise.resolve(next);
    if (this.closing) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of item; if it was added meanwhile it can now be handed out. */
  done(item: T): void {
    const key = this.keyOf(item);
    if (!this.processing.delete(key)) return;
    this.metrics?.done(key);
    if (this.closing) this.metrics?.updateUnfinishedWork();
    const queued = this.items.get(key);
    if (queued && queued.readyAt === undefined) {
      this.pushReady(queued);
      this.dispatch();
    } else if (this.processing.size === 0 && this.drainWaiters.length > 0) {
      this.finishDrain();
    }
  }

  /** Items ready to be handed out (not those waiting for their time, nor those being processed). */
  len(): number {
    return this.readyCount;
  }

  /** Items waiting for their time (addAfter, addRateLimited). */
  waitingLen(): number {
    return this.waiting.size;
  }

  shuttingDown(): boolean {
    return this.closing;
  }

  /** Ignores further adds; waiting get()s resolve with shutdown once the ready items are handed out. */
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

  /** Called whenever items may have become ready to hand out; a subclass may tell someone. */
  protected onReady(): void {}

  private insert(e: Entry<T>, count = true): void {
    this.items.set(e.key, e);
    if (e.readyAt !== undefined) {
      this.waiting.set(e.key, e);
      return;
    }
    if (count) this.recordAdd(e);
    if (!this.processing.has(e.key)) {
      this.pushReady(e);
      this.dispatch();
    }
  }

  private recordAdd(e: Entry<T>): void {
    if (!this.metrics) return;
    // Its wait is timed from when it first became ready, as client-go's addTimes keep an item's first add.
    const at = this.metrics.added(e.priority);
    if (e.addedAt < 0) e.addedAt = at;
    if (!this.metricsTimer) {
      const m = this.metrics;
      this.metricsTimer = setInterval(() => m.updateUnfinishedWork(), UNFINISHED_WORK_UPDATE_PERIOD_MS);
      this.metricsTimer.unref();
    }
  }

  private pushReady(e: Entry<T>): void {
    let fifo = this.ready.get(e.priority);
    if (!fifo) {
      this.ready.set(e.priority, (fifo = new Deque<Entry<T>>(64)));
      this.priorities = [...this.ready.keys()].sort((a, b) => b - a);
    }
    fifo.push(e);
    this.readyCount++;
  }

  private take(): PriorityGetResult<T> | undefined {
    if (this.readyCount === 0) return undefined;
    for (const p of this.priorities) {
      const fifo = this.ready.get(p)!;
      for (let e = fifo.shift(); e !== undefined; e = fifo.shift()) {
        // Left behind by a raised priority, or handed out already: skip it.
        if (this.items.get(e.key) !== e) continue;
        this.items.delete(e.key);
        this.readyCount--;
        this.metrics?.taken(e.key, e.priority, e.addedAt);
        this.processing.add(e.key);
        return { item: e.item, priority: e.priority, shutdown: false };
      }
    }
    return undefined;
  }

  private dispatch(): void {
    if (this.readyCount > 0) this.onReady();
    while (this.getters.length > 0) {
      const next = this.take();
      if (!next) return;
      this.getters.shift()!(next);
    }
  }

  private finishDrain(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private close(): void {
    this.closing = true;
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    this.metricsTimer = undefined;
    for (const key of this.waiting.keys()) this.items.delete(key);
    this.waiting.clear();
    // Ready items are still handed out first, as in client-go; only idle getters learn of the shutdown.
    if (this.readyCount === 0) while (this.getters.length > 0) this.getters.shift()!(SHUTDOWN);
  }
}
