import { Controller, type ControllerOptions } from '../controller/controller.js';
import type { EventHandler, Predicate, Source } from '../controller/events.js';
import { enqueueRequestForObject, enqueueRequestForOwner } from '../controller/handlers.js';
import { KindSource, type InformerProvider } from '../controller/source.js';
import { ReadKindSource } from './read-source.js';
import type { Manager } from '../manager/manager.js';
import type { ControllerDefaults } from '../manager/options.js';
import { typedRequestKey, type Reconciler, type Request } from '../reconcile/index.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { ConfigurationError } from '../errors.js';

/** Options a builder may set on its controller; the rest come from the manager. */
export type BuilderControllerOptions = Pick<
  ControllerOptions,
  | 'maxConcurrentReconciles'
  | 'rateLimiter'
  | 'reconcileTimeout'
  | 'cacheSyncTimeout'
  | 'needLeaderElection'
  | 'recordMetrics'
  | 'usePriorityQueue'
>;

interface Watch {
  resource: Resource;
  handler: EventHandler<KubeObject, unknown>;
  predicates: Predicate[];
  /** Watch through a metadata-only informer: handlers and predicates see PartialObjectMetadata. */
  onlyMetadata?: boolean;
}

/** Options of owns() and watches() (controller-runtime's builder options). */
export interface BuilderWatchOptions<T extends KubeObject> {
  /** Only events every predicate passes reach the handler. */
  predicates?: Predicate<T>[];
  /**
   * Watch and cache the kind's metadata only (controller-runtime's builder.OnlyMetadata): far less memory for kinds
   * whose bodies the controller never reads, such as owned Secrets; events carry PartialObjectMetadata, and
   * mgr.getClient().getMetadata/listMetadata read from the same informer.
   */
  onlyMetadata?: boolean;
}

/** Options of reads(). */
export interface BuilderReadOptions {
  /**
   * Cache the kind's metadata only (as BuilderWatchOptions.onlyMetadata): the reconciler reads it with
   * getMetadata/listMetadata, and the cache holds a fraction of the full objects.
   */
  onlyMetadata?: boolean;
}

/**
 * Wires a controller into a manager (controller-runtime's builder): each call maps to a source you could build by
 * hand: for() watches the reconciled kind, owns() watches objects it controls and enqueues their owner, watches()
 * takes any handler. A Builder<R> of newTypedControllerManagedBy builds a controller of requests of type R: it takes
 * watches() with handlers that make R and raw sources, not for() or owns(), as controller-runtime's TypedBuilder.
 */
