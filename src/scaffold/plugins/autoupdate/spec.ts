import type { PluginSpecData } from '../plugin.js';

// autoupdate/v1-alpha as data: the registry reads it, and it imports nothing of the registry or of the plugin's code.

/** The key kubebuilder records in PROJECT for this plugin. */
export const AUTOUPDATE_PLUGIN_KEY = 'autoupdate.kubebuilder.io/v1-alpha';

/**
 * autoupdate/v1-alpha: `edit --plugins=autoupdate/v1-alpha` writes kubebuilder's scheduled GitHub Actions workflow that
 * runs `scaffold alpha update` and opens an issue with the result.
 */
export const autoUpdateSpec: PluginSpecData = {
  key: AUTOUPDATE_PLUGIN_KEY,
  description:
    'A GitHub Actions workflow (.github/workflows/auto_update.yml) that runs `scaffold alpha update` every week and opens an issue with the result',
  subcommands: ['init', 'edit'],
  flags: {},
};
