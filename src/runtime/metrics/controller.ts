import {
  CounterFamily,
  GaugeFamily,
  HistogramFamily,
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
} from './bound.js';
import { registry } from './registry.js';

// Names, labels and buckets are controller-runtime's (pkg/internal/controller/metrics), so dashboards carry over. A
// multi-cluster controller's series carry a `cluster` label too (one set per engaged cluster); others have none.
const optionalLabelNames = ['cluster'];

/**
 * controller_runtime_reconcile_total{controller, result}: reconciles by result (success, error, requeue,
 * requeue_after).
 */
export const reconcileTotal = new CounterFamily({
  name: 'controller_runtime_reconcile_total',
  help: 'Total number of reconciliations per controller',
  labelNames: ['controller', 'result'],
  optionalLabelNames,
  registry,
});

/** controller_runtime_reconcile_errors_total{controller}: reconciles that returned an error. */
export const reconcileErrors = new CounterFamily({
  name: 'controller_runtime_reconcile_errors_total',
  help: 'Total number of reconciliation errors per controller',
  labelNames: ['controller'],
  optionalLabelNames,
  registry,
});

/**
 * controller_runtime_terminal_reconcile_errors_total{controller}: reconciles that returned a TerminalError (not
 * retried).
 */
export const terminalReconcileErrors = new CounterFamily({
  name: 'controller_runtime_terminal_reconcile_errors_total',
  help: 'Total number of terminal reconciliation errors per controller',
  labelNames: ['controller'],
  optionalLabelNames,
  registry,
});

/**
 * controller_runtime_reconcile_panics_total{controller}: reconciles that failed with a programming error (TypeError,
 * ReferenceError, RangeError, SyntaxError) or threw a non-Error value: JavaScript's nearest thing to a Go panic.
 */
export const reconcilePanics = new CounterFamily({
  name: 'controller_runtime_reconcile_panics_total',
  help: 'Total number of reconciliation panics per controller',
  labelNames: ['controller'],
  optionalLabelNames,
  registry,
});

/**
 * controller_runtime_reconcile_timeouts_total{controller}: reconciles whose signal the controller's reconcileTimeout
 * aborted.
 */
export const reconcileTimeouts = new CounterFamily({
  name: 'controller_runtime_reconcile_timeouts_total',
  help: 'Total number of reconciliation timeouts per controller',
  labelNames: ['controller'],
  optionalLabelNames,
  registry,
});

/**
 * controller_runtime_reconcile_time_seconds{controller}: how long reconciles took, with controller-runtime's buckets.
 */
export const reconcileTime = new HistogramFamily({
  name: 'controller_runtime_reconcile_time_seconds',
  help: 'Length of time per reconciliation per controller',
  labelNames: ['controller'],
  buckets: [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
    2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
  ],
  optionalLabelNames,
  registry,
});

/** controller_runtime_max_concurrent_reconciles{controller}: the controller's maxConcurrentReconciles. */
export const workerCount = new GaugeFamily({
  name: 'controller_runtime_max_concurrent_reconciles',
  help: 'Maximum number of concurrent reconciles per controller',
  labelNames: ['controller'],
  optionalLabelNames,
  registry,
});

/** controller_runtime_active_workers{controller}: workers reconciling right now. */
export const activeWorkers = new GaugeFamily({
  name: 'controller_runtime_active_workers',
  help: 'Number of currently used workers per controller',
  labelNames: ['controller'],
  optionalLabelNames,
  registry,
});

/** The result label of controller_runtime_reconcile_total. */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** The series of one controller, bound once (and so present at 0 from the start, as controller-runtime's). */
export class ControllerMetrics {
  /** controller_runtime_reconcile_total, one counter per result. */
  readonly total: Record<ReconcileOutcome, BoundCounter>;
  /** controller_runtime_reconcile_errors_total. */
  readonly errors: BoundCounter;
  /** controller_runtime_terminal_reconcile_errors_total. */
  readonly terminalErrors: BoundCounter;
  /** controller_runtime_reconcile_panics_total. */
  readonly panics: BoundCounter;
  /** controller_runtime_reconcile_timeouts_total. */
  readonly timeouts: BoundCounter;
  /** controller_runtime_reconcile_time_seconds. */
  readonly time: BoundHistogram;
  /** controller_runtime_active_workers. */
  readonly active: BoundGauge;

  /**
   * @param cluster - the cluster a multi-cluster controller's instance reconciles in: its series carry it as the
   * `cluster` label. '' (the default) adds no label.
   */
  constructor(
    readonly controller: string,
    maxConcurrentReconciles: number,
    readonly cluster = '',
  ) {
    this.total = {
      success: reconcileTotal.bind(controller, 'success', cluster),
      error: reconcileTotal.bind(controller, 'error', cluster),
      requeue: reconcileTotal.bind(controller, 'requeue', cluster),
      requeue_after: reconcileTotal.bind(controller, 'requeue_after', cluster),
    };
    this.errors = reconcileErrors.bind(controller, cluster);
    this.terminalErrors = terminalReconcileErrors.bind(controller, cluster);
    this.panics = reconcilePanics.bind(controller, cluster);
    this.timeouts = reconcileTimeouts.bind(controller, cluster);
    this.time = reconcileTime.bind(controller, cluster);
    this.active = activeWorkers.bind(controller, cluster);
    workerCount.bind(controller, cluster).set(maxConcurrentReconciles);
  }
}

/** Drops the controller series of a cluster (it was disengaged), so none stay behind for a cluster that is gone. */
export function removeClusterControllerMetrics(cluster: string): void {
  if (cluster === '') return;
  for (const f of [
    reconcileTotal,
    reconcileErrors,
    terminalReconcileErrors,
    reconcilePanics,
    reconcileTimeouts,
    reconcileTime,
    workerCount,
    activeWorkers,
  ])
    f.removeWhere('cluster', cluster);
}
