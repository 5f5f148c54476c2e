import { log } from '../log/index.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { parseApiVersion } from '../rest/resource.js';
import { requestKey, typedRequestKey, type Request } from '../reconcile/index.js';
import type { EventHandler, RequestQueue } from './events.js';

function requestFor(obj: KubeObject): Request | undefined {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') return undefined;
  return { namespace: obj.metadata?.namespace ?? '', name };
}

/** Enqueues the object that changed (controller-runtime's EnqueueRequestForObject); what `for()` uses. */
export function enqueueRequestForObject<T extends KubeObject = KubeObject>(): EventHandler<T> {
  const add = (obj: T, q: RequestQueue): void => {
    const req = requestFor(obj);
    if (req) q.add(req);
  };
  return {
    create: (e, q) => add(e.object, q),
    update: (e, q) => add(e.objectNew, q),
    delete: (e, q) => add(e.object, q),
    generic: (e, q) => add(e.object, q),
  };
}

/**
 * Enqueues the owners of type `ownerType` named in the object's ownerReferences (old and new object on update, so
 * an ownership change reaches both owners). With onlyController, only the owner marked controller: true.
 */
export function enqueueRequestForOwner<T extends KubeObject = KubeObject>(
  ownerType: Pick<Resource, 'group' | 'kind' | 'namespaced'>,
  opts: { onlyController?: boolean } = {},
): EventHandler<T> {
  const owners = (obj: T, into: Map<string, Request>): void => {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (ref.kind !== ownerType.kind || parseApiVersion(ref.apiVersion).group !== ownerType.group) continue;
      if (opts.onlyController && ref.controller !== true) continue;
      // An owner of a namespaced object lives in its namespace; cluster-scoped owners have none.
      const req = { namespace: ownerType.namespaced ? (obj.metadata?.namespace ?? '') : '', name: ref.name };
      into.set(requestKey(req), req);
    }
  };
  const enqueue = (q: RequestQueue, ...objs: T[]): void => {
    const reqs = new Map<string, Request>();
    for (const o of objs) owners(o, reqs);
    for (const r of reqs.values()) q.add(r);
  };
  return {
    create: (e, q) => enqueue(q, e.object),
    update: (e, q) => enqueue(q, e.objectOld, e.objectNew),
    delete: (e, q) => enqueue(q, e.object),
    generic: (e, q) => enqueue(q, e.object),
  };
}

/**
 * Maps an object to the requests to reconcile for it (controller-runtime's handler.MapFunc); may be async. A typed
 * controller's map function returns its own request type R.
 */
export type MapFunc<T extends KubeObject = KubeObject, R = Request> = (obj: T) => R[] | Promise<R[]>;

/**
 * Enqueues whatever requests `map` returns for the object (old and new on update, each mapped alone: a handler that
 * compares them is an EventHandler of your own, as in the guide [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md)).
 * An async map function's failure is reported to `onError` and its requests dropped; the next event maps again.
 * Requests are told apart by `keyOf` (typedRequestKey: namespace/name for a Request).
 */
export function enqueueRequestsFromMapFunc<T extends KubeObject = KubeObject, R = Request>(
  map: MapFunc<T, R>,
  onError: (err: unknown) => void = (err) =>
    log.withName('handler').error(err, 'map function failed; its requests were dropped'),
  keyOf: (req: R) => string = typedRequestKey,
): EventHandler<T, R> {
  const enqueue = (q: RequestQueue<R>, ...objs: T[]): void => {
    const seen = new Set<string>();
    const addAll = (reqs: R[]): void => {
      for (const r of reqs) {
        const k = keyOf(r);
        if (seen.has(k)) continue;
        seen.add(k);
        q.add(r);
      }
    };
    for (const o of objs) {
      let out: R[] | Promise<R[]>;
      try {
        out = map(o);
      } catch (err) {
        onError(err);
        continue;
      }
      if (Array.isArray(out)) addAll(out);
      else out.then(addAll, onError);
    }
  };
  return {
    create: (e, q) => enqueue(q, e.object),
    update: (e, q) => enqueue(q, e.objectOld, e.objectNew),
    delete: (e, q) => enqueue(q, e.object),
    generic: (e, q) => enqueue(q, e.object),
  };
}
