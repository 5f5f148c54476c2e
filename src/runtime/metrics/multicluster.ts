import { Counter, Gauge } from './prom.js';
import { registry } from './registry.js';

/**
 * multicluster_cluster_engaged{cluster,state}: 1 for the state each engaged cluster is in (starting, engaged,
 * unreachable, suspended), 0 for the others; the series go when the cluster is disengaged.
 */
export const clusterEngagedState = new Gauge({
  name: 'multicluster_cluster_engaged',
  help: 'The state of each engaged cluster: 1 for its state (starting, engaged, unreachable, suspended), 0 for the others.',
  labelNames: ['cluster', 'state'] as const,
  registers: [registry],
});

/** multicluster_engagements_total{event}: clusters engaged, disengaged, suspended (queues dropped) and resumed. */
export const clusterEngagementsTotal = new Counter({
  name: 'multicluster_engagements_total',
  help: 'Clusters engaged, disengaged, suspended after being unreachable for the grace period, and resumed.',
  labelNames: ['event'] as const,
  registers: [registry],
});

/**
 * multicluster_missing_kind{cluster,controller,kind}: 1 while a cluster does not serve a kind that a controller
 * watches (its CRD is not installed there); the controller runs there for the kinds it has.
 */
export const clusterMissingKind = new Gauge({
  name: 'multicluster_missing_kind',
  help: 'A kind a controller watches that the cluster does not serve (its CRD is missing); the controller runs there without it.',
  labelNames: ['cluster', 'controller', 'kind'] as const,
  registers: [registry],
});

/**
 * multicluster_requests_dropped_total{controller}: requests for a cluster the controller is not engaged in (a
 * handler named a cluster that is not engaged, or no longer is).
 */
export const clusterRequestsDroppedTotal = new Counter({
  name: 'multicluster_requests_dropped_total',
  help: 'Reconcile requests dropped because they name a cluster the controller is not engaged in.',
  labelNames: ['controller'] as const,
  registers: [registry],
});

/** The states clusterEngagedState reports. */
export const CLUSTER_STATES = ['starting', 'engaged', 'reconnecting', 'unreachable', 'suspended'] as const;

/** Sets the cluster's state series: 1 for `state`, 0 for the others. */
export function setClusterStateMetric(cluster: string, state: (typeof CLUSTER_STATES)[number]): void {
  for (const s of CLUSTER_STATES) clusterEngagedState.labels({ cluster, state: s }).set(s === state ? 1 : 0);
}

// Which missing-kind series each cluster has, so that they can be dropped with the cluster.
const missingSeries = new Map<string, Set<string>>();

/** Sets or clears the missing-kind series of a cluster's controller. */
export function setMissingKindMetric(cluster: string, controller: string, kind: string, missing: boolean): void {
  const key = `${controller}\u0000${kind}`;
  const set = missingSeries.get(cluster) ?? new Set<string>();
  if (missing) {
    clusterMissingKind.labels({ cluster, controller, kind }).set(1);
    set.add(key);
    missingSeries.set(cluster, set);
  } else if (set.delete(key)) {
    clusterMissingKind.remove({ cluster, controller, kind });
  }
}

/** Drops a disengaged cluster's series. */
export function removeClusterMetrics(cluster: string): void {
  for (const state of CLUSTER_STATES) clusterEngagedState.remove({ cluster, state });
  for (const key of missingSeries.get(cluster) ?? []) {
    const [controller = '', kind = ''] = key.split('\u0000');
    clusterMissingKind.remove({ cluster, controller, kind });
  }
  missingSeries.delete(cluster);
}
