import type { PluginFlag, PluginSpecData } from '../plugin.js';

// helm/v2-alpha as data: its key, flags and defaults, and the shape of what PROJECT records for it. The registry reads
// it; it imports nothing of the registry or of the chart code, which loads only when the plugin runs.

export const HELM_PLUGIN_KEY = 'helm.kubebuilder.io/v2-alpha';
/** kubebuilder's earlier helm plugin, whose PROJECT entry v2-alpha replaces. */
export const HELM_V1_PLUGIN_KEY = 'helm.kubebuilder.io/v1-alpha';
export const DEFAULT_MANIFESTS = 'dist/install.yaml';
export const DEFAULT_OUTPUT_DIR = 'dist';

/** What PROJECT records under helm.kubebuilder.io/v2-alpha (kubebuilder's keys). */
export interface HelmPluginConfig {
  manifests?: string;
  output?: string;
}

const editFlags: PluginFlag[] = [
  {
    flags: '--force',
    name: 'force',
    description:
      'regenerate every chart file except Chart.yaml (values.yaml, _helpers.tpl, NOTES.txt, .helmignore, the test-chart workflow included)',
  },
  {
    flags: '--manifests <file>',
    name: 'manifests',
    description: `the installer the chart is made from (default: ${DEFAULT_MANIFESTS}, built from config/default first)`,
  },
  {
    flags: '--output-dir <dir>',
    name: 'outputDir',
    description: `where the chart goes, as <dir>/chart (default: ${DEFAULT_OUTPUT_DIR})`,
  },
];

/** helm/v2-alpha: `edit --plugins=helm/v2-alpha` makes a Helm chart of the project from its kustomize output. */
export const helmPluginSpec: PluginSpecData = {
  key: HELM_PLUGIN_KEY,
  description: 'Generates a Helm chart for project distribution from the kustomize output (config/default)',
  subcommands: ['init', 'edit'],
  flags: { edit: editFlags },
};
