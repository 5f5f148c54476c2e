import type { KindInformer } from '../cache/informer-cache.js';
import { Controller, type ControllerOptions, type RequestGate } from '../controller/controller.js';
import type { EventHandler, Predicate, RequestQueue, Source } from '../controller/events.js';
import { KindSource, type InformerProvider } from '../controller/source.js';
import { LifecycleError } from '../errors.js';
import { log as rootLog, type Logger } from '../log/index.js';
import { clusterRequestsDroppedTotal, setMissingKindMetric } from '../metrics/multicluster.js';
import { requestKey, type Reconciler } from '../reconcile/index.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { realClock, type Clock } from '../clock.js';
import { LOW_PRIORITY } from '../workqueue/priority-queue.js';
import { kindName, type Cluster } from './cluster.js';
import { isPerCluster, type ClusterRequest, type PerClusterReconciler } from './request.js';
import { onAbort } from '../internal/abort-fanout.js';

/**
 * Which clusters something engages in (multicluster-runtime's EngageOptions). Unset fields take the controller's,
 * whose defaults are: the provider's clusters when the manager has a provider, else the local cluster.
 */
export interface ClusterScope {
  /** Engage in the manager's own cluster (''). Default: only when the manager has no provider. */
  engageWithLocalCluster?: boolean;
  /** Engage in the clusters the provider engages. Default true (no effect without a provider). */
  engageWithProviderClusters?: boolean;
  /** Of the provider's clusters, only those this returns true for. */
  clusterFilter?: (cluster: Cluster) => boolean;
}

/** One watch of a multi-cluster controller, as the builder makes it: a kind watched in each cluster it engages in. */
export interface MultiClusterWatch {
  /** The kind watched. */
  resource: Resource;
  /** The handler of the kind's events in `cluster`: a single-cluster handler lifted to it, or a cluster-aware one. */
  handlerFor(cluster: Cluster): EventHandler<KubeObject, ClusterRequest>;
  /** Only events every predicate passes reach the handler. */
  predicates: readonly Predicate[];
  /** Watch through a metadata-only informer. */
  onlyMetadata?: boolean;
  /** Where this watch engages, if not where the controller does. */
  scope?: ClusterScope;
  /**
   * Whether its handler may queue requests for clusters other than the one watched (a ClusterHandlerFunc): then the
   * objects it watches are run through it again when a cluster engages, so that the new cluster gets its requests.
   */
  crossCluster?: boolean;
}

/** The options of each engaged cluster's controller that a multi-cluster controller passes on. */
export type PerClusterControllerOptions = Pick<
  ControllerOptions<ClusterRequest>,
  | 'maxConcurrentReconciles'
  | 'rateLimiter'
  | 'reconcileTimeout'
  | 'cacheSyncTimeout'
  | 'gracefulShutdownTimeout'
  | 'recordMetrics'
  | 'usePriorityQueue'
  | 'forKind'
>;

/** Options of a MultiClusterController. */
export interface MultiClusterControllerOptions {
  /** Unique per manager; names the controller's queues, metrics and logger in every cluster. */
  name: string;
  /** What reconciles each request: one reconciler for all clusters, or one per cluster (perCluster). */
  reconciler: Reconciler<ClusterRequest> | PerClusterReconciler;
  /** What feeds it. */
  watches: readonly MultiClusterWatch[];
  /** Where it engages: where it keeps a queue and workers, and where its watches engage unless they say otherwise. */
  scope: ClusterScope;
  /** Whether the manager has a provider (the scope's defaults depend on it). */
  hasProvider: boolean;
  /** Passed to each cluster's Controller. */
  controller?: PerClusterControllerOptions;
  /** How often a cluster lacking some watched kinds is asked again whether it serves them (ms). Default 30000. */
  kindRecheckInterval?: number;
  /**
   * The gate of each cluster's Controller, if any: with a cluster ring, it admits reconciles only while this replica
   * holds the cluster's partition, and fences their writes by the ring's term.
   */
  gateFor?: (cluster: Cluster) => RequestGate | undefined;
  /** Default the real clock. */
  clock?: Clock;
  /** Parent logger; default the root logger. */
  log?: Logger;
}

/** The work of a component in one engaged cluster: settles once it has stopped after its signal aborted. */
export interface ClusterWork {
  /** Settles once the work in the cluster has stopped. */
  stopped: Promise<void>;
}

