import {
  isDeletedFinalStateUnknown,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
} from '../cache/index.js';
import { waitForCacheSync } from '../cache/index.js';
import type { KubeObject, Resource } from '../rest/types.js';
import type { Request } from '../reconcile/index.js';
import type { EventHandler, Predicate, RequestQueue, Source } from './events.js';
import { LifecycleError } from '../errors.js';
import { LOW_PRIORITY } from '../workqueue/priority-queue.js';
import { onAbort } from '../internal/abort-fanout.js';

/** What a kind source needs from the cache: the kind's (possibly per-namespace) informer. */
export interface InformerProvider {
  /** The informer(s) of the resource, created on first request; the source adds its event handler to it. */
  getInformer<T extends KubeObject>(
    res: Resource<T>,
  ): {
    addEventHandler(h: ResourceEventHandler<T>): ResourceEventHandlerRegistration;
  };
}

/**
 * The queue as handlers see it for events that change nothing, the initial list's creates and resyncs' updates: a
 * request added without a priority gets LOW_PRIORITY, so a real change queued behind a large first list goes first
 * (controller-runtime's handlers do this for every handler when the queue is a priority queue).
 */
function lowPriority<R>(queue: RequestQueue<R>): RequestQueue<R> {
  return {
    add: (req, priority = LOW_PRIORITY) => queue.add(req, priority),
    addAfter: (req, ms, priority = LOW_PRIORITY) => queue.addAfter(req, ms, priority),
  };
}

/**
 * Events on one kind from the shared cache, filtered by predicates and turned into requests by a handler
 * (controller-runtime's source.Kind). Synced once the informer has listed and this handler has seen the list.
 */
export class KindSource<T extends KubeObject, R = Request> implements Source<R> {
  private registration: ResourceEventHandlerRegistration | undefined;

  constructor(
    private readonly cache: InformerProvider,
    readonly resource: Resource<T>,
    private readonly handler: EventHandler<T, R>,
    private readonly predicates: readonly Predicate<T>[] = [],
  ) {}

  async start(signal: AbortSignal, queue: RequestQueue<R>): Promise<void> {
    if (this.registration) throw new LifecycleError(`${String(this)} was already started`, 'AlreadyStarted');
    if (signal.aborted) return;
    const { handler, predicates } = this;
    const unchanged = lowPriority(queue);
    const informer = this.cache.getInformer(this.resource);
    this.registration = informer.addEventHandler({
      onAdd(obj, isInInitialList) {
        const e = { object: obj, isInInitialList };
        if (predicates.every((p) => p.create(e))) handler.create(e, isInInitialList ? unchanged : queue);
      },
      onUpdate(oldObj, newObj) {
        const e = { objectOld: oldObj, objectNew: newObj };
        const same = oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion;
        if (predicates.every((p) => p.update(e))) handler.update(e, same ? unchanged : queue);
      },
      onDelete(obj) {
        const e = isDeletedFinalStateUnknown(obj)
          ? { object: obj.obj, deleteStateUnknown: true }
          : { object: obj, deleteStateUnknown: false };
        if (predicates.every((p) => p.delete(e))) handler.delete(e, queue);
      },
    });
    const reg = this.registration;
    onAbort(signal, () => reg.remove());
  }

  waitForSync(signal: AbortSignal): Promise<boolean> {
    const reg = this.registration;
    if (!reg) return Promise.resolve(false);
    return waitForCacheSync(signal, () => reg.hasSynced());
  }

  toString(): string {
    const r = this.resource;
    return `kind source: ${r.apiVersion}, Kind=${r.kind}`;
  }
}

/**
 * Requests pushed from outside the cluster's watch (controller-runtime's source.Channel): call `trigger(obj)` to
 * deliver a generic event through the handler. Always synced.
 */
export class GenericSource<T extends KubeObject, R = Request> implements Source<R> {
  private queue: RequestQueue<R> | undefined;
  private signal: AbortSignal | undefined;

  constructor(
    private readonly handler: EventHandler<T, R>,
    private readonly predicates: readonly Predicate<T>[] = [],
  ) {}

  async start(signal: AbortSignal, queue: RequestQueue<R>): Promise<void> {
    this.signal = signal;
    this.queue = queue;
  }

  /** Delivers a generic event; a no-op before start or after stop. */
  trigger(obj: T): void {
    if (!this.queue || this.signal?.aborted) return;
    const e = { object: obj };
    if (this.predicates.every((p) => p.generic(e))) this.handler.generic(e, this.queue);
  }

  waitForSync(): Promise<boolean> {
    return Promise.resolve(true);
  }

  toString(): string {
    return 'generic source';
  }
}
