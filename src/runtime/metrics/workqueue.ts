import { exponentialBuckets } from './prom.js';
import { CounterFamily, GaugeFamily, HistogramFamily } from './bound.js';
import type { MetricsProvider } from '../workqueue/metrics.js';
import { registry } from './registry.js';

// controller-runtime v0.25's workqueue metrics (pkg/internal/metrics/workqueue.go): labelled by queue name and
// controller, which for a controller's queue are the same string; depth also by priority, '' for a queue without. The
// queues of a multi-cluster controller (one per engaged cluster) are labelled with their `cluster` too.
const labelNames = ['name', 'controller'];
const optionalLabelNames = ['cluster'];
const latencyBuckets = exponentialBuckets(10e-9, 10, 12);

const depth = new GaugeFamily({
  name: 'workqueue_depth',
  help: 'Current depth of workqueue by workqueue and priority',
  labelNames: ['name', 'controller', 'priority'],
  optionalLabelNames,
  registry,
});
const adds = new CounterFamily({
  name: 'workqueue_adds_total',
  help: 'Total number of adds handled by workqueue',
  labelNames,
  optionalLabelNames,
  registry,
});
const latency = new HistogramFamily({
  name: 'workqueue_queue_duration_seconds',
  help: 'How long in seconds an item stays in workqueue before being requested',
  labelNames,
  buckets: latencyBuckets,
  optionalLabelNames,
  registry,
});
const workDuration = new HistogramFamily({
  name: 'workqueue_work_duration_seconds',
  help: 'How long in seconds processing an item from workqueue takes.',
  labelNames,
  buckets: latencyBuckets,
  optionalLabelNames,
  registry,
});
const unfinished = new GaugeFamily({
  name: 'workqueue_unfinished_work_seconds',
  help:
    "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
    'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
  labelNames,
  optionalLabelNames,
  registry,
});
const longestRunning = new GaugeFamily({
  name: 'workqueue_longest_running_processor_seconds',
  help: 'How many seconds has the longest running processor for workqueue been running.',
  labelNames,
  optionalLabelNames,
  registry,
});
const retries = new CounterFamily({
  name: 'workqueue_retries_total',
  help: 'Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)',
  labelNames,
  optionalLabelNames,
  registry,
});

/**
 * Feeds a queue's metrics into the shared registry under controller-runtime's names. Each series is bound when the
 * queue is made, so all of them are served, at 0, before the first item.
 */
export const workqueueMetricsProvider: MetricsProvider = providerFor(undefined);

/**
 * The same metrics for the queues of one controller that has several (a sharded controller's, one per partition):
 * `name` is each queue's, `controller` stays the controller's, so sums by controller still add up.
 */
export function workqueueMetricsProviderFor(controller: string): MetricsProvider {
  return providerFor(controller);
}

/**
 * The metrics of the queue a multi-cluster controller keeps for one engaged cluster: labelled like a controller's own
 * queue, plus `cluster`.
 */
export function workqueueMetricsProviderForCluster(cluster: string): MetricsProvider {
  return providerFor(undefined, cluster);
}

/** Drops the workqueue series of a cluster (it was disengaged). */
export function removeClusterWorkqueueMetrics(cluster: string): void {
  if (cluster === '') return;
  for (const f of [depth, adds, latency, workDuration, unfinished, longestRunning, retries])
    f.removeWhere('cluster', cluster);
}

function providerFor(controller: string | undefined, cluster = ''): MetricsProvider {
  return {
    newDepthMetric: (name) => depth.bind(name, controller ?? name, '', cluster),
    newAddsMetric: (name) => adds.bind(name, controller ?? name, cluster),
    newLatencyMetric: (name) => latency.bind(name, controller ?? name, cluster),
    newWorkDurationMetric: (name) => workDuration.bind(name, controller ?? name, cluster),
    newUnfinishedWorkSecondsMetric: (name) => unfinished.bind(name, controller ?? name, cluster),
    newLongestRunningProcessorSecondsMetric: (name) => longestRunning.bind(name, controller ?? name, cluster),
    newRetriesMetric: (name) => retries.bind(name, controller ?? name, cluster),
    newDepthMetricWithPriority: (name, priority) => depth.bind(name, controller ?? name, String(priority), cluster),
  };
}