/**
 * Something that runs in each engaged cluster (multicluster-runtime's Aware runnables): the multi-cluster manager
 * engages it in every cluster while the cluster is engaged and reachable.
 */
export interface MultiClusterRunnable {
  /**
   * Starts its work in `cluster` until `signal` aborts. Resolves once it runs there (its informers have listed); a
   * rejection means it could not, and the manager tries again later.
   */
  engage(cluster: Cluster, signal: AbortSignal): Promise<ClusterWork>;
}

const DEFAULT_KIND_RECHECK = 30_000;
// After a CRD changed: how often, and how many times, the kinds still lacking are asked about before the interval.
const QUICK_RECHECK = 250;
const QUICK_RECHECKS = 8;
const NOTHING: ClusterWork = { stopped: Promise.resolve() };

/**
 * A controller that reconciles in every cluster it is engaged in (multicluster-runtime's mcController): each engaged
 * cluster gets its own queue and workers (a Controller labelled with the cluster), fed by this controller's watches
 * in that cluster, so a cluster that hangs or floods holds only its own. Requests are ClusterRequests; a handler's
 * request for another cluster goes to that cluster's queue. A kind a cluster does not serve is left out there, said
 * in a log line and the multicluster_missing_kind metric, and watched once the cluster serves it.
 */
export class MultiClusterController implements MultiClusterRunnable {
  /** The controller's name. */
  readonly name: string;
  /** Its logger (controller=<name>). */
  readonly log: Logger;
  private readonly opts: MultiClusterControllerOptions;
  private readonly clock: Clock;
  // Each engaged cluster's queue, by cluster name, and its engagement (replaced when a cluster is engaged again).
  private readonly inboxes = new Map<string, { queue: RequestQueue<ClusterRequest>; owner: object }>();
  // The cross-cluster watches running in each cluster: replayed for a cluster that engages later.
  private readonly crossRuns = new Map<string, Set<CrossRun>>();
  private readonly router: RequestQueue<ClusterRequest>;

