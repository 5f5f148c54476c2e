// Clusters as the unit a shard ring spreads across replicas: every replica's provider finds every cluster, and each
// replica engages only the clusters whose name hashes into a partition it holds. The ring is the object-sharding
// ring of @kubescaffold/runtime/manager (ShardRing), with clusters for objects: a partition is announced before its
// clusters are engaged and until they are disengaged, so no two replicas reconcile one cluster at once, and every
// write a reconcile sends to its cluster is fenced by the ring's term.
import type { Clock } from '../clock.js';
import type { ControllerQueue, GateQueueOptions, RequestGate } from '../controller/controller.js';
import { workqueueMetricsProviderForCluster } from '../metrics/workqueue.js';
import { fnv1a64, partitionOfHash } from '../sharding/hash.js';
import type { ShardRing } from '../sharding/ring.js';
import { PriorityQueue, RateLimitingQueue } from '../workqueue/index.js';
import type { Request } from '../reconcile/index.js';

/**
 * Spreads the engaged clusters over the replicas of a ring (MultiClusterManagerOptions.sharding): every replica keeps
 * a Lease labelled with the ring's name, the hash space of cluster names is cut into `partitions` ranges spread over
 * the live Leases, and each replica engages the clusters of its partitions only. Timings and their defaults are
 * those of ManagerOptions.sharding.
 */
export interface ClusterShardingOptions {
  /** The ring's name (a DNS label): replicas with the same ring share the clusters. Not the name of an object ring. */
  ring: string;
  /** Into how many ranges the hash space of cluster names is cut; the same on every replica. Default 12. */
  partitions?: number;
  /** The Leases' namespace; default the pod's own. */
  namespace?: string;
  /** This replica's holderIdentity; default the manager's identity (hostname_UUID). */
  identity?: string;
  /** How long a replica's Lease lives without renewal, so how long until its clusters move when it dies (ms). Default 15000. */
  leaseDuration?: number;
  /** How long after its last renewal a replica stops writing to its clusters when it cannot renew (ms). Default 10000. */
  renewDeadline?: number;
  /** How often the Lease is renewed and the ring read (ms). Default 2000. */
  retryPeriod?: number;
  /** Where the ring's waits and deadlines come from; tests pass a fake clock. Default the real one. */
  clock?: Clock;
}

/** The partition of the ring a cluster belongs to, by its name. */
export function clusterPartition(name: string, partitions: number): number {
  return partitionOfHash(fnv1a64(name), partitions);
}

/**
 * Admits the reconciles of one cluster only while this replica holds the cluster's partition, and runs each as the
 * ring's admitted reconcile, so that the cluster's client refuses its writes once the term has ended. Makes the
 * queue the controller would make, labelled with the cluster.
 */
export function clusterGate(ring: ShardRing, partition: number, cluster: string): RequestGate {
  return {
    admit() {
      const ticket = ring.enter(partition);
      if (!ticket) return undefined;
      let left = false;
      return {
        run: (fn) => ring.runAdmitted(ticket, fn),
        leave: () => {
          if (left) return;
          left = true;
          ring.leave(ticket);
        },
      };
    },
    newQueue(opts: GateQueueOptions): ControllerQueue {
      const queueOptions = {
        name: opts.name,
        keyOf: opts.keyOf,
        ...(opts.recordMetrics ? { metricsProvider: workqueueMetricsProviderForCluster(cluster) } : {}),
        ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
      };
      return opts.usePriorityQueue
        ? new PriorityQueue<Request>(queueOptions)
        : new RateLimitingQueue<Request>(queueOptions);
    },
  };
}
