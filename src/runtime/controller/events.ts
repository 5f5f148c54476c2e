import type { KubeObject } from '../rest/types.js';
import type { Request } from '../reconcile/index.js';

// controller-runtime's event, predicate, handler and source shapes (pkg/event, pkg/predicate, pkg/handler,
// pkg/source), kept side by side because each is a few lines.

export interface CreateEvent<T extends KubeObject = KubeObject> {
  object: T;
  /** True for objects delivered by the informer's initial list rather than by a watch event. */
  isInInitialList?: boolean;
}
export interface UpdateEvent<T extends KubeObject = KubeObject> {
  objectOld: T;
  objectNew: T;
}
export interface DeleteEvent<T extends KubeObject = KubeObject> {
  object: T;
  /** The delete was inferred from a relist; `object` is the last state the cache saw. */
  deleteStateUnknown: boolean;
}
export interface GenericEvent<T extends KubeObject = KubeObject> {
  object: T;
}

/** Where handlers put requests: the controller's queue, seen through what handlers may do with it. */
export interface RequestQueue {
  add(req: Request): void;
  addAfter(req: Request, delayMs: number): void;
}

/** Filters events before they reach a handler; an event passes only if every predicate returns true. */
export interface Predicate<T extends KubeObject = KubeObject> {
  create(e: CreateEvent<T>): boolean;
  update(e: UpdateEvent<T>): boolean;
  delete(e: DeleteEvent<T>): boolean;
  generic(e: GenericEvent<T>): boolean;
}

/** Turns events into requests. */
export interface EventHandler<T extends KubeObject = KubeObject> {
  create(e: CreateEvent<T>, q: RequestQueue): void;
  update(e: UpdateEvent<T>, q: RequestQueue): void;
  delete(e: DeleteEvent<T>, q: RequestQueue): void;
  generic(e: GenericEvent<T>, q: RequestQueue): void;
}

/** Something that feeds a controller's queue: a watch on a kind, a channel of generic events, a timer. */
export interface Source {
  /** Starts delivering into `queue`; returns once delivery is set up. Delivery stops when `signal` aborts. */
  start(signal: AbortSignal, queue: RequestQueue): Promise<void>;
  /** Resolves true once the initial state has been delivered, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** For logs and errors, e.g. `kind source: crew.example.com/v1, Kind=Captain`. */
  toString(): string;
}
