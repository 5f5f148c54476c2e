import { log as rootLog, type Logger } from '../log/index.js';
import { ControllerMetrics } from '../metrics/controller.js';
import { isPanic } from '../panic.js';
import { PermissionLogDedup } from '../rest/forbidden.js';
import { workqueueMetricsProvider, workqueueMetricsProviderForCluster } from '../metrics/workqueue.js';
import { isTerminalError, requestKey, type Reconciler, type Request, type Result } from '../reconcile/index.js';
import { PriorityQueue, RateLimitingQueue, type GetResult, type RateLimiter } from '../workqueue/index.js';
import type { RequestQueue, Source } from './events.js';
import { onAbort, untilAborted } from '../internal/abort-fanout.js';
import { ConfigurationError, LifecycleError, TimeoutError } from '../errors.js';
import {
  ControllerReconcileContext,
  ReconcileID,
  requestLogValues,
  typedRequestLogValues,
} from './reconcile-context.js';

/**
 * Options of a Controller (controller-runtime's controller.Options): its name, reconciler, concurrency, rate limiter
 * and timeouts.
 */
export interface ControllerOptions<R = Request> {
  /** Unique per manager; names the queue, the metrics and the logger. */
  name: string;
  /** What reconciles each request. */
  reconciler: Reconciler<R>;
  /**
   * A typed controller's request identity in the queue, for dedupe and rate limiting (typedRequestKey, the JSON of
   * the request, will do). Without it the requests are Requests, keyed `namespace/name`, and queued as only their
   * namespace and name.
   */
  requestKey?: (req: R) => string;
  /** Workers reconciling different keys at once; one key is never reconciled twice at once. Default 1. */
  maxConcurrentReconciles?: number;
  /** Backoff for errors and `requeue: true`; it sees each request's key (`namespace/name`). Default: client-go's MaxOf(exponential 5 ms..1000 s, bucket 10 qps/100). */
  rateLimiter?: RateLimiter;
  /** How long start() waits for every source's initial list before failing (ms). Default 120000, as controller-runtime. */
  cacheSyncTimeout?: number;
  /** Aborts a reconcile's signal after this long (ms); 0 disables. Default 0. */
  reconcileTimeout?: number;
  /**
   * After stop, how long in-flight reconciles may run on before their signals are aborted (ms). Default 30000.
   * The manager passes its gracefulShutdownTimeout.
   */
  gracefulShutdownTimeout?: number;
  /** Whether the controller runs only on the elected leader. Default true. */
  needLeaderElection?: boolean;
  /** Group and kind of the reconciled object, for log keys. */
  forKind?: { group: string; kind: string };
  /** Parent logger; the controller adds controller=<name>. Default: the root logger. */
  log?: Logger;
  /** Record controller-runtime's metrics in the shared registry. Default true. */
  recordMetrics?: boolean;
  /**
   * Queue requests on controller-runtime's priority queue, its default since v0.23: real changes are reconciled
   * before the initial list's requests and resyncs' (LOW_PRIORITY), and a Result may set a requeue's priority. False
   * gives client-go's first-in first-out rate-limiting queue. Default true.
   */
  usePriorityQueue?: boolean;
  /**
   * Decides, just before each reconcile, whether this replica may reconcile the request (a shard ring's gate: only
   * the replica holding the object's partition does). A request not admitted is dropped. Only for Requests.
   */
  gate?: R extends Request ? RequestGate : never;
  /**
   * The cluster this controller reconciles in, when it is one engaged cluster's instance of a multi-cluster
   * controller: its metrics and its queue's carry it as their `cluster` label. Default none.
   */
  cluster?: string;
}

/** One reconcile let through a RequestGate. */
export interface Admission {
  /** Runs the reconcile (so that its writes can be fenced). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Called once the reconcile has finished. */
  leave(): void;
}

/**
 * The queue a controller's workers take requests from: its own RateLimitingQueue, or the one its RequestGate makes
 * (a sharded controller's: one per partition).
 */
export interface ControllerQueue<R = Request> {
  /** Queues req (dedupes a request already waiting); a priority queue keeps the higher priority. */
  add(req: R, priority?: number): void;
  /** Queues req after ms. */
  addAfter(req: R, ms: number, priority?: number): void;
  /** Queues req once the rate limiter allows it. */
  addRateLimited(req: R, priority?: number): void;
  /** Clears req's failure history. */
  forget(req: R): void;
  /** The next request (with its priority, on a priority queue), or shutdown. */
  get(): Promise<GetResult<R> & { priority?: number }>;
  /** Ends processing of req. */
  done(req: R): void;
  /** Stops handing out requests once those queued are out. */
  shutDown(): void;
}

