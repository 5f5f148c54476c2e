import { Counter, Gauge, Histogram } from './prom.js';
import { registry } from './registry.js';

// Names, labels and buckets are controller-runtime's (pkg/internal/controller/metrics), so dashboards carry over.

export const reconcileTotal = new Counter({
  name: 'controller_runtime_reconcile_total',
  help: 'Total number of reconciliations per controller',
  labelNames: ['controller', 'result'] as const,
  registers: [registry],
});

export const reconcileErrors = new Counter({
  name: 'controller_runtime_reconcile_errors_total',
  help: 'Total number of reconciliation errors per controller',
  labelNames: ['controller'] as const,
  registers: [registry],
});

export const terminalReconcileErrors = new Counter({
  name: 'controller_runtime_terminal_reconcile_errors_total',
  help: 'Total number of terminal reconciliation errors per controller',
  labelNames: ['controller'] as const,
  registers: [registry],
});

export const reconcilePanics = new Counter({
  name: 'controller_runtime_reconcile_panics_total',
  help: 'Total number of reconciliation panics per controller',
  labelNames: ['controller'] as const,
  registers: [registry],
});

export const reconcileTimeouts = new Counter({
  name: 'controller_runtime_reconcile_timeouts_total',
  help: 'Total number of reconciliation timeouts per controller',
  labelNames: ['controller'] as const,
  registers: [registry],
});

export const reconcileTime = new Histogram({
  name: 'controller_runtime_reconcile_time_seconds',
  help: 'Length of time per reconciliation per controller',
  labelNames: ['controller'] as const,
  buckets: [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
    2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
  ],
  registers: [registry],
});

export const workerCount = new Gauge({
  name: 'controller_runtime_max_concurrent_reconciles',
  help: 'Maximum number of concurrent reconciles per controller',
  labelNames: ['controller'] as const,
  registers: [registry],
});

export const activeWorkers = new Gauge({
  name: 'controller_runtime_active_workers',
  help: 'Number of currently used workers per controller',
  labelNames: ['controller'] as const,
  registers: [registry],
});

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** The series of one controller, resolved once so the hot path does no label lookups. */
interface Inc {
  inc(n?: number): void;
}

export class ControllerMetrics {
  readonly total: Record<ReconcileOutcome, Inc>;
  readonly errors: Inc;
  readonly terminalErrors: Inc;
  readonly panics: Inc;
  readonly timeouts: Inc;
  readonly time: { observe(seconds: number): void };
  readonly active: { inc(): void; dec(): void; set(v: number): void };

  constructor(readonly controller: string, maxConcurrentReconciles: number) {
    const l = { controller };
    // controller-runtime initialises every result series to 0 so rate() works before the first event.
    this.total = {
      success: reconcileTotal.labels({ controller, result: 'success' }),
      error: reconcileTotal.labels({ controller, result: 'error' }),
      requeue: reconcileTotal.labels({ controller, result: 'requeue' }),
      requeue_after: reconcileTotal.labels({ controller, result: 'requeue_after' }),
    };
    for (const c of Object.values(this.total)) c.inc(0);
    this.errors = reconcileErrors.labels(l);
    this.errors.inc(0);
    this.terminalErrors = terminalReconcileErrors.labels(l);
    this.terminalErrors.inc(0);
    this.panics = reconcilePanics.labels(l);
    this.panics.inc(0);
    this.timeouts = reconcileTimeouts.labels(l);
    this.timeouts.inc(0);
    this.time = reconcileTime.labels(l);
    this.active = activeWorkers.labels(l);
    this.active.set(0);
    workerCount.labels(l).set(maxConcurrentReconciles);
  }
}
