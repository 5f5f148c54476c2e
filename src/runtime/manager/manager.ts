import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { CachedClient } from '../client/cached-client.js';
import { InformerCache } from '../cache/informer-cache.js';
import type { Checker } from '../healthz/index.js';
import { LeaderElector, leaderElectionNamespace } from '../leaderelection/index.js';
import { log as rootLog, type Logger } from '../log/index.js';
import { trackRestClientMetrics } from '../metrics/restclient.js';
import { MetricsServer } from '../metrics/server.js';
import { newClient, type RestClient } from '../rest/client.js';
import type { Client } from '../client/client.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { RunnableGroup } from './group.js';
import { DiscoveryClient } from '../discovery/discovery-client.js';
import { EventBroadcaster, type EventRecorder, type EventsRecorder } from './recorder.js';
import {
  DEFAULT_CACHE_SYNC_TIMEOUT,
  DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT,
  DEFAULT_SYNC_PERIOD,
  type ControllerDefaults,
  type ManagerOptions,
} from './options.js';
import { ProbeServer } from './probes.js';
import { checkServer, DEFAULT_SERVER_CHECK_TIMEOUT } from './server-check.js';
import { watchHeap } from './heap-guard.js';
import { realClock } from '../clock.js';
import { needsLeaderElection, type Runnable } from './runnable.js';
import { isDisabledAddress } from '../internal/serve.js';
import type { WebhookServer } from '../webhook/server.js';
import type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
import { ConfigurationError, LeaderElectionLostError, LifecycleError, TimeoutError } from '../errors.js';
import { ShardGate } from '../sharding/gate.js';
import { ShardRing, ringLeaseNamespace, ringTimings, validateRingOptions } from '../sharding/ring.js';
import type { RequestGate } from '../controller/controller.js';
import { crypto } from '../internal/builtins.js';

const { randomUUID } = crypto;

/** ManagerOptions.heapLimitFraction's default. */
const DEFAULT_HEAP_LIMIT_FRACTION = 0.75;

/** Adds field indexes to the manager's cache (controller-runtime's client.FieldIndexer). */
export interface FieldIndexer {
  /**
   * Indexes objects of `res` under `field` by the values `extract` returns, so cached lists can select on it with a
   * field selector (`field=value`).
   */
  indexField<T extends KubeObject>(res: Resource<T>, field: string, extract: (obj: T) => string[]): void;
}

/**
 * Runs everything an operator needs (controller-runtime's Manager): the shared cache and its clients, runnables
 * such as controllers, leader election, the probe and metrics servers, and a graceful stop.
 * @example
 * A manager with one controller. A real main passes `setupSignalHandler()` and runs until SIGTERM; this one stops
 * itself once the controller has reconciled the ConfigMap it created.
 * ```ts
 * import { Manager, loadKubeConfig, newClient, newControllerManagedBy } from '@kubescaffold/runtime';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * const kubeConfig = loadKubeConfig();
 * const client = newClient(kubeConfig);
 * await client.create(ConfigMaps, { metadata: { name: 'example-manager', namespace: 'default' }, data: { greeting: 'hello' } });
 * client.close();
 *
 * const stop = new AbortController();
 * const mgr = new Manager({ kubeConfig, metrics: { bindAddress: '0' }, healthProbe: { bindAddress: '0' } });
 * newControllerManagedBy(mgr)
 *   .named('greeter')
 *   .for(ConfigMaps)
 *   .complete({
 *     async reconcile(req) {
 *       if (req.name !== 'example-manager') return;
 *       // Reads come from the manager's cache; writes would go to the API server.
 *       const cm = await mgr.getClient().get(ConfigMaps, req);
 *       console.log(`${req.namespace}/${req.name} says ${cm.data?.greeting}`);
 *       stop.abort();
 *     },
 *   });
 * await mgr.start(stop.signal);
 * // Output:
 * // default/example-manager says hello
 * ```
 */
