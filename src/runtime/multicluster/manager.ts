import { realClock, type Clock } from '../clock.js';
import { ConfigurationError } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { FieldIndexer, Manager } from '../manager/manager.js';
import type { Runnable } from '../manager/runnable.js';
import { removeClusterControllerMetrics } from '../metrics/controller.js';
import { clusterEngagementsTotal, removeClusterMetrics, setClusterStateMetric } from '../metrics/multicluster.js';
import { removeClusterWorkqueueMetrics } from '../metrics/workqueue.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { newClient } from '../rest/client.js';
import type { RequestGate } from '../controller/controller.js';
import { ShardRing, ringLeaseNamespace, ringTimings, validateRingOptions } from '../sharding/ring.js';
import { localCluster, setClusterFence, type Cluster } from './cluster.js';
import { clusterGate, clusterPartition, type ClusterShardingOptions } from './sharding.js';
import type { MultiClusterRunnable } from './controller.js';
import { ClusterNotFoundError, type Aware, type Provider } from './provider.js';
import { onAbort, untilAborted } from '../internal/abort-fanout.js';

/** How the manager watches the clusters it engages (the local cluster excepted: the manager runs in it). */
export interface ClusterHealthOptions {
  /**
   * How often each engaged cluster's API server is asked for /readyz (ms); one that does not answer is asked every
   * second (or this, if shorter) until it does. Default 10000; 0 turns checks off.
   */
  interval?: number;
  /** How long one check waits for an answer (ms). Default 5000. */
  timeout?: number;
  /**
   * How long a cluster may go unanswered before its controllers stop and their queues are dropped (ms); its
   * informers keep retrying with backoff, and the controllers start again once it answers (the informers then retry
   * at once, their backoff started over). Default 60000.
   */
  unreachableGracePeriod?: number;
}

/** Options of a MultiClusterManager. */
export interface MultiClusterManagerOptions {
  /**
   * What finds the clusters (kubeconfig Secrets, Cluster API, files, namespaces). Without one the manager engages
   * only its own cluster, as '': multi-cluster controllers then work as single-cluster ones.
   */
  provider?: Provider;
  /** Health checks of engaged clusters. */
  health?: ClusterHealthOptions;
  /**
   * How often a cluster that lacks kinds a controller watches is asked again whether it serves them (ms). Default
   * 30000.
   */
  kindRecheckInterval?: number;
  /**
   * Spreads the clusters over the replicas of a ring instead of engaging them all on the leader: each replica
   * engages the clusters whose names hash into its partitions. Off unless `ring` is set.
   */
  sharding?: ClusterShardingOptions;
  /** Where waits come from; tests pass a fake clock. Default the real one. */
  clock?: Clock;
}

/**
 * Where an engaged cluster is: `starting` (controllers' informers listing), `engaged` (reconciling, every informer
 * watching), `reconnecting` (its API server answers, but some informers' watches are not open again yet: they retry
 * at once), `unreachable` (its API server does not answer; reconciling what it can within the grace period),
 * `suspended` (unreachable beyond the grace period: controllers stopped, queues dropped, informers retrying).
 */
export type ClusterState = 'starting' | 'engaged' | 'reconnecting' | 'unreachable' | 'suspended';

const DEFAULT_HEALTH_INTERVAL = 10_000;
const DEFAULT_HEALTH_TIMEOUT = 5_000;
const DEFAULT_UNREACHABLE_GRACE = 60_000;
// How often a cluster that does not answer is asked again (when health.interval is longer).
const UNREACHABLE_INTERVAL = 1_000;

/** One engaged cluster: its runtime (cache, health checks) and the current session of its controllers. */
class Engagement {
  state: ClusterState = 'starting';
  readonly runtime = new AbortController();
  runtimeRun: Promise<void> = Promise.resolve();
  session: AbortController | undefined;
  /** Settles once the session's work has stopped. */
  sessionStopped: Promise<void> = Promise.resolve();
  unreachableSince: number | undefined;
  /** Ends the wait for the cluster's watches to open again (a newer wait, or a new failure, replaces it). */
  reconnect: AbortController | undefined;
  disengaging: Promise<void> | undefined;
  constructor(
    readonly cluster: Cluster,
    readonly local: boolean,
    readonly log: Logger,
  ) {}
}

