import type { PluginSpec } from '../registry.js';

// The helm/v2-alpha plugin as the CLI sees it before loading it: its key, flags and how PROJECT replays it. Light on
// purpose (the registry imports it at start-up); the chart code loads only when the plugin runs.

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

const editFlags = [
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

export const helmPluginSpec: PluginSpec = {
  key: HELM_PLUGIN_KEY,
  description: 'Generates a Helm chart for project distribution from the kustomize output (config/default)',
  subcommands: ['init', 'edit'],
  flags: { edit: editFlags },
  async load() {
    const { helmEdit } = await import('./edit.js');
    return { edit: helmEdit };
  },
  replay(recorded) {
    const config = (typeof recorded === 'object' && recorded !== null ? recorded : {}) as HelmPluginConfig;
    const flags: Record<string, unknown> = {};
    if (config.manifests !== undefined && config.manifests !== DEFAULT_MANIFESTS) flags.manifests = config.manifests;
    if (config.output !== undefined && config.output !== DEFAULT_OUTPUT_DIR) flags.outputDir = config.output;
    // The chart is made from config/default, which needs the CRDs and roles `scaffold manifests` writes (kubebuilder's
    // edit runs make manifests first, too).
    return [{ command: 'manifests' }, { command: 'edit', flags }];
  },
};
