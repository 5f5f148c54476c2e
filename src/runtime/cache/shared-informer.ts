import { log as rootLog, type Logger } from '../log/index.js';
import type { KubeObject } from '../rest/types.js';
import { DeltaFIFO, type DeltaType, type Deltas, type TransformFunc } from './delta-fifo.js';
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc, type KeyFunc } from './keys.js';
import type { ListerWatcher } from './listwatch.js';
import { ProcessorListener, SharedProcessor, type ResourceEventHandler } from './listener.js';
import { Reflector, type ReflectorOptions, type ReflectorStore } from './reflector.js';
import { compactObjects } from './transforms.js';
import { Cache, NAMESPACE_INDEX, metaNamespaceIndexFunc, type Indexer, type Indexers, type Store } from './store.js';
import { LifecycleError } from '../errors.js';
import { onAbort } from '../internal/abort-fanout.js';

/** client-go's minimum handler resync period. */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;

/** Options of a SharedIndexInformer: name, resync period, indexers, transform, key function, reflector settings. */
export interface SharedIndexInformerOptions<T extends KubeObject> {
  /** Names the informer in logs. */
  name?: string;
  /** Default resync period for handlers that give none (ms); 0 (default) means no resync. */
  resyncPeriodMs?: number;
  /** Extra indexes; the namespace index is always there. */
  indexers?: Indexers<T>;
  /**
   * Applied to each object before it is cached, e.g. stripManagedFields. By default `compactObjects({
   * stripManagedFields: false })`: objects stay as served, with equal strings and managed field sets shared, which
   * roughly halves their heap. null caches the objects exactly as parsed.
   */
  transform?: TransformFunc<T> | null;
  /** Computes an object's store key; default metaNamespaceKeyFunc. */
  keyFunc?: KeyFunc<T | DeletedFinalStateUnknown<T>>;
  /** Passed to the Reflector (page size, watch timeouts, idle bound, WatchList, backoff). */
  reflector?: Omit<ReflectorOptions<T>, 'name' | 'resyncPeriodMs' | 'shouldResync' | 'logger' | 'transform'>;
  /** Parent logger; default the root logger. */
  logger?: Logger;
}

/** Options of one addEventHandler call (client-go's AddEventHandlerWithResyncPeriod). */
export interface HandlerOptions {
  /** This handler's resync period (ms); at least 1 s; 0 for none. Defaults to the informer's. */
  resyncPeriodMs?: number;
}

/** Returned by addEventHandler: whether this handler has seen the initial state, and how to remove it. */
export interface ResourceEventHandlerRegistration {
  /** True once this handler has been handed every object of the informer's initial list. */
  hasSynced(): boolean;
  /** Removes the handler: it gets no more notifications. */
  remove(): void;
}

// Process this many deltas, then let I/O and listeners run.
const YIELD_EVERY = 1000;

/**
 * client-go's SharedIndexInformer: one Reflector → DeltaFIFO → Indexer pipeline, shared by any number of handlers,
 * each fed through its own buffered listener. run(signal) drives it until the signal aborts.
 */