/**
 * A manager of controllers that reconcile in many clusters (multicluster-runtime's mcmanager): it wraps a Manager,
 * which keeps running the manager's own cluster (its cache, leader election, probes and metrics), and engages the
 * clusters its provider finds while it runs. Each engaged cluster gets its own cache, informers and client, and its
 * own queue and workers in every multi-cluster controller; a cluster that stops answering keeps retrying on its own
 * and never holds the others back. Build controllers with newMultiClusterControllerManagedBy(mgr).
 * @example
 * A controller of ConfigMaps in every cluster: here the provider is a fixed list holding the manager's own cluster
 * under the name `east`; in production it is a KubeconfigSecretProvider or a ClusterAPIProvider.
 * ```ts
 * import { Manager, loadKubeConfig } from '@kubescaffold/runtime';
 * import { MultiClusterManager, StaticProvider, newMultiClusterControllerManagedBy } from '@kubescaffold/runtime/multicluster';
 * import { ConfigMaps, newClient } from '@kubescaffold/runtime/rest';
 *
 * const kubeConfig = loadKubeConfig();
 * const api = newClient(kubeConfig);
 * await api.create(ConfigMaps, { metadata: { name: 'example-multicluster', namespace: 'default' } });
 * api.close();
 *
 * const stop = new AbortController();
 * const mgr = new MultiClusterManager(new Manager({ kubeConfig }), {
 *   provider: new StaticProvider({ clusters: { east: kubeConfig }, clusterOptions: { cache: { defaultNamespaces: ['default'] } } }),
 * });
 * newMultiClusterControllerManagedBy(mgr)
 *   .for(ConfigMaps)
 *   .complete({
 *     async reconcile(req) {
 *       if (req.name !== 'example-multicluster') return;
 *       // Reads come from the cache of the request's cluster.
 *       const cm = await mgr.getCluster(req.cluster).getClient().get(ConfigMaps, req);
 *       console.log(`reconciled ${cm.metadata?.name} in ${req.cluster}`);
 *       stop.abort();
 *     },
 *   });
 * await mgr.start(stop.signal);
 * // Output:
 * // reconciled example-multicluster in east
 * ```
 */
export class MultiClusterManager implements Aware {
  /** The manager's logger, named multicluster. */
  readonly log: Logger;
  private readonly mgr: Manager;
  private readonly opts: MultiClusterManagerOptions;
  private readonly clock: Clock;
  private readonly local: Cluster;
  private readonly engagements = new Map<string, Engagement>();
  // Disengagements under way: the manager's stop waits for them (a provider lets its clusters go as it stops).
  private readonly disengaging = new Set<Promise<void>>();
  // The clusters whose engagement is stopping, and when it will have.
  private readonly stoppingClusters = new Map<Cluster, Promise<void>>();
  private readonly runnables: MultiClusterRunnable[] = [];
  private readonly indexes: { res: Resource; field: string; extract: (obj: KubeObject) => string[] }[] = [];
  private pending: { cluster: Cluster; signal: AbortSignal }[] | undefined = [];
  private runSignal: AbortSignal | undefined;
  // With a cluster ring: every cluster the provider engaged, and the partitions this replica reconciles now.
  private ring: ShardRing | undefined;
  private readonly known = new Map<string, { cluster: Cluster; local: boolean }>();
  private readonly activePartitions = new Set<number>();

  constructor(mgr: Manager, opts: MultiClusterManagerOptions = {}) {
    if (opts.sharding) validateRingOptions(ringTimings(opts.sharding));
    this.mgr = mgr;
    this.opts = opts;
    this.clock = opts.clock ?? realClock;
    this.log = mgr.log.withName('multicluster');
    this.local = localCluster(mgr, mgr.getConfig());
    // Sharded, every replica runs it and the ring decides; otherwise the leader does.
    const leaderElected = !opts.sharding && (mgr.controllerDefaults.needLeaderElection ?? true);
    const runnable: Runnable = { start: (s) => this.run(s), needLeaderElection: () => leaderElected };
    mgr.add(runnable);
  }