  constructor(opts: MultiClusterControllerOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.log ?? rootLog).withValues({ controller: opts.name });
    const dropped = clusterRequestsDroppedTotal.labels({ controller: opts.name });
    this.router = {
      add: (req, priority) => {
        const inbox = this.inboxes.get(req.cluster);
        if (inbox) inbox.queue.add(req, priority);
        else dropped.inc();
      },
      addAfter: (req, ms, priority) => {
        const inbox = this.inboxes.get(req.cluster);
        if (inbox) inbox.queue.addAfter(req, ms, priority);
        else dropped.inc();
      },
    };
  }

  /** Whether `scope` (filled with the controller's) takes in `cluster`. */
  private engagesIn(scope: ClusterScope | undefined, cluster: Cluster): boolean {
    const own = this.opts.scope;
    const local = scope?.engageWithLocalCluster ?? own.engageWithLocalCluster ?? !this.opts.hasProvider;
    const provider = scope?.engageWithProviderClusters ?? own.engageWithProviderClusters ?? true;
    if (cluster.name === '') return local;
    if (!this.opts.hasProvider || !provider) return false;
    const filter = scope?.clusterFilter ?? own.clusterFilter;
    return filter ? filter(cluster) : true;
  }

  /**
   * Runs the controller in `cluster` until `signal` aborts: asks which of its kinds the cluster serves, starts its
   * watches there and, where it keeps a queue, that cluster's Controller. Resolves once they have listed.
   */
  async engage(cluster: Cluster, signal: AbortSignal): Promise<ClusterWork> {
    const watches = this.opts.watches.filter((w) => this.engagesIn(w.scope, cluster));
    const target = this.engagesIn(undefined, cluster);
    if (watches.length === 0 && !target) return NOTHING;
    const log = this.log.withValues({ cluster: cluster.name });
    const served: MultiClusterWatch[] = [];
    const missing: MultiClusterWatch[] = [];
    for (const w of watches) {
      const serves = await untilAnswered(() => cluster.serves(w.resource), signal, this.clock);
      if (serves === undefined) return NOTHING;
      (serves ? served : missing).push(w);
    }
    this.reportMissing(cluster, missing, log);
    const owner = {};
    const runs: Promise<unknown>[] = [];
    const started: KindSource<KubeObject, ClusterRequest>[] = [];
    const startWatch = async (w: MultiClusterWatch): Promise<void> => {
      const src = this.sourceFor(w, cluster);
      // Cross-cluster handlers may name any cluster: their requests go through the router.
      await src.start(signal, this.router);
      started.push(src);
      if (w.crossCluster) this.trackCross(cluster, w, signal);
    };
    if (!target) {
      for (const w of served) await startWatch(w);
      const synced = await Promise.all(started.map((s) => s.waitForSync(signal)));
      if (!synced.every(Boolean)) return NOTHING;
    } else {
      let synced!: (ok: boolean) => void;
      const ready = new Promise<boolean>((resolve) => (synced = resolve));
      const inbox: Source<ClusterRequest> = {
        start: async (s, queue) => {
          this.inboxes.set(cluster.name, { queue, owner });
          s.addEventListener(
            'abort',
            () => {
              if (this.inboxes.get(cluster.name)?.owner === owner) this.inboxes.delete(cluster.name);
            },
            { once: true },
          );
          for (const w of served) await startWatch(w);
          this.replayCross(cluster);
        },
        waitForSync: async (s) => {
          const ok = (await Promise.all(started.map((src) => src.waitForSync(s)))).every(Boolean);
          synced(ok);
          return ok;
        },
        toString: () => `multi-cluster sources of ${cluster}`,
      };
      const gate = this.opts.gateFor?.(cluster);
      const ctrl = new Controller<ClusterRequest>({
        ...this.opts.controller,
        ...(gate ? { gate } : {}),
        name: this.name,
        cluster: cluster.name,
        reconciler: this.reconcilerFor(cluster),
        // One queue per cluster: namespace/name tells its requests apart.
        requestKey: requestKey,
        log: (this.opts.log ?? rootLog).withValues({ cluster: cluster.name }),
        needLeaderElection: false,
      });
      void ctrl.watch(inbox);
      const run = ctrl.start(signal);
      runs.push(run.catch((err: unknown) => log.error(err, 'controller stopped with an error')));
      const ok = await Promise.race([ready, run.then(() => false)]);
      if (!ok) {
        // Stopped before it synced (the cluster was disengaged or suspended), or failed: say so to the manager.
        await run;
        if (!signal.aborted)
          throw new LifecycleError(
            `controller ${this.name} stopped before its watches in ${cluster} synced`,
            'Stopped',
          );
        return NOTHING;
      }
    }
    if (missing.length > 0) runs.push(this.recheckMissing(cluster, missing, startWatch, signal, log));
    onAbort(signal, () => this.reportMissing(cluster, [], log, missing));
    return { stopped: Promise.all(runs).then(() => {}) };
  }

  /** The reconciler of `cluster`'s Controller. */
  private reconcilerFor(cluster: Cluster): Reconciler<ClusterRequest> {
    const r = this.opts.reconciler;
    return (isPerCluster(r) ? r.forCluster(cluster) : r) as Reconciler<ClusterRequest>;
  }

  private sourceFor(w: MultiClusterWatch, cluster: Cluster): KindSource<KubeObject, ClusterRequest> {
    const cache = cluster.getCache();
    const provider: InformerProvider = w.onlyMetadata
      ? ({ getInformer: (r: Resource) => cache.getMetadataInformer(r) } as InformerProvider)
      : cache;
    return new KindSource<KubeObject, ClusterRequest>(provider, w.resource, w.handlerFor(cluster), w.predicates);
  }

  /** Says, in a log line and a metric, which kinds `cluster` lacks; `cleared` are no longer reported. */
  private reportMissing(
    cluster: Cluster,
    missing: MultiClusterWatch[],
    log: Logger,
    cleared: MultiClusterWatch[] = [],
  ): void {
    for (const w of cleared) setMissingKindMetric(cluster.name, this.name, kindName(w.resource), false);
    if (missing.length === 0) return;
    const kinds = [...new Set(missing.map((w) => kindName(w.resource)))];
    for (const k of kinds) setMissingKindMetric(cluster.name, this.name, k, true);
    log.info(
      'the cluster does not serve some kinds this controller watches: engaged for the others, watching those once they are served',
      {
        missingKinds: kinds,
      },
    );
  }

  /** Asks every kindRecheckInterval whether `cluster` serves the missing kinds now; starts the watch of each that it does. */
  private async recheckMissing(
    cluster: Cluster,
    missing: MultiClusterWatch[],
    startWatch: (w: MultiClusterWatch) => Promise<void>,
    signal: AbortSignal,
    log: Logger,
  ): Promise<void> {
    const every = this.opts.kindRecheckInterval ?? DEFAULT_KIND_RECHECK;
    const left = [...missing];
    // Where the cluster lets us watch CRDs, a CRD created or Established there is asked about at once; discovery may
    // lag the CRD by a moment, so a few quick asks follow. Elsewhere, every kindRecheckInterval.
    let changed = false;
    let wake: AbortController | undefined;
    const watching = await cluster.onCustomResourceDefinitionChange(() => {
      changed = true;
      wake?.abort();
    }, signal);
    if (!watching && !signal.aborted)
      log.info(
        'cannot watch CustomResourceDefinitions in the cluster: asking about the kinds it lacks at an interval',
        {
          intervalMs: every,
        },
      );
    let quick = 0;
    while (left.length > 0 && !signal.aborted) {
      if (changed) quick = QUICK_RECHECKS;
      changed = false;
      wake = new AbortController();
      const unregister = onAbort(signal, () => wake?.abort());
      await this.clock.sleep(quick > 0 ? Math.min(every, QUICK_RECHECK) : every, wake.signal);
      unregister();
      if (signal.aborted) break;
      if (quick > 0) quick--;
      for (const w of [...left]) {
        let serves: boolean;
        try {
          serves = await cluster.serves(w.resource, { fresh: true });
        } catch {
          continue;
        }
        if (!serves || signal.aborted) continue;
        left.splice(left.indexOf(w), 1);
        setMissingKindMetric(cluster.name, this.name, kindName(w.resource), false);
        log.info('the cluster serves a kind it lacked: watching it', { kind: kindName(w.resource) });
        try {
          await startWatch(w);
        } catch (err) {
          log.error(err, 'could not watch a kind the cluster serves now', { kind: kindName(w.resource) });
        }
      }
    }
  }

  private trackCross(cluster: Cluster, w: MultiClusterWatch, signal: AbortSignal): void {
    const cache = cluster.getCache();
    const informer = (w.onlyMetadata ? cache.getMetadataInformer(w.resource) : cache.getInformer(w.resource)) as
      KindInformer<KubeObject> | undefined;
    if (!informer) return;
    const run: CrossRun = { handler: w.handlerFor(cluster), informer, predicates: w.predicates };
    const set = this.crossRuns.get(cluster.name) ?? new Set<CrossRun>();
    set.add(run);
    this.crossRuns.set(cluster.name, set);
    signal.addEventListener(
      'abort',
      () => {
        set.delete(run);
        if (set.size === 0 && this.crossRuns.get(cluster.name) === set) this.crossRuns.delete(cluster.name);
      },
      { once: true },
    );
  }

  /**
   * Runs the objects of the other clusters' cross-cluster watches through their handlers again, keeping only the
   * requests for `cluster` (just engaged): what they would have queued for it had it been engaged all along.
   */
  private replayCross(cluster: Cluster): void {
    if (this.crossRuns.size === 0) return;
    const only: RequestQueue<ClusterRequest> = {
      add: (req) => {
        if (req.cluster === cluster.name) this.router.add(req, LOW_PRIORITY);
      },
      addAfter: (req, ms) => {
        if (req.cluster === cluster.name) this.router.addAfter(req, ms, LOW_PRIORITY);
      },
    };
    for (const runs of this.crossRuns.values()) {
      for (const run of runs) {
        for (const inf of run.informer.informers.values()) {
          for (const object of inf.getStore().list()) {
            const e = { object, isInInitialList: true };
            if (run.predicates.every((p) => p.create(e))) run.handler.create(e, only);
          }
        }
      }
    }
  }

  toString(): string {
    return `multi-cluster controller ${this.name}`;
  }
}

interface CrossRun {
  handler: EventHandler<KubeObject, ClusterRequest>;
  informer: KindInformer<KubeObject>;
  predicates: readonly Predicate[];
}

/**
 * `ask()`'s answer, asked again with backoff while it throws (the cluster cannot be reached yet); undefined if
 * `signal` aborts first.
 */
async function untilAnswered<T>(ask: () => Promise<T>, signal: AbortSignal, clock: Clock): Promise<T | undefined> {
  let wait = 200;
  while (!signal.aborted) {
    try {
      return await ask();
    } catch {
      if (!(await clock.sleep(wait, signal))) return undefined;
      wait = Math.min(wait * 2, 5_000);
    }
  }
  return undefined;
}