export class Manager {
  /** The operator's logger (the root logger unless ManagerOptions.log); controllers derive theirs from it. */
  readonly log: Logger;
  private readonly mlog: Logger;
  /** How long stop waits for runnables to finish (ms): ManagerOptions.gracefulShutdownTimeout or 30000. */
  readonly gracefulShutdownTimeout: number;
  /**
   * How long start waits for the cache's first lists (ms): ManagerOptions.cache.syncTimeout; undefined means the
   * default, 120000.
   */
  readonly cacheSyncTimeout: number | undefined;
  /** Defaults for every controller the builder makes (ManagerOptions.controller). */
  readonly controllerDefaults: ControllerDefaults;
  /**
   * Who this manager is in leader election: the Lease's holderIdentity while it leads (hostname_UUID, as
   * controller-runtime's resource lock id, unless leaderElection.identity names one).
   */
  readonly identity: string;
  private leading = false;
  private elector: LeaderElector | undefined;
  private readonly opts: ManagerOptions;
  private readonly apiClient: RestClient;
  private readonly cache: InformerCache;
  private readonly client: CachedClient;
  private readonly healthChecks = new Map<string, Checker>();
  private readonly readyChecks = new Map<string, Checker>();
  private readonly pending: Runnable[] = [];
  private readonly controllerNames = new Set<string>();
  private probeServer: ProbeServer | undefined;
  private metricsServer: MetricsServer | undefined;
  private addServer: ((r: Runnable) => void) | undefined;
  private startedFlag = false;
  private resolveElected!: () => void;
  private readonly electedPromise = new Promise<void>((r) => (this.resolveElected = r));
  private addToGroups: ((r: Runnable) => void) | undefined;
  private broadcaster: EventBroadcaster | undefined;
  private ring: ShardRing | undefined;
  private readonly gates: ShardGate[] = [];

  constructor(opts: ManagerOptions) {
    if (!opts.kubeConfig) throw new ConfigurationError('ManagerOptions.kubeConfig is required');
    if (opts.leaderElection?.enabled && !opts.leaderElection.id)
      throw new ConfigurationError('leaderElection.id must be configured when leader election is enabled');
    if (opts.sharding) validateRingOptions(ringTimings(opts.sharding));
    this.opts = opts;
    this.log = opts.log ?? rootLog;
    this.mlog = this.log.withName('manager');
    this.gracefulShutdownTimeout = opts.gracefulShutdownTimeout ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT;
    this.identity = opts.leaderElection?.identity ?? `${hostname()}_${randomUUID()}`;
    this.cacheSyncTimeout = opts.cache?.syncTimeout;
    this.controllerDefaults = opts.controller ?? {};
    // Clients open no connection until used; each has its own sockets. Under leader election every write is fenced:
    // once a term this manager led has ended, nothing more is sent (the elector's own client is not fenced).
    // A sharded reconcile's writes are fenced by its ring's term the same way.
    const fenced = opts.leaderElection?.enabled || opts.sharding !== undefined;
    const { fieldOwner, fieldValidation, warningHandler } = opts.client ?? {};
    this.apiClient = newClient(opts.kubeConfig, {
      fieldOwner,
      fieldValidation,
      warningHandler,
      ...(fenced ? { beforeWrite: () => this.checkWriteAllowed() } : {}),
    });
    const syncPeriod = opts.cache?.syncPeriod ?? DEFAULT_SYNC_PERIOD;
    this.cache = new InformerCache({
      client: this.apiClient,
      namespaces: opts.cache?.defaultNamespaces,
      defaultLabelSelector: opts.cache?.defaultLabelSelector,
      defaultFieldSelector: opts.cache?.defaultFieldSelector,
      byObject: opts.cache?.byObject,
      unsafeDisableDeepCopy: opts.cache?.unsafeDisableDeepCopy,
      ...(opts.cache?.defaultTransform !== undefined ? { defaultTransform: opts.cache.defaultTransform } : {}),
      ...(opts.cache?.readerFailOnMissingInformer ? { readerFailOnMissingInformer: true } : {}),
      // controller-runtime jitters the resync by up to 10% so replicas don't resync in step.
      resyncPeriodMs: syncPeriod > 0 ? Math.round(syncPeriod * (0.9 + Math.random() * 0.2)) : 0,
      log: this.log,
      ...(this.cacheSyncTimeout !== undefined ? { readSyncTimeout: this.cacheSyncTimeout } : {}),
      ...(opts.sharding
        ? {
            sharding: {
              ring: opts.sharding.ring,
              key: opts.sharding.key ?? 'uid',
              partitions: ringTimings(opts.sharding).partitions,
            },
          }
        : {}),
    });
    this.client = new CachedClient(this.cache, this.apiClient, opts.client);
    const webhooks = opts.webhookServer;
    webhooks?.attach({ client: this.apiClient, log: this.log, onFirstRegistration: () => this.addServer?.(webhooks) });
  }