  /** The ring's partitions this replica holds and engages the clusters of (sharding), e.g. [0, 5]; empty otherwise. */
  clusterPartitions(): number[] {
    return [...this.activePartitions].sort((a, b) => a - b);
  }

  /** The Manager this one wraps: the manager's own cluster (controller-runtime's manager). */
  getLocalManager(): Manager {
    return this.mgr;
  }

  /** The provider, if any. */
  getProvider(): Provider | undefined {
    return this.opts.provider;
  }

  /**
   * The engaged cluster of that name; '' is the manager's own. Throws ClusterNotFoundError for a cluster that is not
   * engaged (not found yet, or disengaged).
   */
  getCluster(name: string): Cluster {
    if (name === '') return this.local;
    const e = this.engagements.get(name);
    if (!e) throw new ClusterNotFoundError(name);
    return e.cluster;
  }

  /** The names of the engaged clusters other than the local one, sorted. */
  clusterNames(): string[] {
    return [...this.engagements.keys()].filter((n) => n !== '').sort();
  }

  /** The state of an engaged cluster, or undefined when it is not engaged. */
  clusterState(name: string): ClusterState | undefined {
    return this.engagements.get(name)?.state;
  }

  /**
   * Indexes `res` objects under `field` in every cluster's cache: the local one, the engaged ones and those engaged
   * later (multicluster-runtime's GetFieldIndexer).
   */
  getFieldIndexer(): FieldIndexer {
    return {
      indexField: (res, field, extract) => {
        const entry = { res, field, extract: extract as (obj: KubeObject) => string[] };
        this.indexes.push(entry);
        this.local.getCache().indexField(res, field, entry.extract);
        for (const e of this.engagements.values())
          if (!e.local) e.cluster.getCache().indexField(res, field, entry.extract);
      },
    };
  }

  /** @internal What the builder passes to its controllers from this manager's options. */
  controllerSettings(): {
    kindRecheckInterval?: number;
    clock?: Clock;
    gateFor: (cluster: Cluster) => RequestGate | undefined;
  } {
    return {
      ...(this.opts.kindRecheckInterval !== undefined ? { kindRecheckInterval: this.opts.kindRecheckInterval } : {}),
      ...(this.opts.clock ? { clock: this.opts.clock } : {}),
      gateFor: (cluster) => {
        const s = this.opts.sharding;
        if (!s || !this.ring) return undefined;
        return clusterGate(this.ring, clusterPartition(cluster.name, ringTimings(s).partitions), cluster.name);
      },
    };
  }

  /** Adds something that runs in every engaged cluster (the builder adds its controllers); after start, at once. */
  add(r: MultiClusterRunnable): void {
    this.runnables.push(r);
    for (const e of this.engagements.values()) if (e.session) this.engageIn(e, r, e.session.signal);
  }

  /** Runs the manager (its own cluster's runnables, the provider, every engaged cluster) until `signal` aborts. */
  start(signal: AbortSignal): Promise<void> {
    return this.mgr.start(signal);
  }

  /**
   * Engages `cluster` until `signal` aborts (multicluster-runtime's Engage): starts its cache, checks its health and
   * runs every multi-cluster controller there. Returns at once.
   */
  engage(cluster: Cluster, signal: AbortSignal): void {
    if (cluster.name === '')
      throw new ConfigurationError("a provider's cluster needs a name: '' is the manager's own cluster");
    if (signal.aborted) return;
    if (this.pending) {
      this.pending.push({ cluster, signal });
      return;
    }
    if (this.runSignal?.aborted) return;
    const existing = this.engagements.get(cluster.name);
    if (existing?.cluster === cluster || this.known.get(cluster.name)?.cluster === cluster) return;
    if (existing) void this.disengage(existing, 'replaced by a new cluster of the same name');
    this.offer(cluster, false);
    signal.addEventListener(
      'abort',
      () => {
        if (this.known.get(cluster.name)?.cluster === cluster) this.known.delete(cluster.name);
        const e = this.engagements.get(cluster.name);
        if (e?.cluster === cluster) void this.disengage(e, 'its provider let it go');
      },
      { once: true },
    );
  }

