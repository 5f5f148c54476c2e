import {
  CounterFamily,
  GaugeFamily,
  HistogramFamily,
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
} from './bound.js';
import { registry } from './registry.js';

// Names, labels and buckets are controller-runtime's (pkg/internal/controller/metrics), so dashboards carry over.

/**
 * controller_runtime_reconcile_total{controller, result}: reconciles by result (success, error, requeue,
 * requeue_after).
 */
export const reconcileTotal = new CounterFamily({
  name: 'controller_runtime_reconcile_total',
  help: 'Total number of reconciliations per controller',
  labelNames: ['controller', 'result'],
  registry,
});

/** controller_runtime_reconcile_errors_total{controller}: reconciles that returned an error. */
export const reconcileErrors = new CounterFamily({
  name: 'controller_runtime_reconcile_errors_total',
  help: 'Total number of reconciliation errors per controller',
  labelNames: ['controller'],
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
  registry,
});

/** controller_runtime_max_concurrent_reconciles{controller}: the controller's maxConcurrentReconciles. */
export const workerCount = new GaugeFamily({
  name: 'controller_runtime_max_concurrent_reconciles',
  help: 'Maximum number of concurrent reconciles per controller',
  labelNames: ['controller'],
  registry,
});

/** controller_runtime_active_workers{controller}: workers reconciling right now. */
export const activeWorkers = new GaugeFamily({
  name: 'controller_runtime_active_workers',
  help: 'Number of currently used workers per controller',
  labelNames: ['controller'],
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

  constructor(
    readonly controller: string,
    maxConcurrentReconciles: number,
  ) {
    this.total = {
      success: reconcileTotal.bind(controller, 'success'),
      error: reconcileTotal.bind(controller, 'error'),
      requeue: reconcileTotal.bind(controller, 'requeue'),
      requeue_after: reconcileTotal.bind(controller, 'requeue_after'),
    };
    this.errors = reconcileErrors.bind(controller);
    this.terminalErrors = terminalReconcileErrors.bind(controller);
    this.panics = reconcilePanics.bind(controller);
    this.timeouts = reconcileTimeouts.bind(controller);
    this.time = reconcileTime.bind(controller);
    this.active = activeWorkers.bind(controller);
    workerCount.bind(controller).set(maxConcurrentReconciles);
  }
}
