import { Counter, Gauge, Histogram, exponentialBuckets } from './prom.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';
import { registry } from './registry.js';

// controller-runtime's workqueue metrics (pkg/internal/metrics/workqueue.go): labelled by queue name and controller,
// which for a controller's queue are the same string.
const labelNames = ['name', 'controller'] as const;
const latencyBuckets = exponentialBuckets(10e-9, 10, 12);

const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers: [registry] });
const adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames, registers: [registry] });
const latency = new Histogram({
  name: 'workqueue_queue_duration_seconds',
  help: 'How long in seconds an item stays in workqueue before being requested',
  labelNames,
  buckets: latencyBuckets,
  registers: [registry],
});
const workDuration = new Histogram({
  name: 'workqueue_work_duration_seconds',
  help: 'How long in seconds processing an item from workqueue takes.',
  labelNames,
  buckets: latencyBuckets,
  registers: [registry],
});
const unfinished = new Gauge({
  name: 'workqueue_unfinished_work_seconds',
  help:
    'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
    'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
  labelNames,
  registers: [registry],
});
const longestRunning = new Gauge({
  name: 'workqueue_longest_running_processor_seconds',
  help: 'How many seconds has the longest running processor for workqueue been running.',
  labelNames,
  registers: [registry],
});
const retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames, registers: [registry] });

/** Feeds the workqueue helper's queue metrics into the shared registry under controller-runtime's names. */
export const workqueueMetricsProvider: MetricsProvider = {
  newDepthMetric: (name): GaugeMetric => depth.labels(name, name),
  newAddsMetric: (name): CounterMetric => adds.labels(name, name),
  newLatencyMetric: (name): HistogramMetric => latency.labels(name, name),
  newWorkDurationMetric: (name): HistogramMetric => workDuration.labels(name, name),
  newUnfinishedWorkSecondsMetric: (name): SettableGaugeMetric => unfinished.labels(name, name),
  newLongestRunningProcessorSecondsMetric: (name): SettableGaugeMetric => longestRunning.labels(name, name),
  newRetriesMetric: (name): CounterMetric => retries.labels(name, name),
};
