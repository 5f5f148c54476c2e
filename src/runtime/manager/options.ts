import type { Clock } from '../clock.js';
import type { Logger } from '../log/index.js';
import type { ByObject } from '../cache/informer-cache.js';
import type { TransformFunc } from '../cache/delta-fifo.js';
import type { KubeObject } from '../rest/types.js';
import type { CachedClientOptions } from '../client/cached-client.js';
import type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
import type { WebhookServer } from '../webhook/server.js';
import type { ShardKey } from '../sharding/selector.js';

/**
 * How a Manager runs, grouped as controller-runtime's manager.Options are. Only `kubeConfig` is required; every
 * default is controller-runtime's and is documented at its field.
 */
export interface ManagerOptions {
  /** Where the API server is and who we are to it: `loadKubeConfig()`, or a test environment's kubeConfig. */
  kubeConfig: KubeConfig;
  /** The shared informer cache behind the manager's client. */
  cache?: CacheOptions;
  /**
   * The manager's client: the field owner and field validation of its writes, where API warnings go, and which kinds
   * it reads live instead of from the cache.
   */
  client?: CachedClientOptions;
  /** /metrics; off unless `bindAddress` is set. */
  metrics?: MetricsOptions;
  /** /healthz and /readyz; off unless `bindAddress` is set. */
  healthProbe?: HealthProbeOptions;
  /** Leader election on a Lease; off unless `enabled`. */
  leaderElection?: LeaderElectionOptions;
  /**
   * Shards the controllers across the replicas of a ring instead of running them on one leader: each replica
   * reconciles the objects whose hash falls in the partitions it holds, and lists and watches only those. Off unless
   * `ring` is set.
   */
  sharding?: ShardingOptions;
  /**
   * The server for admission and conversion webhooks (`new WebhookServer(...)` from @kubescaffold/runtime/webhook).
   * The manager runs it once a webhook is registered, before the cache (conversions must be served for the cache to
   * list), and stops it last. Without one, getWebhookServer() throws.
   */
  webhookServer?: WebhookServer;
  /**
   * How long start() tries to reach the API server before it gives up (ms), when the manager will use it (a kind is
   * watched, leader election or sharding is on, or a webhook is registered). The check asks for the server's version
   * before the caches start, so that a kubeconfig that cannot work ends the start in one error that names the server
   * and what to fix; a certificate the kubeconfig's CA does not sign and rejected credentials fail at once. Default
   * 10000; 0 skips the check.
   */
  serverCheckTimeout?: number;
  /** How long a stop waits for runnables (in-flight reconciles) before giving up on them (ms). Default 30000. */
  gracefulShutdownTimeout?: number;
  /**
   * Stops the manager with a HeapLimitError when, after a full garbage collection under pressure (within a second of
   * the one before, and pausing the program for 30% or more of the time since), this share of the old generation's
   * limit (--max-old-space-size) is still in use: the caches outgrew the memory the process was given, and V8 would
   * soon abort it with a fatal error (it does at 80% under pressure), in the middle of a list. The error names the
   * size reached, what is cached and the limit to raise. Default 0.75; 1 or more turns it off.
   */
  heapLimitFraction?: number;
  /** Defaults for every controller of this manager; a controller's own options win (controller-runtime's Controller). */
  controller?: ControllerDefaults;
  /** Parent logger; default the root logger. */
  log?: Logger;
}

/**
 * Defaults for every controller a manager builds (controller-runtime's config.Controller). A controller's own
 * options (`.withOptions()`) take precedence. Reconcilers' exceptions are always recovered, so there is no
 * RecoverPanic; warm-up is what the caches already do (they list before the election).
 */
export interface ControllerDefaults {
  /**
   * Workers per kind reconciled, keyed by the kind's GroupKind as controller-runtime writes it: `Kind.group`, or the
   * bare Kind for the core group (`{ 'Deployment.apps': 4, ConfigMap: 2 }`). Wins over maxConcurrentReconciles.
   */
  groupKindConcurrency?: Record<string, number>;
  /** Workers of each controller without its own. Default 1. */
  maxConcurrentReconciles?: number;
  /** How long each reconcile may run before its signal aborts (ms); 0 disables. Default 0. */
  reconciliationTimeout?: number;
  /** Whether controllers run only on the elected leader. Default true. */
  needLeaderElection?: boolean;
  /** Whether controllers queue on the priority queue (real changes before the initial list's). Default true. */
  usePriorityQueue?: boolean;
}

