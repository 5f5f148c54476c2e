export { Manager, LeaderElectionLostError, type FieldIndexer } from './manager.js';
export type { ManagerOptions } from './options.js';
export { runnableFunc, type Runnable } from './runnable.js';
export { EventBroadcaster, type EventRecorder, type EventType } from './recorder.js';
export { setupSignalHandler } from './signals.js';
export { parseBindAddress } from './server.js';
