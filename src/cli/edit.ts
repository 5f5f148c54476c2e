import type { Command } from 'commander';
import { parseBoolean } from './flags.js';
import { addPluginOptions, printChainResults } from './plugins.js';

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
  const plugins = addPluginOptions(edit, 'edit');
  edit.action(async (flags: EditFlags) => {
    const chain = await plugins.chain(flags);
    const settingsGiven = [flags.multigroup, flags.namespaced, flags.license, flags.owner].some((v) => v !== undefined);
    // the settings are the layout's: given with --plugins that leaves it out, it runs first
    const steps =
      chain.steps.some((s) => s.kind === 'layout') || !settingsGiven
        ? chain.steps
        : [{ kind: 'layout' as const }, ...chain.steps];
    const root = process.cwd();
    const [{ runChain }, { pluginArgs }] = await Promise.all([
      import('../scaffold/plugins/run-chain.js'),
      import('../scaffold/plugins/external/protocol.js'),
    ]);
    const results = await runChain(
      root,
      steps,
      {
        layout: async () => {
          const { scaffoldEdit } = await import('../scaffold/edit.js');
          const result = scaffoldEdit(root, {
            multigroup: flags.multigroup,
            namespaced: flags.namespaced,
            license: flags.license,
            owner: flags.owner,
          });
          return { ...result, warnings: [] };
        },
        builtin: async (spec) => {
          const plugin = await spec.load();
          const result = plugin.edit?.(root, chain.builtinFlags.get(spec) ?? {}) ?? { written: [], notes: [] };
          return { ...result, warnings: [] };
        },
      },
      { command: 'edit', args: pluginArgs(chain.argv) },
    );
    printChainResults(results);
  });
}
