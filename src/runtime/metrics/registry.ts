import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process-wide registry /metrics serves, as controller-runtime's metrics.Registry: controller, workqueue and
 * leader-election metrics register here once, so several managers in one process share series instead of clashing.
 */
export const registry = new Registry();

let processMetricsRegistered = false;

/** Adds Node's process_* and nodejs_* metrics (controller-runtime adds Go's); done once, when a server first serves. */
export function registerProcessMetrics(): void {
  if (processMetricsRegistered) return;
  processMetricsRegistered = true;
  collectDefaultMetrics({ register: registry });
}