  /** Engages the cluster now, or with a cluster ring once (and while) this replica holds its partition. */
  private offer(cluster: Cluster, local: boolean): void {
    const s = this.opts.sharding;
    if (!s) {
      this.newEngagement(cluster, local);
      return;
    }
    this.known.set(cluster.name, { cluster, local });
    if (this.activePartitions.has(clusterPartition(cluster.name, ringTimings(s).partitions)))
      this.newEngagement(cluster, local);
  }

  /** This replica's place in the cluster ring: partitions opening engage their clusters, closing ones disengage them. */
  private newRing(s: ClusterShardingOptions): ShardRing {
    const timings = ringTimings(s);
    const inPartition = (p: number) => (name: string) => clusterPartition(name, timings.partitions) === p;
    return new ShardRing({
      client: newClient(this.mgr.getConfig()),
      namespace: ringLeaseNamespace(s.namespace, 'cluster ring'),
      identity: s.identity ?? this.mgr.identity,
      ...timings,
      ...(s.clock ? { clock: s.clock } : {}),
      log: this.log,
      hooks: {
        start: () => Promise.resolve(true),
        activated: (p) => {
          this.activePartitions.add(p);
          for (const [name, k] of this.known)
            if (inPartition(p)(name) && this.engagements.get(name)?.cluster !== k.cluster)
              this.newEngagement(k.cluster, k.local);
        },
        deactivated: (p) => {
          this.activePartitions.delete(p);
        },
        // The ring announces the partition free only once this resolves: its clusters' controllers have stopped.
        stop: async (p) => {
          this.activePartitions.delete(p);
          const leaving = [...this.engagements.values()].filter((e) => inPartition(p)(e.cluster.name));
          await Promise.all(
            leaving.map((e) => this.disengage(e, "this replica no longer holds the cluster's partition")),
          );
        },
      },
    });
  }

  /** Runs as a runnable of the local manager: engages the local cluster and the provider's, until `signal` aborts. */
  private async run(signal: AbortSignal): Promise<void> {
    this.runSignal = signal;
    const ringClient = this.opts.sharding ? (this.ring = this.newRing(this.opts.sharding)) : undefined;
    this.offer(this.local, true);
    const pending = this.pending ?? [];
    this.pending = undefined;
    for (const p of pending) this.engage(p.cluster, p.signal);
    // On the way out the ring disengages its partitions' clusters before it deletes its Lease.
    const ringRun = ringClient?.run(signal) ?? Promise.resolve();
    const provider = this.opts.provider;
    const providerRun = provider
      ? provider.start(signal, { aware: this, host: this.local, log: this.log.withName('provider') })
      : Promise.resolve();
    let failed: unknown;
    await Promise.race([
      untilAborted(signal),
      providerRun.then(
        () => new Promise<void>(() => {}),
        (err: unknown) => {
          failed = err;
        },
      ),
    ]);
    await providerRun.catch(() => {});
    await ringRun.catch((err: unknown) => this.log.error(err, 'the cluster ring stopped with an error'));
    for (const e of [...this.engagements.values()]) void this.disengage(e, 'the manager is stopping');
    await Promise.all([...this.disengaging]);
    if (failed !== undefined) throw failed;
  }

  private newEngagement(cluster: Cluster, local: boolean): Engagement {
    const e = new Engagement(cluster, local, this.log.withValues({ cluster: cluster.name }));
    this.engagements.set(cluster.name, e);
    // A cluster handed back while its last engagement is still stopping runs again once that has stopped.
    const prior = this.stoppingClusters.get(cluster);
    if (prior) void prior.then(() => this.begin(e));
    else this.begin(e);
    return e;
  }

