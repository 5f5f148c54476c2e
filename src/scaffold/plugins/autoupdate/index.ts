import { readFileSync } from 'node:fs';
import { ScaffoldError } from '../../../errors.js';
import { loadProject } from '../../../project/load.js';
import { stringifyProject, withPluginConfig } from '../../../project/project.js';
import { Plan } from '../../plan.js';
import { templatesRoot } from '../../render.js';
import type { PluginModule, PluginResult } from '../plugin.js';
import { AUTOUPDATE_PLUGIN_KEY } from './spec.js';

/** Where the workflow goes, as kubebuilder puts it. */
export const AUTO_UPDATE_WORKFLOW = '.github/workflows/auto_update.yml';

/**
 * `edit --plugins=autoupdate/v1-alpha`: writes the workflow (kept as the user has it once it exists, as kubebuilder
 * skips it) and records the plugin in PROJECT. Refuses a PROJECT without cliVersion, which alpha update needs to know
 * the release the project was scaffolded with.
 */
export function editAutoUpdate(root: string): PluginResult {
  const config = loadProject(root);
  if (config.cliVersion === undefined) {
    throw new ScaffoldError(
      `PROJECT has no cliVersion, so \`scaffold alpha update\` (which the workflow runs) cannot tell the release the project was scaffolded with; add "cliVersion: <that release>" to PROJECT first`,
    );
  }
  const plan = new Plan(root);
  // Kept as data: GitHub's own ${{ }} expressions are not a template of ours.
  const workflow = readFileSync(new URL('plugins/autoupdate/auto_update.yml', templatesRoot), 'utf8');
  plan.template(AUTO_UPDATE_WORKFLOW, workflow, 'skip');
  const project = stringifyProject(withPluginConfig(config, AUTOUPDATE_PLUGIN_KEY, {}));
  if (project !== plan.current('PROJECT')) plan.template('PROJECT', project, 'overwrite');
  const written = plan.commit();
  return {
    written,
    notes: [
      `${AUTO_UPDATE_WORKFLOW} runs \`scaffold alpha update\` every Tuesday (or from the Actions tab), pushes a branch with the result and opens an issue about it; protect your main branches so that nothing reaches them without a review.`,
    ],
  };
}

const plugin: PluginModule = { edit: (root) => editAutoUpdate(root) };
export default plugin;
