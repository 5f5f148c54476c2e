import type { Logger } from '../log/index.js';

/** Names the object to reconcile; `namespace` is '' for cluster-scoped kinds. */
export interface Request {
  /** The object's namespace; '' for cluster-scoped kinds. */
  namespace: string;
  /** The object's name. */
  name: string;
}

/** What to do after a successful reconcile; the empty result means "done until something changes". */
export interface Result {
  /** Requeue with the queue's rate limit (backoff). Ignored when requeueAfter is set. */
  requeue?: boolean;
  /** Reconcile again after this many milliseconds. */
  requeueAfter?: number;
  /**
   * The priority the request is queued again with, on a requeue or an error (controller-runtime's Result.Priority):
   * higher is reconciled first. Left out, it keeps the priority it was handed out with. Only a controller on the
   * priority queue (the default) orders by it.
   */
  priority?: number;
}

/** Per-reconcile context: aborted on shutdown or reconcile timeout, and a logger already naming the object. */
export interface ReconcileContext {
  /**
   * Aborted when the controller's reconcileTimeout passes, or once it has stopped and its gracefulShutdownTimeout has
   * passed: pass it to long calls.
   */
  signal: AbortSignal;
  /** A logger whose lines carry the request's namespace, name and reconcileID. */
  log: Logger;
  /** A random id of this reconcile, in its log lines (controller-runtime's reconcileID). */
  reconcileID: string;
  /** The controller's name. */
  controller: string;
}

/**
 * What a controller calls for each request (controller-runtime's reconcile.Reconciler); the scaffolded
 * `<kind>_controller.ts` implements it. `R` is the request's type: a Request naming an object by default, or a type
 * of your own (controller-runtime's TypedReconciler), such as `{ cluster, namespace, name }`.
 */
export interface Reconciler<R = Request> {
  /**
   * Brings the cluster towards the desired state of the object named by req. Resolving with nothing or an empty Result
   * forgets the request; a Result asks for a requeue; throwing retries with backoff, except a TerminalError.
   */
  reconcile(req: R, ctx: ReconcileContext): Promise<Result | void>;
}

/** Wraps a function as a Reconciler. */
export function reconcilerFunc<R = Request>(
  fn: (req: R, ctx: ReconcileContext) => Promise<Result | void>,
): Reconciler<R> {
  return { reconcile: fn };
}

/** The queue key for a request: `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function requestKey(req: Request): string {
  // Joined, not concatenated: a queue keeps this key per request, and a join is one flat string where a concatenation
  // is a rope that V8 flattens into a second string (the cache's namespacedKey says more).
  return req.namespace === '' ? req.name : [req.namespace, req.name].join('/');
}

/**
 * The queue key of a request of any type, the default of a typed controller: requestKey for a Request (an object of
 * exactly `namespace` and `name`), and for any other its JSON, members in the order they were written (so build a
 * request type's objects the same way everywhere, or give the controller a requestKey of your own).
 */
export function typedRequestKey(req: unknown): string {
  if (typeof req === 'object' && req !== null) {
    const r = req as Partial<Request>;
    if (typeof r.namespace === 'string' && typeof r.name === 'string') {
      // Counted with for-in, which allocates nothing: this runs on every add, get and done of a queue.
      let members = 0;
      for (const _ in r) members++;
      if (members === 2) return requestKey(r as Request);
    }
  }
  return JSON.stringify(req);
}