  private begin(e: Engagement): void {
    if (e.disengaging) return;
    const cluster = e.cluster;
    if (!e.local) {
      // Writes are fenced by the manager's leader election and, sharded, by the ring's term.
      setClusterFence(cluster, () => {
        this.mgr.checkWriteAllowed();
        this.ring?.checkTerm();
      });
      for (const i of this.indexes) cluster.getCache().indexField(i.res, i.field, i.extract);
      e.runtimeRun = cluster
        .start(e.runtime.signal)
        .catch((err: unknown) => e.log.error(err, 'cluster stopped with an error'));
      // A watch that fails while the cluster is engaged: reported at once, not at the next health check.
      const cache = cluster.getCache();
      const off = cache.onWatchesChange(() => {
        if (e.state === 'engaged' && cache.watchesDown().length > 0) void this.engagedOnceWatching(e);
      });
      onAbort(e.runtime.signal, off);
      clusterEngagementsTotal.labels({ event: 'engaged' }).inc();
      e.log.info('Engaging cluster', { server: cluster.kubeConfig.server });
      void this.watchHealth(e);
    }
    this.startSession(e);
  }

  private setState(e: Engagement, state: ClusterState): void {
    e.state = state;
    if (!e.local) setClusterStateMetric(e.cluster.name, state);
  }

  /** Engages every runnable in the cluster anew (at engagement, and after a suspension). */
  private startSession(e: Engagement): void {
    const session = new AbortController();
    e.session = session;
    this.setState(e, 'starting');
    const started = this.clock.now();
    const readies = this.runnables.map((r) => this.engageIn(e, r, session.signal));
    e.sessionStopped = Promise.allSettled(readies.map((r) => r.then((w) => w.stopped))).then(() => {});
    void Promise.all(readies).then(
      () => {
        if (e.session !== session || session.signal.aborted) return;
        if (!e.local) e.log.info('Engaged cluster', { ms: Math.round(this.clock.now() - started) });
        // After a suspension the informers kept running, synced from before: their watches may still be down.
        if (e.state === 'starting') {
          if (e.local) this.setState(e, 'engaged');
          else void this.engagedOnceWatching(e);
        }
      },
      (err: unknown) => {
        if (e.session !== session || session.signal.aborted) return;
        // A controller could not start there (its informers did not list in time): start them all again later.
        e.log.error(err, 'could not engage every controller in the cluster; trying again');
        session.abort();
        void this.retrySession(e, session);
      },
    );
  }

