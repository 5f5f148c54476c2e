import type { Command } from 'commander';
import { CliError } from './errors.js';
import { registerCreateWebhookCommand } from './create-webhook.js';
import { parseBoolean, printWritten } from './flags.js';
import { addPluginOptions, selectedPlugins } from './plugins.js';
import { shortKey } from '../scaffold/plugins/registry.js';

interface CreateAPIFlags {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  resource: boolean;
  controller: boolean;
  namespaced: boolean;
  force: boolean;
  [pluginFlag: string]: unknown;
}

export function registerCreateCommand(program: Command): void {
  const create = program.command('create').description('Scaffold a Kubernetes API or webhook');
  const api = create
    .command('api')
    .description('Scaffold a Kubernetes API: types with markers, a controller, its test, a sample and RBAC helpers')
    .option('--group <group>', 'resource group', '')
    .requiredOption('--version <version>', 'resource version, e.g. v1')
    .requiredOption('--kind <kind>', 'resource kind, e.g. CronJob')
    .option('--plural <plural>', 'resource plural (defaults to the pluralized lowercase kind)')
    .option('--resource [bool]', 'scaffold the API types', parseBoolean, true)
    .option('--controller [bool]', 'scaffold a controller', parseBoolean, true)
    .option('--namespaced [bool]', 'the resource is namespaced (false: cluster-scoped)', parseBoolean, true)
    .option('--force', 'overwrite existing types, controller and sample files', false);
  addPluginOptions(api, 'create api').action(async (flags: CreateAPIFlags) => {
    const plugins = selectedPlugins(flags, 'create api');
    if (plugins.size > 1) throw new CliError(`--plugins names ${plugins.size} plugins that scaffold an API; give one`);
    for (const [spec, pluginFlags] of plugins) {
      // A create api plugin scaffolds the types and the controller together.
      if (!flags.resource || !flags.controller) {
        throw new CliError(
          `--plugins=${shortKey(spec.key)} scaffolds both the API and its controller; drop --resource=false and --controller=false`,
        );
      }
      const plugin = await spec.load();
      const request = {
        group: flags.group,
        version: flags.version,
        kind: flags.kind,
        plural: flags.plural,
        namespaced: flags.namespaced,
        force: flags.force,
      };
      const result = plugin.createAPI!(process.cwd(), request, pluginFlags);
      console.log('Wrote:');
      printWritten(result.written);
      for (const note of result.notes) console.log(note);
      return;
    }
    const { scaffoldCreateAPI } = await import('../scaffold/api.js');
    const result = scaffoldCreateAPI(process.cwd(), {
      group: flags.group,
      version: flags.version,
      kind: flags.kind,
      plural: flags.plural,
      resource: flags.resource,
      controller: flags.controller,
      namespaced: flags.namespaced,
      force: flags.force,
    });
    console.log('Wrote:');
    printWritten(result.written);
    console.log(
      flags.resource
        ? 'Next: edit the types, then generate the manifests with:\n$ npx scaffold manifests'
        : 'Next: implement the reconciler.',
    );
  });
  registerCreateWebhookCommand(create);
}
