import type { PluginSpecData } from '../plugin.js';

// multicluster/v1-alpha as data: the registry reads it, and it imports nothing of the registry or of the plugin's code.

/** The key PROJECT records for this plugin. */
export const MULTICLUSTER_PLUGIN_KEY = 'multicluster.kubescaffold.io/v1-alpha';

/**
 * multicluster/v1-alpha: `edit --plugins=multicluster/v1-alpha` makes the project's controllers reconcile in every
 * cluster whose kubeconfig is in a labelled Secret (@kubescaffold/runtime/multicluster): it rewrites cmd/main.ts with
 * a MultiClusterManager and a KubeconfigSecretProvider and adds the RBAC to read the Secrets.
 */
export const multiClusterSpec: PluginSpecData = {
  key: MULTICLUSTER_PLUGIN_KEY,
  description:
    'Reconcile in every cluster whose kubeconfig is in a labelled Secret: rewrites cmd/main.ts with a multi-cluster manager and adds the RBAC to read the Secrets',
  subcommands: ['init', 'edit'],
  flags: {},
};