  /** Reads from the shared cache (starting the kind's informer on first use), writes to the API server. */
  getClient(): CachedClient {
    return this.client;
  }

  /**
   * Throws what this manager's own client throws before a write it may not send: LeaderElectionLostError once a term
   * it led has ended (under leader election), ShardTermEndedError from a sharded reconcile whose ring term ended.
   * A multi-cluster manager fences the clients of the clusters it engages with it, so that a deposed leader writes
   * to none of them.
   */
  checkWriteAllowed(): void {
    this.elector?.checkLeading();
    this.ring?.checkTerm();
  }

  /** The cluster configuration the manager was made with (controller-runtime's GetConfig). */
  getConfig(): KubeConfig {
    return this.opts.kubeConfig;
  }

  /** Reads and writes straight to the API server; for reads that must not be stale, or before start. */
  getAPIReader(): Client {
    return this.apiClient;
  }

  getCache(): InformerCache {
    return this.cache;
  }

  getFieldIndexer(): FieldIndexer {
    return { indexField: (res, field, extract) => this.cache.indexField(res, field, extract) };
  }

  /**
   * Records core/v1 Events as `component` (controller-runtime's GetEventRecorderFor, which it deprecates for
   * getEventRecorder); written while the manager runs.
   */
  getEventRecorderFor(component: string): EventRecorder {
    return this.eventBroadcaster().recorderFor(component);
  }

  /**
   * Records events.k8s.io/v1 Events as the controller `name` (controller-runtime's GetEventRecorder): with the action
   * taken and a related object; core/v1 Events where the server does not serve events.k8s.io/v1 (asked once, of
   * discovery). Written while the manager runs.
   */
  getEventRecorder(name: string): EventsRecorder {
    return this.eventBroadcaster().eventsRecorderFor(name);
  }

  private eventBroadcaster(): EventBroadcaster {
    if (!this.broadcaster) {
      const discovery = new DiscoveryClient(this.apiClient.transport);
      this.broadcaster = new EventBroadcaster(this.apiClient, this.log.withName('events'), {
        servesEventsV1: async () =>
          (await discovery.serverGroup('events.k8s.io'))?.versions.some((v) => v.version === 'v1') ?? false,
      });
      this.add(this.broadcaster);
    }
    return this.broadcaster;
  }

  addHealthzCheck(name: string, check: Checker): void {
    addCheck(this.healthChecks, 'healthz', name, check);
  }

  addReadyzCheck(name: string, check: Checker): void {
    addCheck(this.readyChecks, 'readyz', name, check);
  }

  /** Adds a runnable; after start it starts at once (if its group runs). */
  add(r: Runnable): void {
    if (this.addToGroups) this.addToGroups(r);
    else this.pending.push(r);
  }

  /** Resolves once this manager is the leader (at start when leader election is off). */
  elected(): Promise<void> {
    return this.electedPromise;
  }

  /**
   * Whether this manager leads now, so its leader-elected runnables (controllers) run: from election until the Lease
   * is lost or the manager stops. Without leader election, from start until stop. False from the moment the elector's
   * term runs out, even before the manager has noticed (a process resumed after a pause).
   */
  isLeader(): boolean {
    return this.leading && (this.elector?.isLeader() ?? true);
  }

  /** Where /healthz and /readyz are served, once listening. */
  healthProbeAddress(): AddressInfo | undefined {
    return this.probeServer?.address();
  }

