import type { Logger } from '../log/index.js';
import { ConfigurationError } from '../errors.js';
import type { Cluster } from './cluster.js';

/**
 * What a provider engages clusters with (multicluster-runtime's multicluster.Aware): the multi-cluster manager, which
 * passes it to {@link Provider.start}.
 */
export interface Aware {
  /**
   * Engages `cluster` until `signal` aborts: the manager starts its cache and every multi-cluster controller's
   * sources and workers in it, and when `signal` aborts stops them all and closes the cluster's sockets. Returns at
   * once; a cluster that cannot be reached is engaged once it answers, and never holds the others back. Engaging a
   * cluster by the name of an engaged one replaces it (a kubeconfig that changed); the same cluster again is a no-op.
   */
  engage(cluster: Cluster, signal: AbortSignal): void;
}

/** What a provider runs with: where to engage clusters, the cluster the manager runs in, and a logger. */
export interface ProviderContext {
  /** Engages the clusters the provider finds. */
  readonly aware: Aware;
  /** The cluster the manager itself runs against (its kubeConfig): where Secrets or Cluster objects are read. */
  readonly host: Cluster;
  /** The manager's logger, named for the provider. */
  readonly log: Logger;
}

/**
 * Finds clusters and engages and disengages them while the manager runs (multicluster-runtime's Provider with its
 * ProviderRunnable): from kubeconfig Secrets, Cluster API Clusters, kubeconfig files, or the namespaces of one
 * cluster. The manager runs it (on the leader, or on every replica of a cluster ring) until its signal aborts.
 */
export interface Provider {
  /**
   * Runs until `signal` aborts: engages each cluster found with `ctx.aware.engage(cluster, clusterSignal)` and aborts
   * that cluster's signal when it goes. Resolves after `signal` aborts; a rejection stops the manager.
   */
  start(signal: AbortSignal, ctx: ProviderContext): Promise<void>;
}

/** No cluster of that name is engaged (multicluster-runtime's ErrClusterNotFound). */
export class ClusterNotFoundError extends ConfigurationError {
  constructor(readonly cluster: string) {
    super(`cluster ${JSON.stringify(cluster)} is not engaged: its provider has not found it, or it was disengaged`);
    this.name = 'ClusterNotFoundError';
  }
}

/** True when `err` is a ClusterNotFoundError. */
export function isClusterNotFound(err: unknown): err is ClusterNotFoundError {
  return err instanceof ClusterNotFoundError;
}