/** What a RequestGate needs to make a controller's queue: what the controller would make its own with. */
export interface GateQueueOptions {
  /** The controller's name. */
  name: string;
  /** A request's identity in the queue (`namespace/name`). */
  keyOf: (req: Request) => string;
  /** Whether to record workqueue metrics. */
  recordMetrics: boolean;
  /** Whether the controller's queue orders by priority (ControllerOptions.usePriorityQueue). */
  usePriorityQueue: boolean;
  /** The controller's rate limiter, when it was given one. */
  rateLimiter?: RateLimiter;
}

/** Lets a request be reconciled on this replica, or not (sharding). */
export interface RequestGate {
  /** An Admission if this replica reconciles `req` now; undefined drops it. */
  admit(req: Request): Admission | undefined;
  /** Makes the controller's queue at start; the gate queues requests in it when it opens to them. */
  newQueue(opts: GateQueueOptions): ControllerQueue;
}

const DEFAULT_CACHE_SYNC_TIMEOUT = 120_000;
// How long a worker may go on reconciling without letting timers and I/O run.
const YIELD_EVERY_MS = 10;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT = 30_000;

/**
 * A controller: sources fill a rate-limited queue of requests, workers take them off it and reconcile them.
 * Mirrors controller-runtime's internal Controller, including how results map onto the queue.
 */
export class Controller<R = Request> {
  /** The controller's name, unique per manager (the controller label of its metrics and logs). */
  readonly name: string;
  /** The controller's logger (controller=<name>, plus the kind when known). */
  readonly log: Logger;
  private readonly reconciler: Reconciler<R>;
  /** Workers reconciling at once. */
  readonly maxConcurrentReconciles: number;
  private readonly cacheSyncTimeout: number;
  private readonly reconcileTimeout: number;
  private readonly gracefulShutdownTimeout: number;
  private readonly leaderElected: boolean;
  private readonly rateLimiter: RateLimiter | undefined;
  private readonly recordMetrics: boolean;
  private readonly gate: RequestGate | undefined;
  private readonly cluster: string | undefined;
  /** Whether the queue orders by priority (ControllerOptions.usePriorityQueue). */
  readonly usePriorityQueue: boolean;
  private readonly sources: Source<R>[] = [];
  private readonly keyOf: (req: R) => string;
  private readonly copyRequest: (req: R) => R;
  private readonly logValues: (req: R, ids: ReconcileID) => Record<string, unknown>;
  private readonly permissionLog = new PermissionLogDedup();
  private queue: ControllerQueue<R> | undefined;
  private metrics: ControllerMetrics | undefined;
  private runSignal: AbortSignal | undefined;
  private stopping = false;
  // Aborted when in-flight reconciles must give up (graceful timeout passed).
  private readonly hardStop = new AbortController();
  private started = false;

