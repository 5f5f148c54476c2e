/**
 * controller-runtime's manager and what it runs besides controllers: health probes, leader election, the event recorder
 * and signal handling.
 *
 * @module @kubescaffold/runtime/manager
 */
export { Manager, type FieldIndexer } from './manager.js';
export { LeaderElectionLostError, isLeaderElectionLost, ShutdownError, isShutdownError } from '../errors.js';
export type {
  ManagerOptions,
  CacheOptions,
  MetricsOptions,
  HealthProbeOptions,
  LeaderElectionOptions,
} from './options.js';
export { runnableFunc, type Runnable } from './runnable.js';
export { EventBroadcaster, type EventRecorder, type EventType } from './recorder.js';
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
