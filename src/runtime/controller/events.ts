import type { KubeObject } from '../rest/types.js';
import type { Request } from '../reconcile/index.js';

// controller-runtime's event, predicate, handler and source shapes (pkg/event, pkg/predicate, pkg/handler,
// pkg/source), kept side by side because each is a few lines.

/**
 * An object was created, or listed by the informer's initial list (controller-runtime's event.CreateEvent). See the
 * guide [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
 */
export interface CreateEvent<T extends KubeObject = KubeObject> {
  /** The object created (or listed). */
  object: T;
  /** True for objects delivered by the informer's initial list rather than by a watch event. */
  isInInitialList?: boolean;
}
/**
 * An object changed, with its old and new state (event.UpdateEvent). See the guide [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
 */
export interface UpdateEvent<T extends KubeObject = KubeObject> {
  /** The object before the change. */
  objectOld: T;
  /** The object after the change. */
  objectNew: T;
}
/**
 * An object was deleted (event.DeleteEvent). A watch that missed the delete leaves the informer a tombstone
 * (DeletedFinalStateUnknown); the kind source unwraps it into `object` and sets `deleteStateUnknown`. See the guide
 * [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
 */
export interface DeleteEvent<T extends KubeObject = KubeObject> {
  /** The object deleted, in its last known state. */
  object: T;
  /** The delete was inferred from a relist; `object` is the last state the cache saw. */
  deleteStateUnknown: boolean;
}
/** An event from outside the cluster's watches, e.g. a channel source (event.GenericEvent). */
export interface GenericEvent<T extends KubeObject = KubeObject> {
  /** The object the event is about. */
  object: T;
}

/**
 * Where handlers put requests: the controller's queue, seen through what handlers may do with it. `priority` matters
 * to a controller on the priority queue (the default): higher is reconciled first. Left out, a request from the
 * informer's initial list or from a resync that changed nothing gets LOW_PRIORITY (-100), any other 0, as
 * controller-runtime's handlers do.
 */
export interface RequestQueue<R = Request> {
  /** Queues the request (once, however often it is added before a worker takes it). */
  add(req: R, priority?: number): void;
  /** Queues the request after delayMs. */
  addAfter(req: R, delayMs: number, priority?: number): void;
}

/**
 * Filters events before they reach a handler; an event passes only if every predicate returns true. See the guide
 * [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  /** Whether a create event passes. */
  create(e: CreateEvent<T>): boolean;
  /** Whether an update event passes. */
  update(e: UpdateEvent<T>): boolean;
  /** Whether a delete event passes. */
  delete(e: DeleteEvent<T>): boolean;
  /** Whether a generic event passes. */
  generic(e: GenericEvent<T>): boolean;
}

/**
 * Turns events into requests (of type R: a Request by default, or a typed controller's own); an object with these
 * four methods is a handler (controller-runtime's handler.TypedFuncs). See the guide [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md)
 * for one that compares an update's old and new object and keeps a deleted object's last state.
 */
export interface EventHandler<T extends KubeObject = KubeObject, R = Request> {
  /** Queues the requests a create event maps to. */
  create(e: CreateEvent<T>, q: RequestQueue<R>): void;
  /** Queues the requests an update event maps to. */
  update(e: UpdateEvent<T>, q: RequestQueue<R>): void;
  /** Queues the requests a delete event maps to. */
  delete(e: DeleteEvent<T>, q: RequestQueue<R>): void;
  /** Queues the requests a generic event maps to. */
  generic(e: GenericEvent<T>, q: RequestQueue<R>): void;
}

/** Something that feeds a controller's queue: a watch on a kind, a channel of generic events, a timer. */
export interface Source<R = Request> {
  /** Starts delivering into `queue`; returns once delivery is set up. Delivery stops when `signal` aborts. */
  start(signal: AbortSignal, queue: RequestQueue<R>): Promise<void>;
  /** Resolves true once the initial state has been delivered, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** For logs and errors, e.g. `kind source: crew.example.com/v1, Kind=Captain`. */
  toString(): string;
}