  /** Where /metrics is served, once listening. */
  metricsAddress(): AddressInfo | undefined {
    return this.metricsServer?.address();
  }

  /**
   * The webhook server of ManagerOptions.webhookServer (controller-runtime's GetWebhookServer). It runs only once a
   * webhook is registered: started before the cache (conversions must be served for the cache to list), stopped
   * after it.
   */
  getWebhookServer(): WebhookServer {
    if (!this.opts.webhookServer) {
      throw new ConfigurationError(
        "this manager has no webhook server: pass ManagerOptions.webhookServer (new WebhookServer({...}) from '@kubescaffold/runtime/webhook')",
      );
    }
    return this.opts.webhookServer;
  }

  /** Whether ManagerOptions.sharding is set: controllers built for a kind are then sharded across the ring. */
  sharded(): boolean {
    return this.opts.sharding !== undefined;
  }

  /** 'uid' or 'namespace': what places an object in the ring (ManagerOptions.sharding.key). */
  shardKey(): 'uid' | 'namespace' {
    return this.opts.sharding?.key ?? 'uid';
  }

  /**
   * The gate of a sharded controller reconciling `res`: caches `res` per partition and admits only requests of the
   * partitions this replica holds. The builder calls it for every controller with for() when sharding is on.
   */
  shardGate(res: Resource, controller: string): RequestGate {
    const sharding = this.opts.sharding;
    if (!sharding) throw new ConfigurationError('shardGate needs ManagerOptions.sharding');
    this.cache.shardKind(res);
    const gate = new ShardGate({
      ring: this.ringFor(),
      ringName: sharding.ring,
      cache: this.cache,
      resource: res,
      key: sharding.key ?? 'uid',
      partitions: ringTimings(sharding).partitions,
      controller,
    });
    this.gates.push(gate);
    return gate;
  }

  /** This replica's place in the shard ring (made on first use, run from start()). */
  private ringFor(): ShardRing {
    const sharding = this.opts.sharding!;
    if (!this.ring) {
      this.ring = new ShardRing({
        client: newClient(this.opts.kubeConfig),
        namespace: ringLeaseNamespace(sharding.namespace, 'shard ring'),
        identity: sharding.identity ?? this.identity,
        ...ringTimings(sharding),
        ...(sharding.clock ? { clock: sharding.clock } : {}),
        log: this.log,
        hooks: {
          start: (p, signal) => this.cache.startPartition(p, signal),
          stop: (p) => this.cache.stopPartition(p),
          activated: (p) => this.gates.forEach((g) => g.activated(p)),
          deactivated: (p) => this.gates.forEach((g) => g.deactivated(p)),
        },
      });
    }
    return this.ring;
  }

  /** The partitions this replica reconciles now (sharding), e.g. [0, 5, 9]; empty without sharding. */
  shardPartitions(): number[] {
    return this.ring?.activePartitions() ?? [];
  }

  /** Reserves a controller name; names must be unique because they label metrics and logs. */
  registerControllerName(name: string): void {
    if (this.controllerNames.has(name)) {
      throw new ConfigurationError(
        `controller with name ${name} already exists. Controller names must be unique to avoid multiple controllers reporting to the same metric`,
      );
    }
    this.controllerNames.add(name);
  }

