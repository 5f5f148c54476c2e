import type { PluginSpecData } from '../plugin.js';

// grafana/v1-alpha as data: the registry reads it, and it imports nothing of the registry or of the plugin's code.

/** The key kubebuilder records in PROJECT for this plugin. */
export const GRAFANA_PLUGIN_KEY = 'grafana.kubebuilder.io/v1-alpha';

/**
 * grafana/v1-alpha: `edit --plugins=grafana.kubebuilder.io/v1-alpha` writes kubebuilder's dashboards for the manager's
 * controller-runtime metrics.
 */
export const grafanaSpec: PluginSpecData = {
  key: GRAFANA_PLUGIN_KEY,
  description:
    "Grafana dashboards for the manager's controller-runtime metrics, and for custom metrics listed in grafana/custom-metrics/config.yaml",
  subcommands: ['init', 'edit'],
  flags: {},
};
