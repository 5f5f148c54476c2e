import type { PluginSpec } from '../registry.js';

/**
 * grafana/v1-alpha: `edit --plugins=grafana.kubebuilder.io/v1-alpha` writes kubebuilder's dashboards for the manager's
 * controller-runtime metrics. This module stays light; the scaffolding loads on demand.
 */
export const grafanaSpec: PluginSpec = {
  key: 'grafana.kubebuilder.io/v1-alpha',
  description:
    "Grafana dashboards for the manager's controller-runtime metrics, and for custom metrics listed in grafana/custom-metrics/config.yaml",
  subcommands: ['init', 'edit'],
  flags: {},
  load: async () => (await import('./index.js')).default,
  replay: () => [{ command: 'edit', flags: {} }],
};