export class SharedIndexInformer<T extends KubeObject> {
  private readonly indexer: Cache<T>;
  private readonly processor = new SharedProcessor<T>();
  private readonly log: Logger;
  private readonly name: string;
  private readonly defaultResyncMs: number;
  private resyncCheckPeriodMs: number;
  private transform: TransformFunc<T> | undefined;
  private readonly keyFunc: KeyFunc<T | DeletedFinalStateUnknown<T>>;
  private fifo: DeltaFIFO<T> | undefined;
  private reflector: Reflector<T> | undefined;
  private started = false;
  private stopped = false;
  private watchErrorHandler: ((err: unknown) => void) | undefined;

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly opts: SharedIndexInformerOptions<T> = {},
  ) {
    this.name = opts.name ?? 'informer';
    this.keyFunc = opts.keyFunc ?? (metaNamespaceKeyFunc as KeyFunc<T | DeletedFinalStateUnknown<T>>);
    this.indexer = new Cache<T>(this.keyFunc, { [NAMESPACE_INDEX]: metaNamespaceIndexFunc, ...opts.indexers });
    this.defaultResyncMs = opts.resyncPeriodMs ?? 0;
    this.resyncCheckPeriodMs = this.defaultResyncMs;
    this.transform =
      opts.transform === undefined ? compactObjects<T>({ stripManagedFields: false }) : (opts.transform ?? undefined);
    this.log = opts.logger ?? rootLog.withName('informer').withValues({ informer: this.name });
  }

  /**
   * Adds a handler. Before run() it sees the initial list as adds; after, it first gets an add for every cached
   * object (isInInitialList true). A handler that throws is logged and keeps receiving events.
   */
  addEventHandler(handler: ResourceEventHandler<T>, hopts: HandlerOptions = {}): ResourceEventHandlerRegistration {
    if (this.stopped)
      throw new LifecycleError(`informer ${this.name} has stopped; handlers can no longer be added`, 'Stopped');
    let resync = hopts.resyncPeriodMs ?? this.defaultResyncMs;
    if (resync > 0 && resync < MINIMUM_RESYNC_PERIOD_MS) resync = MINIMUM_RESYNC_PERIOD_MS;
    if (resync > 0 && resync < this.resyncCheckPeriodMs) {
      if (this.started) {
        // The reflector's resync timer is already running; the handler cannot get more frequent resyncs.
        resync = this.resyncCheckPeriodMs;
      } else {
        this.resyncCheckPeriodMs = resync;
      }
    } else if (resync > 0 && this.resyncCheckPeriodMs === 0) {
      if (this.started) {
        this.log.info('the informer runs without resync; the handler gets none', { requestedMs: resync });
        resync = 0;
      } else {
        this.resyncCheckPeriodMs = resync;
      }
    }
    const listener = new ProcessorListener<T>(handler, resync, this.log);
    listener.determineNextResync(performance.now());
    listener.setUpstreamSynced(() => this.hasSynced());
    this.processor.addListener(listener);
    // Catch the late handler up on the current state before any newer change reaches it.
    if (this.started) for (const obj of this.indexer.list()) listener.add({ kind: 'add', obj, isInInitialList: true });
    return {
      hasSynced: () => listener.hasSynced(),
      remove: () => this.processor.removeListener(listener),
    };
  }

  removeEventHandler(reg: ResourceEventHandlerRegistration): void {
    reg.remove();
  }

  /** Sets the transform applied before caching (null for none); only before run(). */
  setTransform(fn: TransformFunc<T> | null): void {
    if (this.started) throw new LifecycleError(`informer ${this.name} has already started`, 'AlreadyStarted');
    this.transform = fn ?? undefined;
  }

  /** Replaces the default (logging) handling of list and watch errors; only before run(). */
  setWatchErrorHandler(fn: (err: unknown) => void): void {
    if (this.started) throw new LifecycleError(`informer ${this.name} has already started`, 'AlreadyStarted');
    this.watchErrorHandler = fn;
  }

  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  getStore(): Store<T> {
    return this.indexer;
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  /** True once the first list is in the cache. */
  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  hasStarted(): boolean {
    return this.started;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  /** Whether its watch is open now (false before it runs, while it lists, and while it backs off after a failure). */
  isWatching(): boolean {
    return this.reflector?.isWatching() ?? false;
  }

  /** Retries its list or watch at once, its backoff started over (Reflector.retryNow). */
  retryNow(): void {
    this.reflector?.retryNow();
  }

  /**
   * Lists, watches and delivers until signal aborts; resolves after every loop, request and timer has ended.
   * An informer runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new LifecycleError(`informer ${this.name} has already been started`, 'AlreadyStarted');
    this.started = true;
    // The reflector applies the transform where objects enter (list items as they are decoded), so the queue does not.
    const fifo = new DeltaFIFO<T>({
      keyFunction: this.keyFunc,
      knownObjects: this.indexer,
      emitDeltaTypeReplaced: true,
    });
    this.fifo = fifo;
    const reflector = new Reflector<T>(this.lw, this.storeOver(fifo), {
      ...this.opts.reflector,
      name: this.name,
      resyncPeriodMs: this.resyncCheckPeriodMs,
      shouldResync: () => this.processor.shouldResync(),
      logger: this.log,
      onError: this.watchErrorHandler,
      ...(this.transform ? { transform: this.transform } : {}),
    });
    this.reflector = reflector;
    const unregister = onAbort(signal, () => fifo.close());
    if (signal.aborted) fifo.close();
    this.processor.run(signal);
    try {
      await Promise.all([reflector.run(signal), this.processLoop(fifo, signal)]);
    } finally {
      unregister();
      fifo.close();
      this.stopped = true;
      await this.processor.stopped();
    }
  }

  /**
   * What the reflector writes to: the queue, except for a list that comes while nothing is known or queued (the first
   * list, or one after every object went): its items go to the indexer and the handlers at once, in the order the
   * queue would hand them out, without a Delta each. Nothing can come between, as the reflector starts its watch after
   * the list is in, and a delete that follows finds the object known.
   */
  private storeOver(fifo: DeltaFIFO<T>): ReflectorStore<T> {
    return {
      add: (obj) => fifo.add(obj),
      update: (obj) => fifo.update(obj),
      delete: (obj) => fifo.delete(obj),
      resync: () => fifo.resync(),
      replace: (items, resourceVersion) => {
        if (fifo.length > 0 || this.indexer.size > 0) return fifo.replace(items, resourceVersion);
        const isInInitialList = !fifo.hasSynced();
        for (const obj of items) {
          try {
            this.store(obj, 'Replaced', isInInitialList);
          } catch (e) {
            this.log.error(e, 'could not process deltas');
          }
        }
        fifo.markPopulated();
      },
    };
  }

  private async processLoop(fifo: DeltaFIFO<T>, signal: AbortSignal): Promise<void> {
    const process = (deltas: Deltas<T>, isInInitialList: boolean): void => {
      try {
        this.handleDeltas(deltas, isInInitialList);
      } catch (e) {
        // Only a malformed object (say, without a name) gets here; dropping it must not stop the informer.
        this.log.error(e, 'could not process deltas');
      }
    };
    while (!signal.aborted) {
      let n = 0;
      while (!signal.aborted && fifo.tryPop(process)) {
        if (++n >= YIELD_EVERY) {
          n = 0;
          await new Promise((r) => setImmediate(r));
        }
      }
      if (signal.aborted || !(await fifo.waitForItems())) return;
    }
  }

  // client-go's processDeltas: apply each delta to the indexer and tell the handlers.
  private handleDeltas(deltas: Deltas<T>, isInInitialList: boolean): void {
    for (const d of deltas) {
      const obj = d.object;
      if (d.type === 'Deleted') {
        this.indexer.delete(obj);
        this.processor.distribute({ kind: 'delete', obj }, false);
        continue;
      }
      this.store(obj as T, d.type, isInInitialList);
    }
  }

  // Puts the object in the indexer and tells the handlers: an add, or an update of what it replaced.
  private store(cur: T, type: DeltaType, isInInitialList: boolean): void {
    const old = this.indexer.put(cur);
    if (old === undefined) {
      this.processor.distribute({ kind: 'add', obj: cur, isInInitialList }, false);
      return;
    }
    // A Replaced delta with an unchanged resourceVersion is a resync in disguise: only due handlers hear it.
    const isSync =
      type === 'Sync' ||
      (type === 'Replaced' &&
        old.metadata?.resourceVersion !== undefined &&
        old.metadata.resourceVersion === cur.metadata?.resourceVersion);
    this.processor.distribute({ kind: 'update', oldObj: old, newObj: cur }, isSync);
  }
}
