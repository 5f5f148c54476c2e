import type { EventHandler, RequestQueue } from '../controller/events.js';
import { requestKey, type Reconciler, type Request } from '../reconcile/index.js';
import type { KubeObject } from '../rest/types.js';
import type { Cluster } from './cluster.js';

/**
 * A request that names the cluster of its object (multicluster-runtime's mcreconcile.Request): `cluster` is the
 * engaged cluster's name, '' for the manager's own cluster. A Reconciler<Request> accepts one unchanged.
 */
export interface ClusterRequest extends Request {
  /** The engaged cluster's name; '' is the manager's own (local) cluster. */
  cluster: string;
  /** The object's namespace; '' for cluster-scoped kinds. */
  namespace: string;
  /** The object's name. */
  name: string;
}

/** `cluster://name/namespace/name`, as multicluster-runtime's Request.String() writes it ('' cluster: namespace/name). */
export function clusterRequestString(req: ClusterRequest): string {
  return req.cluster === '' ? requestKey(req) : `cluster://${req.cluster}/${requestKey(req)}`;
}

/**
 * A handler that maps events of one cluster to requests of any cluster (multicluster-runtime's
 * TypedEventHandlerFunc): called once for each cluster a watch engages in, with that cluster. Use it for controllers
 * that read one cluster and write another, e.g. objects of the local cluster fanned out to every engaged cluster.
 */
export type ClusterHandlerFunc<T extends KubeObject = KubeObject> = (
  cluster: Cluster,
) => EventHandler<T, ClusterRequest>;

/**
 * A reconciler made for each engaged cluster, with that cluster: the reconciler of a single-cluster controller
 * (`new MyReconciler(cluster.getClient())`) runs unchanged in every cluster. Made by {@link perCluster}.
 */
export interface PerClusterReconciler {
  /** Makes the reconciler of one cluster; called each time the cluster is engaged. */
  readonly forCluster: (cluster: Cluster) => Reconciler<Request> | Reconciler<ClusterRequest>;
}

/**
 * Makes a reconciler for each engaged cluster with `make(cluster)`: the uniform style, where each cluster is read and
 * written alone by a reconciler that knows only its own. The requests it gets are ClusterRequests.
 */
export function perCluster(
  make: (cluster: Cluster) => Reconciler<Request> | Reconciler<ClusterRequest>,
): PerClusterReconciler {
  return { forCluster: make };
}

/** Whether `r` is a perCluster(...) reconciler factory. */
export function isPerCluster(r: unknown): r is PerClusterReconciler {
  return typeof (r as Partial<PerClusterReconciler> | null)?.forCluster === 'function';
}

/**
 * A single-cluster handler (making Requests) as one of `cluster`'s: each request it queues names that cluster
 * (multicluster-runtime's handler.Lift). The queue adapters are made once per queue, not per event.
 */
export function inCluster<T extends KubeObject>(
  handler: EventHandler<T, Request>,
  cluster: string,
): EventHandler<T, ClusterRequest> {
  const adapters = new WeakMap<RequestQueue<ClusterRequest>, RequestQueue<Request>>();
  const lift = (q: RequestQueue<ClusterRequest>): RequestQueue<Request> => {
    let a = adapters.get(q);
    if (!a) {
      a = {
        add: (req, priority) => q.add({ cluster, namespace: req.namespace, name: req.name }, priority),
        addAfter: (req, ms, priority) =>
          q.addAfter({ cluster, namespace: req.namespace, name: req.name }, ms, priority),
      };
      adapters.set(q, a);
    }
    return a;
  };
  return {
    create: (e, q) => handler.create(e, lift(q)),
    update: (e, q) => handler.update(e, lift(q)),
    delete: (e, q) => handler.delete(e, lift(q)),
    generic: (e, q) => handler.generic(e, lift(q)),
  };
}
