import type { Logger } from '../log/index.js';
import { onAbort } from '../internal/abort-fanout.js';
import { Deque } from '../workqueue/deque.js';
import type { DeletedFinalStateUnknown } from './keys.js';

/** Receives an informer's changes. A handler may be async: its listener then waits for it before the next call. */
export interface ResourceEventHandler<T> {
  /** isInInitialList is true for objects of the informer's first list (and for a late handler's catch-up). */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** Called with the object's previous and new state, also on resyncs (then both are the same object). */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** A tombstone arrives when a relist found the object gone without its delete being seen. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/** One change as queued for a handler: add, update or delete. */
export type Notification<T> =
  | { kind: 'add'; obj: T; isInInitialList: boolean }
  | { kind: 'update'; oldObj: T; newObj: T }
  | { kind: 'delete'; obj: T | DeletedFinalStateUnknown<T> };

// Yield to the event loop this often while draining a long buffer, so one busy listener cannot starve the rest.
const YIELD_EVERY = 512;

/**
 * client-go's processorListener: one handler's unbounded buffer and the loop that feeds it, so a slow handler
 * never holds up the informer or the other handlers.
 */
export class ProcessorListener<T> {
  private readonly buffer = new Deque<Notification<T>>(64);
  private wake: (() => void) | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  // Initial-list notifications queued but not yet handled (client-go's synctrack.SingleFileTracker).
  private initialPending = 0;
  private upstreamSynced: () => boolean = () => false;
  /** When this listener's next resync is due (ms since the epoch); the processor advances it after each resync. */
  nextResync = 0;

  constructor(
    readonly handler: ResourceEventHandler<T>,
    /** Requested resync period in ms (0: none), as adjusted by the informer. */
    public resyncPeriodMs: number,
    private readonly log: Logger,
  ) {}

  add(n: Notification<T>): void {
    if (this.stopped) return;
    if (n.kind === 'add' && n.isInInitialList) this.initialPending++;
    this.buffer.push(n);
    const w = this.wake;
    if (w) {
      this.wake = undefined;
      w();
    }
  }

  /** True once the informer synced and this handler has handled every initial-list notification. */
  hasSynced(): boolean {
    return this.initialPending === 0 && this.upstreamSynced();
  }

  setUpstreamSynced(fn: () => boolean): void {
    this.upstreamSynced = fn;
  }

  /** Starts the delivery loop; it ends at stop() or when signal aborts. */
  start(signal: AbortSignal): Promise<void> {
    this.loop ??= this.run(signal);
    return this.loop;
  }

  /** Drops what is buffered and ends the loop; no handler call starts after this. */
  stop(): void {
    this.stopped = true;
    this.buffer.clear();
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriodMs > 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriodMs;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const unregister = onAbort(signal, () => this.stop());
    if (signal.aborted) this.stop();
    try {
      let sinceYield = 0;
      while (!this.stopped) {
        const n = this.buffer.shift();
        if (n === undefined) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          sinceYield = 0;
          continue;
        }
        const pending = this.dispatch(n);
        if (pending) await pending;
        if (n.kind === 'add' && n.isInInitialList) this.initialPending--;
        if (++sinceYield >= YIELD_EVERY) {
          sinceYield = 0;
          await new Promise((r) => setImmediate(r));
        }
      }
    } finally {
      unregister();
    }
  }

  // Calls the handler; a throw or rejection is logged and delivery goes on.
  private dispatch(n: Notification<T>): Promise<void> | undefined {
    let result: void | Promise<void>;
    try {
      const h = this.handler;
      switch (n.kind) {
        case 'add':
          result = h.onAdd?.(n.obj, n.isInInitialList);
          break;
        case 'update':
          result = h.onUpdate?.(n.oldObj, n.newObj);
          break;
        case 'delete':
          result = h.onDelete?.(n.obj);
          break;
      }
    } catch (e) {
      this.log.error(e, 'event handler failed', { event: n.kind });
      return undefined;
    }
    if (result && typeof (result as Promise<void>).then === 'function') {
      return (result as Promise<void>).then(undefined, (e: unknown) =>
        this.log.error(e, 'event handler failed', { event: n.kind }),
      );
    }
    return undefined;
  }
}

/** client-go's sharedProcessor: fans notifications out to listeners; resync notifications only to those due. */
export class SharedProcessor<T> {
  /** The listeners notifications are fanned out to, one per registered handler. */
  readonly listeners = new Set<ProcessorListener<T>>();
  private syncing = new Set<ProcessorListener<T>>();
  private signal: AbortSignal | undefined;
  private readonly loops = new Set<Promise<void>>();

  addListener(l: ProcessorListener<T>): void {
    this.listeners.add(l);
    if (this.signal) this.startListener(l, this.signal);
  }

  removeListener(l: ProcessorListener<T>): void {
    this.listeners.delete(l);
    this.syncing.delete(l);
    l.stop();
  }

  distribute(n: Notification<T>, isSync: boolean): void {
    for (const l of isSync ? this.syncing : this.listeners) l.add(n);
  }

  /** Marks the listeners whose resync is due; true if any is. */
  shouldResync(now = performance.now()): boolean {
    this.syncing = new Set();
    for (const l of this.listeners) {
      if (l.shouldResync(now)) {
        this.syncing.add(l);
        l.determineNextResync(now);
      }
    }
    return this.syncing.size > 0;
  }

  /** Starts every listener's loop, now and for listeners added later, until signal aborts. */
  run(signal: AbortSignal): void {
    this.signal = signal;
    for (const l of this.listeners) this.startListener(l, signal);
  }

  /** Resolves when every listener loop has ended. */
  async stopped(): Promise<void> {
    for (const l of this.listeners) l.stop();
    await Promise.all([...this.loops]);
  }

  private startListener(l: ProcessorListener<T>, signal: AbortSignal): void {
    const p = l.start(signal);
    this.loops.add(p);
    const forget = (): void => void this.loops.delete(p);
    p.then(forget, forget);
  }
}
