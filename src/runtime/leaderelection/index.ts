export { LeaderElector, type LeaderElectorOptions } from './elector.js';
export { LeaseResource, microTime, type Lease, type LeaseClient, type LeaderElectionRecord } from './lease.js';
export { leaderElectionNamespace } from './namespace.js';
