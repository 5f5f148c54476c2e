import type { PluginSpec } from '../registry.js';

/** The key kubebuilder records in PROJECT for this plugin. */
export const AUTOUPDATE_PLUGIN_KEY = 'autoupdate.kubebuilder.io/v1-alpha';

/**
 * autoupdate/v1-alpha: `edit --plugins=autoupdate/v1-alpha` writes kubebuilder's scheduled GitHub Actions workflow that
 * runs `scaffold alpha update` and opens an issue with the result. This module stays light; the scaffolding loads on
 * demand.
 */
export const autoUpdateSpec: PluginSpec = {
  key: AUTOUPDATE_PLUGIN_KEY,
  description:
    'A GitHub Actions workflow (.github/workflows/auto_update.yml) that runs `scaffold alpha update` every week and opens an issue with the result',
  subcommands: ['init', 'edit'],
  flags: {},
  load: async () => (await import('./index.js')).default,
  replay: () => [{ command: 'edit', flags: {} }],
};
