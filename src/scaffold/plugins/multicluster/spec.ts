import type { PluginSpec } from '../registry.js';

/** The key PROJECT records for this plugin. */
export const MULTICLUSTER_PLUGIN_KEY = 'multicluster.kubescaffold.io/v1-alpha';

/**
 * multicluster/v1-alpha: `edit --plugins=multicluster/v1-alpha` makes the project's controllers reconcile in every
 * cluster whose kubeconfig is in a labelled Secret (@kubescaffold/runtime/multicluster): it rewrites cmd/main.ts with
 * a MultiClusterManager and a KubeconfigSecretProvider and adds the RBAC to read the Secrets. This module stays light;
 * the scaffolding loads on demand.
 */
export const multiClusterSpec: PluginSpec = {
  key: MULTICLUSTER_PLUGIN_KEY,
  description:
    'Reconcile in every cluster whose kubeconfig is in a labelled Secret: rewrites cmd/main.ts with a multi-cluster manager and adds the RBAC to read the Secrets',
  subcommands: ['init', 'edit'],
  flags: {},
  load: async () => (await import('./index.js')).default,
  replay: () => [{ command: 'edit', flags: {} }],
};
