import type { KubeConfig } from '../rest/kubeconfig.js';
import type { Logger } from '../log/index.js';

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  /** '[host]:port' for /metrics; '0' (the default) disables it. */
  metricsBindAddress?: string;
  /** Serve /metrics over HTTPS with TokenReview + SubjectAccessReview on every request. Default true. */
  secureMetrics?: boolean;
  /** Offer HTTP/2 on the metrics server. Default false (HTTP/2 Rapid Reset / Stream Cancellation CVEs). */
  enableHTTP2?: boolean;
  /** Directory holding the metrics serving certificate (tls.crt, tls.key); self-signed when unset. */
  metricsCertDir?: string;
  metricsCertName?: string;
  metricsKeyName?: string;
  /** Port of the webhook server. Default 9443; 0 picks a free port. The server runs only once a webhook is registered. */
  webhookPort?: number;
  /** Address the webhook server listens on (and names in a generated certificate); every interface when unset. */
  webhookHost?: string;
  /** Directory holding the webhook serving certificate; when unset or empty, a CA and certificate are generated. */
  webhookCertPath?: string;
  /** Default 'tls.crt'. */
  webhookCertName?: string;
  /** Default 'tls.key'. */
  webhookKeyName?: string;
  /** '[host]:port' for /healthz and /readyz; '0' or unset disables them. */
  healthProbeBindAddress?: string;
  /** Run leader-elected runnables (controllers) only while holding the Lease. Default false. */
  leaderElection?: boolean;
  /** The Lease's name; required with leaderElection. */
  leaderElectionID?: string;
  /** The Lease's namespace; defaults to the pod's namespace when running in a cluster. */
  leaderElectionNamespace?: string;
  /** Clear the Lease on a clean stop so another replica takes over at once. Default true. */
  leaderElectionReleaseOnCancel?: boolean;
  /** Lease timings in ms; defaults 15000 / 10000 / 2000 (controller-runtime's). */
  leaseDuration?: number;
  renewDeadline?: number;
  retryPeriod?: number;
  /** Restrict the cache (and so the cached client and watches) to these namespaces; all namespaces when unset. */
  namespaces?: string[];
  /** How long a stop waits for runnables (in-flight reconciles) before giving up on them (ms). Default 30000. */
  gracefulShutdownTimeout?: number;
  /** How long start(), controllers and cached reads wait for a kind's first list (ms). Default 120000. */
  cacheSyncTimeout?: number;
  /** Informer resync period (ms); default 10 h with 10% jitter, as controller-runtime. 0 disables. */
  syncPeriod?: number;
  /** Parent logger; default the root logger. */
  log?: Logger;
}

export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT = 30_000;
export const DEFAULT_SYNC_PERIOD = 10 * 3600 * 1000;
export const DEFAULT_CACHE_SYNC_TIMEOUT = 120_000;
