import { controllerDefaultsFor, type BuilderControllerOptions, type BuilderWatchOptions } from '../builder/builder.js';
import type { EventHandler, Predicate } from '../controller/events.js';
import { enqueueRequestForObject, enqueueRequestForOwner } from '../controller/handlers.js';
import { ConfigurationError } from '../errors.js';
import type { Reconciler, Request } from '../reconcile/index.js';
import type { KubeObject, Resource } from '../rest/types.js';
import {
  MultiClusterController,
  type ClusterScope,
  type MultiClusterWatch,
  type PerClusterControllerOptions,
} from './controller.js';
import type { MultiClusterManager } from './manager.js';
import { inCluster, type ClusterHandlerFunc, type ClusterRequest, type PerClusterReconciler } from './request.js';

/** Options a multi-cluster builder may set on its controller: those of every cluster's Controller, and where it engages. */
export type MultiClusterBuilderOptions = Omit<BuilderControllerOptions, 'needLeaderElection'> & ClusterScope;

/** Options of owns() and watches() on a multi-cluster builder: the single-cluster ones, and where the watch engages. */
export type MultiClusterWatchOptions<T extends KubeObject> = BuilderWatchOptions<T> & ClusterScope;

/**
 * Wires a multi-cluster controller into a MultiClusterManager (multicluster-runtime's mcbuilder): for(), owns() and
 * watches() apply in every cluster the controller engages in, each call mapping to a {@link MultiClusterWatch} you
 * could write by hand. The reconciler gets ClusterRequests; perCluster(...) gives each cluster a reconciler of its
 * own instead, such as a scaffolded single-cluster one.
 */
