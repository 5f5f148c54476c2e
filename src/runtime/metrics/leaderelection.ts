import { Counter, Gauge } from './prom.js';
import { registry } from './registry.js';

// controller-runtime's pkg/metrics/leaderelection.go.
export const leaderElectionMasterStatus = new Gauge({
  name: 'leader_election_master_status',
  help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. \'name\' is the string used to identify the lease. Please make sure to group by name.',
  labelNames: ['name'] as const,
  registers: [registry],
});

export const leaderElectionSlowpathTotal = new Counter({
  name: 'leader_election_slowpath_total',
  help: 'Total number of slow path exercised in renewing leader leases. \'name\' is the string used to identify the lease. Please make sure to group by name.',
  labelNames: ['name'] as const,
  registers: [registry],
});