export class Builder<R = Request> {
  private forWatch: Watch | undefined;
  private readonly ownWatches: {
    resource: Resource;
    onlyController: boolean;
    predicates: Predicate[];
    onlyMetadata: boolean;
  }[] = [];
  private readonly otherWatches: Watch[] = [];
  private readonly rawSources: Source<R>[] = [];
  private readonly readKinds: { resource: Resource; onlyMetadata: boolean }[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: BuilderControllerOptions = {};
  private name: string | undefined;

  constructor(
    private readonly mgr: Manager,
    private readonly requestKey?: (req: R) => string,
  ) {}

  /**
   * The kind this controller reconciles; its events enqueue the object itself. Call once. To reconcile on some changes
   * only, compare the old and new object in a predicate; to give the reconciler more than the object's name, use
   * newTypedControllerManagedBy: see the guide [Controllers that react to what
   * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
   */
  for<T extends KubeObject>(
    this: Builder<Request>,
    res: Resource<T>,
    opts: { predicates?: Predicate<T>[] } = {},
  ): Builder<Request> {
    if (this.forWatch) throw new ConfigurationError('for() should only be called once');
    this.forWatch = {
      resource: res,
      handler: enqueueRequestForObject() as EventHandler<KubeObject, unknown>,
      predicates: (opts.predicates ?? []) as Predicate[],
    };
    return this;
  }

  /**
   * A kind this controller creates and owns: its events enqueue the owner of the for() kind named in its
   * ownerReferences (only the controller reference unless onlyController is false). Predicates in `opts` see each
   * event whole (old and new object, a deleted object's last state): see the guide [Controllers that react to what
   * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
   */
  owns<T extends KubeObject>(
    this: Builder<Request>,
    res: Resource<T>,
    opts: BuilderWatchOptions<T> & { onlyController?: boolean } = {},
  ): Builder<Request> {
    this.ownWatches.push({
      resource: res,
      onlyController: opts.onlyController ?? true,
      predicates: (opts.predicates ?? []) as Predicate[],
      onlyMetadata: opts.onlyMetadata ?? false,
    });
    return this;
  }

  /**
   * Any kind, with your own handler (e.g. enqueueRequestsFromMapFunc). A handler of your own sees each event whole: an
   * update's old and new object, a deleted object's last state (also after a missed delete), whether a create came
   * from the initial list; on a typed builder it makes requests that carry what the reconciler needs of that. See the
   * guide [Controllers that react to what
   * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
   */
  watches<T extends KubeObject>(
    res: Resource<T>,
    handler: EventHandler<T, R>,
    opts: BuilderWatchOptions<T> = {},
  ): this {
    this.otherWatches.push({
      resource: res,
      handler: handler as unknown as EventHandler<KubeObject, unknown>,
      predicates: (opts.predicates ?? []) as Predicate[],
      onlyMetadata: opts.onlyMetadata ?? false,
    });
    return this;
  }

  /**
   * A kind the reconciler reads but whose changes need not reconcile anything, such as the Deployments a controller
   * of ConfigMaps looks through for those mounting a ConfigMap: it is cached, and its informer has listed before this
   * controller's first reconcile (the manager's start, and the controller itself, wait for it as for a watched kind),
   * but its events enqueue nothing. A cache with readerFailOnMissingInformer serves it too. Reading it takes the read
   * verbs, e.g. `// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch` (writes take theirs).
   */
  reads(res: Resource, opts: BuilderReadOptions = {}): this {
    this.readKinds.push({ resource: res, onlyMetadata: opts.onlyMetadata ?? false });
    return this;
  }

  /** A source of your own (a GenericSource, a timer); global predicates do not apply to it. */
  watchesRawSource(source: Source<R>): this {
    this.rawSources.push(source);
    return this;
  }

  /** Predicates applied to every watch of this controller. */
  withEventFilter(p: Predicate): this {
    this.globalPredicates.push(p);
    return this;
  }

  withOptions(opts: BuilderControllerOptions): this {
    this.options = { ...this.options, ...opts };
    return this;
  }

  /** The controller's name (metrics, logs); default: the for() kind in lowercase. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /** Builds the controller, adds it to the manager, and returns it. */
  complete(reconciler: Reconciler<R>): Controller<R> {
    return this.build(reconciler);
  }

  /** complete() by its other name. */
  build(reconciler: Reconciler<R>): Controller<R> {
    if (!reconciler || typeof reconciler.reconcile !== 'function')
      throw new ConfigurationError('must provide a non-nil Reconciler');
    const forRes = this.forWatch?.resource;
    if (!forRes && this.ownWatches.length > 0)
      throw new ConfigurationError('owns() can only be used together with for()');
    const name = this.name ?? forRes?.kind.toLowerCase();
    if (!name) throw new ConfigurationError('one of for() or named() must be called');
    if (!forRes && this.otherWatches.length === 0 && this.rawSources.length === 0) {
      throw new ConfigurationError(
        'there are no watches configured, controller will never get triggered. Use for(), owns(), watches() or watchesRawSource() to set them up',
      );
    }
    this.mgr.registerControllerName(name);
    // Sharding: a controller with for() runs on every replica, each reconciling its partitions' objects. By
    // namespace, owned kinds are sharded the same way (owners and owned share a namespace); by uid they are cached
    // whole, and their events reach the owner's replica through its gate.
    const sharded = forRes !== undefined && this.mgr.sharded();
    if (sharded && this.mgr.shardKey() === 'namespace') {
      for (const o of this.ownWatches) this.mgr.getCache().shardKind(o.resource);
    }
    const gate = sharded ? this.mgr.shardGate(forRes, name) : undefined;
    const ctrl = new Controller<R>({
      name,
      reconciler,
      // A typed builder's key; without one the controller queues Requests, by namespace/name.
      ...(this.requestKey ? { requestKey: this.requestKey } : {}),
      ...controllerDefaultsFor(this.mgr.controllerDefaults, forRes),
      gracefulShutdownTimeout: this.mgr.gracefulShutdownTimeout,
      ...(this.mgr.cacheSyncTimeout !== undefined ? { cacheSyncTimeout: this.mgr.cacheSyncTimeout } : {}),
      ...(forRes ? { forKind: { group: forRes.group, kind: forRes.kind } } : {}),
      log: this.mgr.log,
      ...(gate ? { gate: gate as ControllerOptions<R>['gate'], needLeaderElection: false } : {}),
      ...this.options,
    });
    const cache = this.mgr.getCache();
    const metadataCache = { getInformer: (r: Resource) => cache.getMetadataInformer(r) } as InformerProvider;
    const kindWatch = (w: Watch): void => {
      const provider = w.onlyMetadata ? metadataCache : cache;
      // Created now so the cache lists the kind as soon as it starts, before controllers wait for it.
      provider.getInformer(w.resource);
      const handler = w.handler as unknown as EventHandler<KubeObject, R>;
      void ctrl.watch(new KindSource(provider, w.resource, handler, [...this.globalPredicates, ...w.predicates]));
    };
    if (this.forWatch) kindWatch(this.forWatch);
    for (const o of this.ownWatches) {
      kindWatch({
        resource: o.resource,
        handler: enqueueRequestForOwner(forRes!, { onlyController: o.onlyController }) as EventHandler<
          KubeObject,
          unknown
        >,
        predicates: o.predicates,
        onlyMetadata: o.onlyMetadata,
      });
    }
    for (const w of this.otherWatches) kindWatch(w);
    for (const r of this.readKinds) {
      // Created now, as a watched kind's: the manager's start lists it before any controller runs.
      const informer = r.onlyMetadata ? cache.getMetadataInformer(r.resource) : cache.getInformer(r.resource);
      void ctrl.watch(new ReadKindSource<R>(r.resource, informer, r.onlyMetadata));
    }
    for (const s of this.rawSources) void ctrl.watch(s);
    this.mgr.add(ctrl);
    return ctrl;
  }
}

/** The manager-wide defaults (ManagerOptions.controller) as a controller's options, for the kind it reconciles. */
export function controllerDefaultsFor(
  d: ControllerDefaults,
  forRes: Resource | undefined,
): Pick<ControllerOptions, 'maxConcurrentReconciles' | 'reconcileTimeout' | 'needLeaderElection' | 'usePriorityQueue'> {
  const groupKind = forRes ? (forRes.group === '' ? forRes.kind : `${forRes.kind}.${forRes.group}`) : undefined;
  const workers =
    (groupKind !== undefined ? d.groupKindConcurrency?.[groupKind] : undefined) ?? d.maxConcurrentReconciles;
  return {
    ...(workers !== undefined ? { maxConcurrentReconciles: workers } : {}),
    ...(d.reconciliationTimeout !== undefined ? { reconcileTimeout: d.reconciliationTimeout } : {}),
    ...(d.needLeaderElection !== undefined ? { needLeaderElection: d.needLeaderElection } : {}),
    ...(d.usePriorityQueue !== undefined ? { usePriorityQueue: d.usePriorityQueue } : {}),
  };
}

/**
 * Starts building a controller for `mgr` (controller-runtime's builder.ControllerManagedBy).
 * @example
 * A controller for ConfigMaps that owns a Secret per ConfigMap: the Secret's events reconcile its owner, as
 * controller-runtime's `Owns` does.
 * ```ts
 * import { Manager, isAlreadyExists, loadKubeConfig, newControllerManagedBy } from '@kubescaffold/runtime';
 * import { setControllerReference } from '@kubescaffold/runtime/client';
 * import { ConfigMaps, Secrets } from '@kubescaffold/runtime/rest';
 *
 * const stop = new AbortController();
 * const mgr = new Manager({ kubeConfig: loadKubeConfig(), metrics: { bindAddress: '0' }, healthProbe: { bindAddress: '0' } });
 * newControllerManagedBy(mgr)
 *   .named('secret-per-configmap')
 *   .for(ConfigMaps)
 *   .owns(Secrets)
 *   .withOptions({ maxConcurrentReconciles: 2 })
 *   .complete({
 *     async reconcile(req) {
 *       if (req.name !== 'example-builder') return;
 *       const client = mgr.getClient();
 *       const owner = await client.get(ConfigMaps, req);
 *       const owned = await client.list(Secrets, { namespace: req.namespace });
 *       if (owned.items.some((s) => s.metadata?.name === req.name)) {
 *         console.log(`ConfigMap ${req.name} owns its Secret`);
 *         stop.abort();
 *         return;
 *       }
 *       const secret = { metadata: { name: req.name, namespace: req.namespace }, stringData: { copied: 'yes' } };
 *       setControllerReference(owner, secret);
 *       // The Secret's add event brings this ConfigMap back through the queue.
 *       await client.create(Secrets, secret).catch((err: unknown) => {
 *         if (!isAlreadyExists(err)) throw err;
 *       });
 *     },
 *   });
 * await mgr.getClient().create(ConfigMaps, { metadata: { name: 'example-builder', namespace: 'default' } });
 * await mgr.start(stop.signal);
 * // Output:
 * // ConfigMap example-builder owns its Secret
 * ```
 */
export function newControllerManagedBy(mgr: Manager): Builder {
  return new Builder(mgr);
}

/**
 * Starts building a controller whose requests are of your own type R (controller-runtime's TypedControllerManagedBy),
 * such as `{ cluster, namespace, name }`: its watches map events to R with handlers of their own, and its reconciler
 * takes R. Requests are told apart by `requestKey` (default typedRequestKey: their JSON); the queue keeps the first
 * request queued for a key. The guide [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md)
 * builds one whose handler compares the old and new object and carries a deleted object's last state.
 * @example
 * A controller of requests that name a ConfigMap's key, fed by a map function.
 * ```ts
 * import { Manager, loadKubeConfig, newTypedControllerManagedBy } from '@kubescaffold/runtime';
 * import { enqueueRequestsFromMapFunc } from '@kubescaffold/runtime/controller';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * interface KeyRequest {
 *   namespace: string;
 *   configMap: string;
 *   key: string;
 * }
 * const mgr = new Manager({ kubeConfig: loadKubeConfig() });
 * newTypedControllerManagedBy<KeyRequest>(mgr, { requestKey: (r) => `${r.namespace}/${r.configMap}/${r.key}` })
 *   .named('configmap-keys')
 *   .watches(
 *     ConfigMaps,
 *     enqueueRequestsFromMapFunc((cm) =>
 *       Object.keys(cm.data ?? {}).map((key) => ({
 *         namespace: cm.metadata?.namespace ?? '',
 *         configMap: cm.metadata?.name ?? '',
 *         key,
 *       })),
 *     ),
 *   )
 *   .complete({
 *     async reconcile(req, ctx) {
 *       ctx.log.info('a key to check', { key: req.key });
 *     },
 *   });
 * ```
 */
export function newTypedControllerManagedBy<R>(
  mgr: Manager,
  opts: { requestKey?: (req: R) => string } = {},
): Builder<R> {
  return new Builder<R>(mgr, opts.requestKey ?? typedRequestKey);
}