export class MultiClusterBuilder {
  private forWatch: { resource: Resource; predicates: Predicate[] } | undefined;
  private readonly watchList: MultiClusterWatch[] = [];
  private readonly ownWatches: {
    resource: Resource;
    opts: MultiClusterWatchOptions<KubeObject> & { onlyController?: boolean };
  }[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: MultiClusterBuilderOptions = {};
  private name: string | undefined;

  constructor(private readonly mgr: MultiClusterManager) {}

  /** The kind this controller reconciles in each cluster; its events enqueue the object itself. Call once. */
  for<T extends KubeObject>(res: Resource<T>, opts: { predicates?: Predicate<T>[] } & ClusterScope = {}): this {
    if (this.forWatch) throw new ConfigurationError('for() should only be called once');
    const { predicates, ...scope } = opts;
    this.forWatch = { resource: res, predicates: (predicates ?? []) as Predicate[] };
    this.options = { ...this.options, ...scope };
    return this;
  }

  /**
   * A kind this controller creates and owns in each cluster: its events enqueue the owner of the for() kind in the
   * same cluster (only the controller reference unless onlyController is false).
   */
  owns<T extends KubeObject>(
    res: Resource<T>,
    opts: MultiClusterWatchOptions<T> & { onlyController?: boolean } = {},
  ): this {
    this.ownWatches.push({ resource: res, opts: opts as MultiClusterWatchOptions<KubeObject> });
    return this;
  }

  /**
   * Any kind, with your own handler: a single-cluster one (e.g. enqueueRequestsFromMapFunc), whose requests name the
   * cluster the event came from, or a ClusterHandlerFunc, made per cluster, whose requests may name any engaged
   * cluster (its objects are run through it again when a cluster engages, so the new one gets its requests).
   */
  watches<T extends KubeObject>(
    res: Resource<T>,
    handler: EventHandler<T, Request> | ClusterHandlerFunc<T>,
    opts: MultiClusterWatchOptions<T> = {},
  ): this {
    const crossCluster = typeof handler === 'function';
    this.watchList.push({
      resource: res,
      handlerFor: crossCluster
        ? (cluster) => (handler as ClusterHandlerFunc<KubeObject>)(cluster)
        : (cluster) => inCluster(handler as unknown as EventHandler<KubeObject, Request>, cluster.name),
      predicates: (opts.predicates ?? []) as Predicate[],
      onlyMetadata: opts.onlyMetadata ?? false,
      ...(hasScope(opts) ? { scope: scopeOf(opts) } : {}),
      crossCluster,
    });
    return this;
  }

  /** Predicates applied to every watch of this controller. */
  withEventFilter(p: Predicate): this {
    this.globalPredicates.push(p);
    return this;
  }

  /** Options of every cluster's Controller (workers, rate limiter, timeouts), and where the controller engages. */
  withOptions(opts: MultiClusterBuilderOptions): this {
    this.options = { ...this.options, ...opts };
    return this;
  }

  /** The controller's name (metrics, logs); default: the for() kind in lowercase. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /** Builds the controller, adds it to the manager, and returns it. */
  complete(reconciler: Reconciler<ClusterRequest> | PerClusterReconciler): MultiClusterController {
    const usable =
      reconciler &&
      (typeof (reconciler as Reconciler<ClusterRequest>).reconcile === 'function' ||
        typeof (reconciler as PerClusterReconciler).forCluster === 'function');
    if (!usable) throw new ConfigurationError('must provide a Reconciler, or perCluster(cluster => reconciler)');
    const forRes = this.forWatch?.resource;
    if (!forRes && this.ownWatches.length > 0)
      throw new ConfigurationError('owns() can only be used together with for()');
    const name = this.name ?? forRes?.kind.toLowerCase();
    if (!name) throw new ConfigurationError('one of for() or named() must be called');
    if (!forRes && this.watchList.length === 0) {
      throw new ConfigurationError(
        'there are no watches configured, controller will never get triggered. Use for(), owns() or watches() to set them up',
      );
    }
    const local = this.mgr.getLocalManager();
    local.registerControllerName(name);
    const global = this.globalPredicates;
    const watches: MultiClusterWatch[] = [];
    if (this.forWatch) {
      const handler = enqueueRequestForObject();
      watches.push({
        resource: this.forWatch.resource,
        handlerFor: (cluster) => inCluster(handler, cluster.name),
        predicates: [...global, ...this.forWatch.predicates],
      });
    }
    for (const { resource, opts } of this.ownWatches) {
      const handler = enqueueRequestForOwner(forRes!, { onlyController: opts.onlyController ?? true });
      watches.push({
        resource,
        handlerFor: (cluster) => inCluster(handler, cluster.name),
        predicates: [...global, ...((opts.predicates ?? []) as Predicate[])],
        onlyMetadata: opts.onlyMetadata ?? false,
        ...(hasScope(opts) ? { scope: scopeOf(opts) } : {}),
      });
    }
    for (const w of this.watchList) watches.push({ ...w, predicates: [...global, ...w.predicates] });
    const { engageWithLocalCluster, engageWithProviderClusters, clusterFilter, ...controllerOpts } = this.options;
    const defaults = controllerDefaultsFor(local.controllerDefaults, forRes);
    const { needLeaderElection: _ignored, ...perCluster } = defaults;
    const controller: PerClusterControllerOptions = {
      ...perCluster,
      gracefulShutdownTimeout: local.gracefulShutdownTimeout,
      ...(local.cacheSyncTimeout !== undefined ? { cacheSyncTimeout: local.cacheSyncTimeout } : {}),
      ...(forRes ? { forKind: { group: forRes.group, kind: forRes.kind } } : {}),
      ...controllerOpts,
    };
    const ctrl = new MultiClusterController({
      name,
      reconciler,
      watches,
      scope: scopeOf({ engageWithLocalCluster, engageWithProviderClusters, clusterFilter }),
      hasProvider: this.mgr.getProvider() !== undefined,
      controller,
      ...this.mgr.controllerSettings(),
      log: local.log,
    });
    this.mgr.add(ctrl);
    return ctrl;
  }
}

function hasScope(s: ClusterScope): boolean {
  return (
    s.engageWithLocalCluster !== undefined ||
    s.engageWithProviderClusters !== undefined ||
    s.clusterFilter !== undefined
  );
}

/** Only the scope's own fields (set ones), so that spreading it sets nothing else. */
function scopeOf(s: ClusterScope): ClusterScope {
  return {
    ...(s.engageWithLocalCluster !== undefined ? { engageWithLocalCluster: s.engageWithLocalCluster } : {}),
    ...(s.engageWithProviderClusters !== undefined ? { engageWithProviderClusters: s.engageWithProviderClusters } : {}),
    ...(s.clusterFilter !== undefined ? { clusterFilter: s.clusterFilter } : {}),
  };
}

/**
 * Starts building a controller that reconciles in every cluster `mgr` engages (multicluster-runtime's
 * mcbuilder.ControllerManagedBy).
 * @example
 * The uniform style: a scaffolded single-cluster reconciler, made once per engaged cluster with that cluster's
 * client, so it reads and writes that cluster alone.
 * ```ts
 * import { Manager, isNotFound, loadKubeConfig, type Client, type Reconciler, type Request } from '@kubescaffold/runtime';
 * import { MultiClusterManager, StaticProvider, newMultiClusterControllerManagedBy, perCluster } from '@kubescaffold/runtime/multicluster';
 * import { ConfigMaps, newClient } from '@kubescaffold/runtime/rest';
 *
 * class GreetingReconciler implements Reconciler {
 *   constructor(
 *     private readonly client: Client,
 *     private readonly done: () => void,
 *   ) {}
 *   async reconcile(req: Request) {
 *     if (req.name !== 'example-percluster') return;
 *     try {
 *       const cm = await this.client.get(ConfigMaps, req);
 *       console.log(`greeting: ${cm.data?.greeting}`);
 *       this.done();
 *     } catch (err) {
 *       if (!isNotFound(err)) throw err;
 *     }
 *   }
 * }
 *
 * const kubeConfig = loadKubeConfig();
 * const api = newClient(kubeConfig);
 * await api.create(ConfigMaps, { metadata: { name: 'example-percluster', namespace: 'default' }, data: { greeting: 'hello' } });
 * api.close();
 * const stop = new AbortController();
 * const mgr = new MultiClusterManager(new Manager({ kubeConfig }), {
 *   provider: new StaticProvider({ clusters: { west: kubeConfig }, clusterOptions: { cache: { defaultNamespaces: ['default'] } } }),
 * });
 * newMultiClusterControllerManagedBy(mgr)
 *   .for(ConfigMaps)
 *   .named('greetings')
 *   .complete(perCluster((cluster) => new GreetingReconciler(cluster.getClient(), () => stop.abort())));
 * await mgr.start(stop.signal);
 * // Output:
 * // greeting: hello
 * ```
 */
export function newMultiClusterControllerManagedBy(mgr: MultiClusterManager): MultiClusterBuilder {
  return new MultiClusterBuilder(mgr);
}
