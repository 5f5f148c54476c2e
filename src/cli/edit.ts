import type { Command } from 'commander';
import { parseBoolean, printWritten } from './flags.js';
import { addPluginOptions, runEditPlugins, selectedPlugins } from './plugins.js';

interface EditFlags {
  multigroup?: boolean;
  namespaced?: boolean;
  license?: string;
  owner?: string;
  [pluginFlag: string]: unknown;
}

export function registerEditCommand(program: Command): void {
  const edit = program
    .command('edit')
    .description('Change project-wide settings (flags not given keep their current value)')
    .option('--multigroup [bool]', 'enable or disable multi-group layout', parseBoolean)
    .option('--namespaced [bool]', 'enable or disable namespace-scoped deployment', parseBoolean)
    .option('--license <license>', 'license header for generated files: apache2, copyright or none')
    .option('--owner <owner>', 'owner named in the copyright header');
  addPluginOptions(edit, 'edit').action(async (flags: EditFlags) => {
    const plugins = selectedPlugins(flags, 'edit');
    const settingsGiven = [flags.multigroup, flags.namespaced, flags.license, flags.owner].some((v) => v !== undefined);
    const root = process.cwd();
    if (settingsGiven || plugins.size === 0) {
      const { scaffoldEdit } = await import('../scaffold/edit.js');
      const result = scaffoldEdit(root, {
        multigroup: flags.multigroup,
        namespaced: flags.namespaced,
        license: flags.license,
        owner: flags.owner,
      });
      console.log('Wrote:');
      printWritten(result.written);
      for (const note of result.notes) console.log(note);
    }
    if (plugins.size > 0) {
      const result = await runEditPlugins(root, plugins);
      console.log('Wrote:');
      printWritten(result.written);
      for (const note of result.notes) console.log(note);
    }
  });
}