  /**
   * Runs until `signal` aborts, then stops: leader-elected runnables first (in-flight reconciles get
   * gracefulShutdownTimeout), then the others, the cache, the Lease (released), and the servers. Resolves after a
   * clean stop; rejects with the first runnable error, or LeaderElectionLostError if the Lease was lost.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.startedFlag) throw new LifecycleError('the manager was already started', 'AlreadyStarted');
    this.startedFlag = true;
    let firstError: unknown;
    let leadershipLost = false;
    let stopping = false;
    let resolveStop!: () => void;
    const stopRequested = new Promise<void>((resolve) => (resolveStop = resolve));
    const requestStop = (): void => {
      stopping = true;
      resolveStop();
    };
    // The first error is what start() rejects with, for the caller to report (once); later ones are only logged, as
    // controller-runtime logs the errors received after its stop sequence was engaged.
    const fail = (err: unknown, r?: Runnable): void => {
      if (firstError === undefined) firstError = err;
      else this.mlog.error(err, 'error received after the stop began', r ? { runnable: r.constructor.name } : {});
      requestStop();
    };
    const onAbort = (): void => requestStop();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) requestStop();
    const heapFraction = this.opts.heapLimitFraction ?? DEFAULT_HEAP_LIMIT_FRACTION;
    const heapGuard =
      heapFraction < 1
        ? watchHeap({
            fraction: heapFraction,
            describe: () => this.cache.describeCached(),
            onExceeded: (err) => fail(err),
          })
        : undefined;

    const servers = new RunnableGroup('servers', fail, this.mlog);
    const caches = new RunnableGroup('caches', fail, this.mlog);
    const others = new RunnableGroup('others', fail, this.mlog);
    const leaderElected = new RunnableGroup('leaderElection', fail, this.mlog);
    const electionStop = new AbortController();
    let electionClient: RestClient | undefined;
    const ringStop = new AbortController();
    let ringRun: Promise<void> | undefined;
    let election: Promise<void> | undefined;
    const timers: ReturnType<typeof setTimeout>[] = [];

    const untrackRestClient = trackRestClientMetrics(this.apiClient.transport.server.href);
    try {
      const webhooks = this.opts.webhookServer?.registeredPaths().length ? this.opts.webhookServer : undefined;
      const usesServer =
        this.cache.informedKinds().length > 0 ||
        this.opts.leaderElection?.enabled === true ||
        this.opts.sharding !== undefined ||
        webhooks !== undefined;
      // A kubeconfig that cannot work (no server there, a CA that does not sign its certificate, rejected credentials)
      // ends the start in one error before informers (and the webhook server's caBundle injection) start retrying; a
      // manager that never calls the server skips it.
      const checkTimeout = this.opts.serverCheckTimeout ?? DEFAULT_SERVER_CHECK_TIMEOUT;
      if (checkTimeout > 0 && !stopping && usesServer) {
        const checkStop = new AbortController();
        void stopRequested.then(() => checkStop.abort());
        await checkServer({
          transport: this.apiClient.transport,
          timeout: checkTimeout,
          clock: realClock,
          signal: checkStop.signal,
        });
      }
      this.buildServers(servers);
      if (webhooks) servers.add(webhooks);
      this.addServer = (r) => servers.add(r);
      caches.add(this.cache);
      this.addToGroups = (r) => (needsLeaderElection(r) ? leaderElected : others).add(r);
      for (const r of this.pending.splice(0)) this.addToGroups(r);

      servers.start();
      // A failed start reaches us through the group's onError, which requests the stop.
      if (webhooks) await Promise.race([webhooks.ready().catch(() => {}), stopRequested]);
      caches.start();
      // The Lease is sought while the caches list, so that its round trips (and its client's first TLS handshake) do not
      // come after the list; leader-elected runnables still start only once the caches have synced too, as in
      // controller-runtime, which campaigns after its caches synced.
      let cachesSynced = false;
      let elected = false;
      const lead = (): void => {
        this.leading = true;
        leaderElected.start();
        this.resolveElected();
      };
      const le = this.opts.leaderElection;
      if (le?.enabled && !stopping) {
        electionClient = newClient(this.opts.kubeConfig);
        const elector = (this.elector = new LeaderElector({
          client: electionClient,
          identity: this.identity,
          ...(le.clock ? { clock: le.clock } : {}),
          namespace: leaderElectionNamespace(le.namespace),
          name: le.id!,
          leaseDuration: le.leaseDuration,
          renewDeadline: le.renewDeadline,
          retryPeriod: le.retryPeriod,
          releaseOnCancel: le.releaseOnCancel ?? true,
          ...(le.labels ? { labels: le.labels } : {}),
          log: this.log,
          onStartedLeading: () => {
            elected = true;
            if (cachesSynced) lead();
          },
          onStoppedLeading: () => {
            elected = false;
            this.leading = false;
            if (!electionStop.signal.aborted) {
              leadershipLost = true;
              fail(new LeaderElectionLostError());
            }
          },
        }));
        election = elector.run(electionStop.signal);
      }
      // Informers requested before start (by the builder's watches) list before controllers begin; a kind that
      // cannot list (CRD missing, no RBAC) fails the start after cacheSyncTimeout instead of hanging it.
      const syncTimeout = this.cacheSyncTimeout ?? DEFAULT_CACHE_SYNC_TIMEOUT;
      const timedOut = new AbortController();
      const syncTimer = setTimeout(() => timedOut.abort(), syncTimeout);
      const synced = await this.cache
        .waitForCacheSync(AbortSignal.any([abortOn(stopRequested), timedOut.signal]))
        .finally(() => clearTimeout(syncTimer));
      if (!synced && !stopping) {
        throw new TimeoutError(
          `timed out after ${syncTimeout} ms waiting for caches to sync: ${this.cache.unsyncedKinds().join(', ')}`,
        );
      }
      if (!stopping) {
        cachesSynced = true;
        if (this.opts.sharding) ringRun = this.ringFor().run(ringStop.signal);
        others.start();
        if (!le?.enabled || elected) lead();
      }
    } catch (err) {
      fail(err);
    }

    await stopRequested;
    this.leading = false;
    this.mlog.info('Stopping and waiting for non leader election runnables');
    // After losing the Lease another replica may already lead: stop at once, as controller-runtime does.
    const budget = leadershipLost ? 0 : this.gracefulShutdownTimeout;
    const deadline = new Promise<void>((resolve) => timers.push(setTimeout(resolve, budget)));
    let clean = await leaderElected.stop(deadline);
    clean = (await others.stop(deadline)) && clean;
    // The ring goes after the controllers (nothing in flight) and before the cache: it stops its partitions and
    // deletes its Lease, so the other replicas take them over at once.
    ringStop.abort();
    if (ringRun) await Promise.race([ringRun, deadline]);
    clean = (await caches.stop(deadline)) && clean;
    // The Lease is released only after the controllers stopped, so two leaders never reconcile at once.
    electionStop.abort();
    if (election) await Promise.race([election, deadline]);
    clean = (await servers.stop(deadline)) && clean;
    for (const t of timers) clearTimeout(t);
    heapGuard?.stop();
    signal.removeEventListener('abort', onAbort);
    this.addToGroups = undefined;
    this.addServer = undefined;
    electionClient?.close();
    this.apiClient.close();
    untrackRestClient();
    if (!clean && !leadershipLost)
      this.mlog.info('graceful shutdown timed out; some runnables did not finish', { timeoutMs: budget });
    this.mlog.info('Stopped');
    if (firstError !== undefined) throw firstError;
  }

  private buildServers(servers: RunnableGroup): void {
    const probeAddr = this.opts.healthProbe?.bindAddress;
    if (!isDisabledAddress(probeAddr)) {
      this.probeServer = new ProbeServer(
        probeAddr!,
        this.healthChecks,
        this.readyChecks,
        this.mlog.withName('health probe'),
      );
      servers.add(this.probeServer);
    }
    const metrics = this.opts.metrics;
    if (!isDisabledAddress(metrics?.bindAddress)) {
      const secure = metrics?.secureServing ?? true;
      this.metricsServer = new MetricsServer({
        bindAddress: metrics!.bindAddress!,
        secureServing: secure,
        enableHTTP2: metrics?.enableHTTP2 ?? false,
        certDir: metrics?.certDir,
        certName: metrics?.certName,
        keyName: metrics?.keyName,
        ...(secure ? { authClient: this.apiClient } : {}),
        log: this.mlog.withName('metrics'),
      });
      servers.add({ start: (s) => this.metricsServer!.start(s), needLeaderElection: () => false });
    }
  }
}

function addCheck(map: Map<string, Checker>, kind: string, name: string, check: Checker): void {
  if (map.has(name)) throw new ConfigurationError(`${kind} check ${name} already exists`);
  map.set(name, check);
}

/** An AbortSignal aborted when `p` settles. */
function abortOn(p: Promise<unknown>): AbortSignal {
  const ac = new AbortController();
  void p.finally(() => ac.abort());
  return ac.signal;
}