/** The shared cache (controller-runtime's cache.Options). */
export interface CacheOptions {
  /** Watch and cache only these namespaces (cluster-scoped kinds are unaffected); all namespaces when unset. */
  defaultNamespaces?: string[];
  /** Cache only objects matching this label selector, for every kind without its own in byObject. */
  defaultLabelSelector?: string;
  /** Cache only objects matching this field selector, for every kind without its own in byObject. */
  defaultFieldSelector?: string;
  /**
   * Per kind: other namespaces, a label or field selector, a transform. An operator that owns Secrets caches only
   * its own with `{ resource: Secrets, labelSelector: 'app.kubernetes.io/managed-by=my-operator' }`; reads of that
   * kind see only what is cached.
   */
  byObject?: ByObject[];
  /**
   * Hand out cached objects instead of deep copies (faster, leaner); only for code that never changes what it
   * reads: a change would corrupt the cache for every reader.
   */
  unsafeDisableDeepCopy?: boolean;
  /** Informer resync period (ms); default 10 h with 10% jitter, as controller-runtime. 0 disables. */
  syncPeriod?: number;
  /**
   * Applied to every object of each kind without its own transform in byObject, before it is cached; default the
   * compaction that drops managedFields and shares equal strings; null caches objects as served.
   */
  defaultTransform?: TransformFunc<KubeObject> | null;
  /**
   * A cached read of a kind nothing watches fails with ResourceNotCachedError instead of starting an informer for it
   * and waiting for its list (controller-runtime's ReaderFailOnMissingInformer). Default false.
   */
  readerFailOnMissingInformer?: boolean;
  /** How long start(), controllers and cached reads wait for a kind's first list (ms). Default 120000. */
  syncTimeout?: number;
}

/** The metrics server (controller-runtime's metricsserver.Options). */
export interface MetricsOptions {
  /** '[host]:port' for /metrics; '0' or unset serves nothing. */
  bindAddress?: string;
  /** HTTPS with TokenReview + SubjectAccessReview on every request. Default true. */
  secureServing?: boolean;
  /** Offer HTTP/2. Default false (the HTTP/2 Rapid Reset and Stream Cancellation CVEs). */
  enableHTTP2?: boolean;
  /** Directory holding the serving certificate; a self-signed one is made when unset. */
  certDir?: string;
  /** Default 'tls.crt'. */
  certName?: string;
  /** Default 'tls.key'. */
  keyName?: string;
}

/** The health probe server. */
export interface HealthProbeOptions {
  /** '[host]:port' for /healthz and /readyz; '0' or unset serves nothing. */
  bindAddress?: string;
}

/** Leader election (controller-runtime's LeaderElection* options). */
export interface LeaderElectionOptions {
  /** Run leader-elected runnables (controllers) only while holding the Lease. */
  enabled: boolean;
  /** The Lease's name; required when enabled. */
  id?: string;
  /** The Lease's namespace; default the pod's own (its service account's namespace file). */
  namespace?: string;
  /** Clear the Lease on a clean stop so another replica takes over at once. Default true. */
  releaseOnCancel?: boolean;
  /** How long a Lease is held without renewal (ms). Default 15000. */
  leaseDuration?: number;
  /** How long the leader keeps trying to renew before it gives up (ms). Default 10000. */
  renewDeadline?: number;
  /** How often candidates try to acquire or renew (ms). Default 2000. */
  retryPeriod?: number;
  /** This manager's holderIdentity; default hostname_UUID, unique per process. */
  identity?: string;
  /**
   * Labels on the Lease (controller-runtime's LeaderElectionLabels), e.g. to find an operator's Leases by selector;
   * set on create and on every renewal, other labels left alone.
   */
  labels?: Record<string, string>;
  /** Where the election's waits and deadlines come from; tests pass a fake clock. Default the real one. */
  clock?: Clock;
}

/**
 * Sharded controllers (ManagerOptions.sharding): every replica keeps a Lease labelled with the ring's name; the hash
 * space of the objects' uids (or namespaces) is cut into `partitions` equal ranges, spread over the live Leases; each
 * replica lists, watches, caches and reconciles its ranges only, with the API server filtering by shardSelector
 * where it can (Kubernetes 1.36+ with the ShardedListAndWatch feature gate; elsewhere the replica filters).
 */
export interface ShardingOptions {
  /** The ring's name (a DNS label): replicas with the same ring share the work. */
  ring: string;
  /**
   * What places an object: 'uid' (default) spreads objects evenly, and kinds given to owns() are cached whole, their
   * events routed to the owner's replica; 'namespace' keeps each namespace on one replica, owned kinds included.
   */
  key?: ShardKey;
  /** Into how many ranges the hash space is cut; the same on every replica. Default 12 (even for 1, 2, 3, 4, 6). */
  partitions?: number;
  /** The Leases' namespace; default the pod's own. */
  namespace?: string;
  /** This replica's holderIdentity; default the manager's identity (hostname_UUID). */
  identity?: string;
  /** How long a replica's Lease lives without renewal, so how long until its partitions move when it dies (ms). Default 15000. */
  leaseDuration?: number;
  /** How long after its last renewal a replica stops reconciling when it cannot renew (ms). Default 10000. */
  renewDeadline?: number;
  /** How often the Lease is renewed and the ring read (ms). Default 2000. */
  retryPeriod?: number;
  /** Where the ring's waits and deadlines come from; tests pass a fake clock. Default the real one. */
  clock?: Clock;
}

/**
 * The default of ManagerOptions.gracefulShutdownTimeout (ms), as controller-runtime's defaultGracefulShutdownPeriod.
 */
export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT = 30_000;
/** The default informer resync period (ms): 10 hours, as controller-runtime's cache. */
export const DEFAULT_SYNC_PERIOD = 10 * 3600 * 1000;
/** The default of ManagerOptions.cache.syncTimeout (ms): 2 minutes, as controller-runtime's CacheSyncTimeout. */
export const DEFAULT_CACHE_SYNC_TIMEOUT = 120_000;
