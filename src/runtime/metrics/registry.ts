import { registerProcessCollector } from './process.js';
import { Registry } from './prom.js';

/**
 * The process-wide registry /metrics serves, as controller-runtime's metrics.Registry: controller, workqueue and
 * leader-election metrics register here once, so several managers in one process share series instead of clashing.
 */
export const registry = new Registry();

let processMetricsRegistered = false;

/** Adds the process_* metrics (and Node's heap figures); done once, when a server first serves. */
export function registerProcessMetrics(): void {
  if (processMetricsRegistered) return;
  processMetricsRegistered = true;
  registerProcessCollector(registry);
}
