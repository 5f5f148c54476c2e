import { Counter, Gauge } from './prom.js';
import { registry } from './registry.js';

// controller-runtime's pkg/metrics/leaderelection.go.
/**
 * leader_election_master_status{name}: 1 while this process holds the named Lease, 0 otherwise (controller-runtime's
 * leader election metric).
 */
export const leaderElectionMasterStatus = new Gauge({
  name: 'leader_election_master_status',
  help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
  labelNames: ['name'] as const,
  registers: [registry],
});

/**
 * leader_election_slowpath_total{name}: renewals whose optimistic update of the Lease failed, so the elector fell back
 * to reading it again (the slow path).
 */
export const leaderElectionSlowpathTotal = new Counter({
  name: 'leader_election_slowpath_total',
  help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
  labelNames: ['name'] as const,
  registers: [registry],
});