  private engageIn(e: Engagement, r: MultiClusterRunnable, signal: AbortSignal): Promise<{ stopped: Promise<void> }> {
    try {
      return r.engage(e.cluster, signal);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private async retrySession(e: Engagement, failed: AbortController): Promise<void> {
    await e.sessionStopped;
    if (!(await this.clock.sleep(this.healthOption('interval', DEFAULT_HEALTH_INTERVAL) || 5_000, e.runtime.signal)))
      return;
    if (e.session === failed && e.state !== 'suspended') this.startSession(e);
  }

  /**
   * Reports the cluster `engaged` once every informer of its cache watches. Until then it is `reconnecting`, said in
   * a log line, and the informers retry at once: a cluster whose watches are down is never reported engaged.
   */
  private async engagedOnceWatching(e: Engagement): Promise<void> {
    e.reconnect?.abort();
    const cache = e.cluster.getCache();
    const down = cache.watchesDown();
    if (down.length === 0) {
      e.reconnect = undefined;
      this.setState(e, 'engaged');
      return;
    }
    const wait = new AbortController();
    e.reconnect = wait;
    const from = e.state;
    // While its controllers start, a watch not open yet is part of starting: the state stays `starting`.
    if (from !== 'starting') {
      this.setState(e, 'reconnecting');
      e.log.info('Cluster answers, but some of its watches are not open: retrying them at once', {
        watches: down.length,
        first: down[0],
      });
    }
    cache.retryNow();
    const started = this.clock.now();
    const unregister = onAbort(e.runtime.signal, () => wait.abort());
    const up = await cache.waitForWatches(wait.signal).finally(unregister);
    if (!up || e.reconnect !== wait || e.state !== (from === 'starting' ? 'starting' : 'reconnecting')) return;
    e.reconnect = undefined;
    if (from !== 'starting') e.log.info('Cluster watches again', { ms: Math.round(this.clock.now() - started) });
    this.setState(e, 'engaged');
  }

  private healthOption(key: keyof ClusterHealthOptions, fallback: number): number {
    return this.opts.health?.[key] ?? fallback;
  }

  /** Asks the cluster for /readyz every interval; suspends its controllers after the grace period without answer. */
  private async watchHealth(e: Engagement): Promise<void> {
    const interval = this.healthOption('interval', DEFAULT_HEALTH_INTERVAL);
    if (interval <= 0) return;
    const timeout = this.healthOption('timeout', DEFAULT_HEALTH_TIMEOUT);
    const grace = this.healthOption('unreachableGracePeriod', DEFAULT_UNREACHABLE_GRACE);
    const signal = e.runtime.signal;
    // A cluster that does not answer is asked more often, so that its return is noticed within a second.
    const next = (): number => (e.unreachableSince === undefined ? interval : Math.min(interval, UNREACHABLE_INTERVAL));
    while (await this.clock.sleep(next(), signal)) {
      let failure: unknown;
      try {
        await e.cluster.probe(signal, timeout);
      } catch (err) {
        failure = err;
      }
      if (signal.aborted) return;
      if (failure === undefined) {
        if (e.unreachableSince === undefined) {
          // It answered all along, but a watch may have failed between two checks (a restart faster than the
          // interval) and be waiting out its backoff.
          if (e.state === 'engaged' && e.cluster.getCache().watchesDown().length > 0) void this.engagedOnceWatching(e);
          continue;
        }
        e.unreachableSince = undefined;
        // Its informers back off after their failures (up to 30 s): they retry now instead.
        e.cluster.getCache().retryNow();
        if (e.state === 'suspended') {
          e.log.info('Cluster answers again: engaging its controllers again');
          clusterEngagementsTotal.labels({ event: 'resumed' }).inc();
          // The stopped session's last reconciles finish first: one object is never reconciled twice at once.
          await e.sessionStopped;
          if (!signal.aborted && e.state === 'suspended' && e.unreachableSince === undefined) this.startSession(e);
        } else {
          e.log.info('Cluster answers again');
          if (e.state === 'unreachable') void this.engagedOnceWatching(e);
        }
        continue;
      }
      const now = this.clock.now();
      if (e.unreachableSince === undefined) {
        e.unreachableSince = now;
        e.log.info('Cluster does not answer: its informers keep retrying', { error: errorText(failure) });
        if (e.state === 'engaged' || e.state === 'reconnecting' || e.state === 'starting') {
          e.reconnect?.abort();
          this.setState(e, 'unreachable');
        }
      }
      if (e.state !== 'suspended' && now - e.unreachableSince >= grace) {
        e.log.info(
          'Cluster has not answered for the grace period: its controllers stopped and their queues were dropped; they start again once it answers',
          { graceMs: grace },
        );
        clusterEngagementsTotal.labels({ event: 'suspended' }).inc();
        this.setState(e, 'suspended');
        e.session?.abort();
        e.session = undefined;
      }
    }
  }

  /** Stops the cluster's controllers, then its cache and sockets, and forgets it. */
  private disengage(e: Engagement, why: string): Promise<void> {
    if (e.disengaging) return e.disengaging;
    e.disengaging = (async () => {
      if (this.engagements.get(e.cluster.name) === e) this.engagements.delete(e.cluster.name);
      e.session?.abort();
      e.session = undefined;
      const grace = this.mgr.gracefulShutdownTimeout;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, grace)));
      await Promise.race([e.sessionStopped, deadline]);
      e.runtime.abort();
      await Promise.race([e.runtimeRun, deadline]);
      clearTimeout(timer);
      if (e.local) return;
      setClusterFence(e.cluster, undefined);
      // A cluster engaged again under the same name (a changed kubeconfig) keeps its series.
      if (!this.engagements.has(e.cluster.name)) {
        removeClusterMetrics(e.cluster.name);
        removeClusterControllerMetrics(e.cluster.name);
        removeClusterWorkqueueMetrics(e.cluster.name);
      }
      clusterEngagementsTotal.labels({ event: 'disengaged' }).inc();
      e.log.info('Disengaged cluster', { reason: why });
    })();
    const p = e.disengaging;
    this.disengaging.add(p);
    this.stoppingClusters.set(e.cluster, p);
    void p.finally(() => {
      this.disengaging.delete(p);
      if (this.stoppingClusters.get(e.cluster) === p) this.stoppingClusters.delete(e.cluster);
    });
    return p;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