  constructor(opts: ControllerOptions<R>) {
    if (opts.name === '') throw new ConfigurationError('a controller needs a name');
    const workers = opts.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1)
      throw new ConfigurationError(`maxConcurrentReconciles must be a positive integer, got ${workers}`);
    this.name = opts.name;
    this.reconciler = opts.reconciler;
    this.maxConcurrentReconciles = workers;
    this.cacheSyncTimeout = opts.cacheSyncTimeout ?? DEFAULT_CACHE_SYNC_TIMEOUT;
    this.reconcileTimeout = opts.reconcileTimeout ?? 0;
    this.gracefulShutdownTimeout = opts.gracefulShutdownTimeout ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT;
    this.leaderElected = opts.needLeaderElection ?? true;
    this.rateLimiter = opts.rateLimiter;
    this.recordMetrics = opts.recordMetrics ?? true;
    this.gate = opts.gate as RequestGate | undefined;
    this.cluster = opts.cluster;
    // A request key makes the controller a typed one: its requests are queued whole (frozen copies).
    this.keyOf = opts.requestKey ?? (QueuedRequest.keyOf as unknown as (req: R) => string);
    this.copyRequest = opts.requestKey ? frozenCopy : (queuedRequest as unknown as (req: R) => R);
    this.logValues = opts.requestKey
      ? (typedRequestLogValues as (req: R, ids: ReconcileID) => Record<string, unknown>)
      : (requestLogValues as unknown as (req: R, ids: ReconcileID) => Record<string, unknown>);
    this.usePriorityQueue = opts.usePriorityQueue ?? true;
    const kv: Record<string, unknown> = { controller: opts.name };
    if (opts.forKind) {
      kv.controllerGroup = opts.forKind.group;
      kv.controllerKind = opts.forKind.kind;
    }
    this.log = (opts.log ?? rootLog).withValues(kv);
  }

  /** Adds a source. Before start it is started with the others; after start it is started at once. */
  watch(source: Source<R>): Promise<void> {
    this.sources.push(source);
    if (!this.started || this.runSignal === undefined || this.queue === undefined) return Promise.resolve();
    return source.start(this.runSignal, this.requestQueue(this.queue));
  }

  needLeaderElection(): boolean {
    return this.leaderElected;
  }

  /**
   * Starts the sources, waits for their caches, runs the workers, and resolves once stopped: after `signal` aborts,
   * no new reconcile begins, in-flight ones finish (their signals abort after gracefulShutdownTimeout), then it returns.
   * Rejects if the caches do not sync within cacheSyncTimeout.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new LifecycleError(`controller ${this.name} was already started`, 'AlreadyStarted');
    this.started = true;
    if (signal.aborted) return;
    // Sources stop with the controller, also when start fails before the signal aborts.
    const sourcesRun = new AbortController();
    const stopSources = (): void => sourcesRun.abort();
    const unregisterStopSources = onAbort(signal, stopSources);
    this.runSignal = sourcesRun.signal;
    // The queue holds typed requests; requestKey (namespace/name) is only its identity for dedupe and rate limiting.
    const queueOptions = {
      name: this.name,
      keyOf: this.keyOf,
      ...(this.recordMetrics
        ? {
            metricsProvider:
              this.cluster === undefined ? workqueueMetricsProvider : workqueueMetricsProviderForCluster(this.cluster),
          }
        : {}),
      ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
    };
    const queue: ControllerQueue<R> = this.gate
      ? (this.gate.newQueue({
          name: this.name,
          keyOf: this.keyOf as unknown as (req: Request) => string,
          recordMetrics: this.recordMetrics,
          usePriorityQueue: this.usePriorityQueue,
          ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
        }) as unknown as ControllerQueue<R>)
      : this.usePriorityQueue
        ? new PriorityQueue<R>(queueOptions)
        : new RateLimitingQueue<R>(queueOptions);
    this.queue = queue;
    if (this.recordMetrics)
      this.metrics = new ControllerMetrics(this.name, this.maxConcurrentReconciles, this.cluster ?? '');
    const shutDown = (): void => {
      this.stopping = true;
      queue.shutDown();
    };
    const unregisterShutDown = onAbort(signal, shutDown);
    try {
      this.log.info('Starting EventSource', { sources: this.sources.map(String) });
      for (const s of [...this.sources]) await s.start(sourcesRun.signal, this.requestQueue(queue));
      await this.waitForSync(signal);
      if (signal.aborted) return;
      this.log.info('Starting workers', { workerCount: this.maxConcurrentReconciles });
      const workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.worker(queue));
      await this.drain(signal, Promise.all(workers));
      this.log.info('All workers finished');
    } finally {
      unregisterShutDown();
      unregisterStopSources();
      shutDown();
      stopSources();
    }
  }

  private async waitForSync(signal: AbortSignal): Promise<void> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.cacheSyncTimeout);
    const either = AbortSignal.any([signal, timeout.signal]);
    try {
      for (const s of this.sources) {
        const synced = await s.waitForSync(either);
        if (signal.aborted) return;
        if (!synced)
          throw new TimeoutError(
            `controller ${this.name}: timed out after ${this.cacheSyncTimeout} ms waiting for ${String(s)} to sync`,
          );
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the workers; once stopping, gives in-flight reconciles gracefulShutdownTimeout before aborting them. */
  private async drain(signal: AbortSignal, workers: Promise<unknown>): Promise<void> {
    await Promise.race([workers, untilAborted(signal)]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.gracefulShutdownTimeout);
    });
    try {
      const finished = await Promise.race([workers.then(() => true), timedOut.then(() => false)]);
      if (!finished) {
        this.log.info('Graceful shutdown timed out; aborting in-flight reconciles', {
          timeoutMs: this.gracefulShutdownTimeout,
        });
        this.hardStop.abort(new TimeoutError('graceful shutdown timed out'));
        await workers;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private requestQueue(queue: ControllerQueue<R>): RequestQueue<R> {
    return {
      add: (req, priority) => queue.add(this.copyRequest(req), priority),
      addAfter: (req, ms, priority) => queue.addAfter(this.copyRequest(req), ms, priority),
    };
  }

  private async worker(queue: ControllerQueue<R>): Promise<void> {
    let ranSince = performance.now();
    // The clock as of the last reconcile's end (the time it took is measured anyway): one reading less per reconcile.
    let now = ranSince;
    for (;;) {
      // Reconciles that read only the cache chain as microtasks: without a turn of the event loop now and then, a
      // first pass would hold it until the queue is empty, and nothing else would run meanwhile: no watch event would
      // be read (so no edit could go ahead of the initial list), no Lease renewed, no probe answered.
      if (now - ranSince > YIELD_EVERY_MS) {
        await yieldToEventLoop();
        ranSince = now = performance.now();
      }
      const next = await queue.get();
      if (next.shutdown) return;
      const req = next.item;
      try {
        // After stop, items still queued are handed out; they are dropped rather than reconciled.
        if (this.stopping) continue;
        const admission = this.gate?.admit(req as Request);
        if (this.gate && !admission) {
          // Its partition closed after the request was queued (a handover, or the term ended).
          queue.forget(req);
          now = performance.now();
          continue;
        }
        this.metrics?.active.inc();
        try {
          now = await (admission
            ? admission.run(() => this.reconcileHandler(queue, req, next.priority))
            : this.reconcileHandler(queue, req, next.priority));
        } finally {
          this.metrics?.active.dec();
          admission?.leave();
        }
      } catch (err) {
        // reconcileHandler catches the reconciler's errors; this guards against our own bugs killing a worker.
        this.log.error(err, 'Unexpected error in controller worker', { request: this.keyOf(req) });
      } finally {
        queue.done(req);
      }
    }
  }

  /** Reconciles req and queues what its result asks for; resolves with the clock's reading when the reconcile ended. */
  private async reconcileHandler(queue: ControllerQueue<R>, req: R, handedOutWith?: number): Promise<number> {
    // The reconcile's id (controller-runtime's reconcileID) is made when first read, by the reconciler or a log line.
    const ids = new ReconcileID();
    const log = this.log.withValues(this.logValues(req, ids));
    const started = performance.now();
    const { result, error, timedOut } = await this.invoke(req, log, ids);
    const ended = performance.now();
    this.metrics?.time.observe((ended - started) / 1000);
    if (timedOut) this.metrics?.timeouts.inc();
    // A requeue keeps the priority the request was handed out with, unless the result names one.
    const priority = result.priority ?? handedOutWith;

    if (error !== undefined) {
      if (isPanic(error)) this.metrics?.panics.inc();
      this.metrics?.errors.inc();
      this.metrics?.total.error.inc();
      if (isTerminalError(error)) {
        // Retrying cannot help; forget the failure history so the next real change starts without backoff.
        this.metrics?.terminalErrors.inc();
        queue.forget(req);
      } else {
        queue.addRateLimited(req, priority);
      }
      // A missing RBAC permission fails every retry the same way: say so once, with what is missing.
      const missing = this.permissionLog.note(error);
      if (missing && !missing.first)
        log.debug('Reconciler error (missing permission, logged before)', { error: (error as Error).message });
      else log.error(error, 'Reconciler error', missing ? { permission: missing.permission } : undefined);
      return ended;
    }
    const after = result.requeueAfter;
    if (after !== undefined && Number.isFinite(after) && after > 0) {
      queue.forget(req);
      queue.addAfter(req, after, priority);
      this.metrics?.total.requeue_after.inc();
    } else if (result.requeue === true) {
      queue.addRateLimited(req, priority);
      this.metrics?.total.requeue.inc();
    } else {
      queue.forget(req);
      this.metrics?.total.success.inc();
    }
    return ended;
  }

  /** Runs the reconciler with its own signal; a throw, a rejection or a non-Error thrown value all become `error`. */
  private async invoke(
    req: R,
    log: Logger,
    ids: ReconcileID,
  ): Promise<{ result: Result; error?: unknown; timedOut: boolean }> {
    const ctx = new ControllerReconcileContext(log, this.name, ids, this.hardStop.signal);
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (this.reconcileTimeout > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        ctx.abort(new TimeoutError(`reconcile timed out after ${this.reconcileTimeout} ms`));
      }, this.reconcileTimeout);
    }
    try {
      const out = await this.reconciler.reconcile(req, ctx);
      return { result: out ?? {}, timedOut };
    } catch (err) {
      return { result: {}, error: err ?? new TypeError('reconciler threw a nullish value'), timedOut };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      ctx.release();
    }
  }
}

/**
 * A Request as the queue holds it: only its namespace and name, frozen, so that a reconciler changing the object it
 * was given cannot change the queue's identity for it (controller-runtime's queue holds reconcile.Request by value).
 * Its queue key is made once: the queue, its metrics and the rate limiter ask for it on every add, get, forget and
 * done, and a key made anew each time is a new string to flatten and hash.
 */
class QueuedRequest implements Request {
  readonly namespace: string;
  readonly name: string;
  readonly #key: string;

  constructor(req: Request) {
    this.namespace = req.namespace;
    this.name = req.name;
    this.#key = requestKey(req);
    Object.freeze(this);
  }

  /** The queue key of a Request: the one a QueuedRequest carries, else requestKey's. */
  static keyOf(req: Request): string {
    return #key in req ? req.#key : requestKey(req);
  }
}

function queuedRequest(req: Request): Request {
  return new QueuedRequest(req);
}

/** A typed request as the queue holds it: a frozen shallow copy. */
function frozenCopy<R>(req: R): R {
  return typeof req === 'object' && req !== null ? Object.freeze({ ...req }) : req;
}
