/**
 * controller-runtime's manager and what it runs besides controllers: health probes, leader election, sharding across
 * replicas (the ring's hash, selectors and assignment), the event recorder and signal handling.
 *
 * @module @kubescaffold/runtime/manager
 */
export { Manager, type FieldIndexer } from './manager.js';
export {
  LeaderElectionLostError,
  isLeaderElectionLost,
  ShutdownError,
  isShutdownError,
  ShardTermEndedError,
  HeapLimitError,
  isHeapLimitError,
  isShardTermEnded,
} from '../errors.js';
export type {
  ManagerOptions,
  CacheOptions,
  MetricsOptions,
  HealthProbeOptions,
  LeaderElectionOptions,
  ShardingOptions,
  ControllerDefaults,
} from './options.js';
export type { ShardKey } from '../sharding/selector.js';
export { RING_LABEL, PARTITIONS_ANNOTATION } from '../sharding/membership.js';
export { shardSelector, inRanges, parseShardKey } from '../sharding/selector.js';
export { fnv1a64, partitionRanges, partitionOfHash, hexBound, type HashRange } from '../sharding/hash.js';
export { assignPartitions } from '../sharding/assignment.js';
export { runnableFunc, type Runnable } from './runnable.js';
export {
  EventBroadcaster,
  type EventBroadcasterOptions,
  type EventRecorder,
  type EventsRecorder,
  type EventType,
} from './recorder.js';
export { setupSignalHandler } from './signals.js';
export { parseBindAddress } from '../internal/serve.js';
export { realClock, type Clock } from '../clock.js';
export { HealthzHandler, ping, type Checker } from '../healthz/index.js';
export {
  LeaderElector,
  LeaseResource,
  microTime,
  leaderElectionNamespace,
  type LeaderElectorOptions,
  type Lease,
  type LeaseClient,
  type LeaderElectionRecord,
} from '../leaderelection/index.js';
