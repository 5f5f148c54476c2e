import { Counter, Gauge } from './prom.js';
import { registry } from './registry.js';

/** shard_partition_held{ring,partition}: 1 while this replica reconciles the partition (its range), 0 otherwise. */
export const shardPartitionHeld = new Gauge({
  name: 'shard_partition_held',
  help: 'Whether this replica holds the partition of the ring and reconciles the objects whose hash falls in it.',
  labelNames: ['ring', 'partition'] as const,
  registers: [registry],
});

/** shard_handovers_total{ring,direction}: partitions this replica started (acquired) or stopped (released). */
export const shardHandoversTotal = new Counter({
  name: 'shard_handovers_total',
  help: 'Partitions of the ring this replica acquired or released.',
  labelNames: ['ring', 'direction'] as const,
  registers: [registry],
});

/** shard_reconciles_total{ring,controller,partition}: reconciles started, per partition. */
export const shardReconcilesTotal = new Counter({
  name: 'shard_reconciles_total',
  help: 'Reconciles started by this replica, per partition of the ring.',
  labelNames: ['ring', 'controller', 'partition'] as const,
  registers: [registry],
});

/** shard_requests_dropped_total{ring,controller}: requests not reconciled here because another replica owns them. */
export const shardRequestsDroppedTotal = new Counter({
  name: 'shard_requests_dropped_total',
  help: 'Reconcile requests dropped because their object is in a partition this replica does not hold (yet).',
  labelNames: ['ring', 'controller'] as const,
  registers: [registry],
});

/**
 * shard_server_filtering{ring,resource}: 1 when the API server applies the shardSelector to the resource, 0 when it
 * ignores it and this replica caches the resource whole and filters on its side (same result, no traffic saved). It is
 * decided from what the server sends (a probe, and any object outside the partition), not from metadata.shardInfo,
 * which custom resources' lists lack; unset until there is an object to tell by.
 */
export const shardServerFiltering = new Gauge({
  name: 'shard_server_filtering',
  help: 'Whether the API server applies shardSelector to the resource (1) or ignores it, so that the replica filters (0).',
  labelNames: ['ring', 'resource'] as const,
  registers: [registry],
});

/** shard_client_filtered_total{ring,resource}: objects and events received but outside this replica's partition. */
export const shardClientFilteredTotal = new Counter({
  name: 'shard_client_filtered_total',
  help: 'Objects and watch events the replica received and dropped because the server did not apply shardSelector.',
  labelNames: ['ring', 'resource'] as const,
  registers: [registry],
});
