import type { Command } from 'commander';
import { CliError } from './errors.js';
import { registerCreateWebhookCommand } from './create-webhook.js';
import { parseBoolean } from './flags.js';
import { addPluginOptions, printChainResults } from './plugins.js';
import type { StepResult } from '../scaffold/plugins/run-chain.js';
import { shortKey } from '../scaffold/plugins/registry.js';

interface CreateAPIFlags {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  resource: boolean;
  controller: boolean;
  controllerName?: string;
  namespaced: boolean;
  force: boolean;
  externalApiPath?: string;
  externalApiDomain?: string;
  externalApiCrd?: string[];
  ssa: boolean;
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
    .option(
      '--controller-name <name>',
      'name of the controller to scaffold, e.g. captain-backup: another controller for the same kind, in its own file and class',
    )
    .option('--namespaced [bool]', 'the resource is namespaced (false: cluster-scoped)', parseBoolean, true)
    .option('--force', 'overwrite existing types, controller and sample files', false)
    .option(
      '--ssa',
      'scaffold a controller that writes through server-side apply, with a typed apply configuration (as kubebuilder --ssa); recorded in PROJECT',
      false,
    )
    .option(
      '--external-api-path <path>',
      'a Kind another project defines: the folder of its imported types (scaffold import crd), or a package exporting <Kind>Resource; with --resource=false',
    )
    .option('--external-api-domain <domain>', "the domain of the external Kind's group: the group is <group>.<domain>")
    .option(
      '--external-api-crd <source...>',
      'run `scaffold import crd` on these sources (file, folder, https URL or installed CRD name) first; the path defaults to its folder for the group and version',
    );
  const plugins = addPluginOptions(api, 'create api');
  api.action(async (flags: CreateAPIFlags) => {
    const chain = await plugins.chain(flags);
    const root = process.cwd();
    for (const step of chain.steps) {
      if (step.kind !== 'builtin') continue;
      // A create api plugin scaffolds the types and the controller together.
      if (flags.controllerName !== undefined)
        throw new CliError(
          `--plugins=${shortKey(step.spec.key)} scaffolds the kind's one controller; drop --controller-name`,
        );
      if (!flags.resource || !flags.controller) {
        throw new CliError(
          `--plugins=${shortKey(step.spec.key)} scaffolds both the API and its controller; drop --resource=false and --controller=false`,
        );
      }
    }
    const [{ runChain }, { pluginArgs }] = await Promise.all([
      import('../scaffold/plugins/run-chain.js'),
      import('../scaffold/plugins/external/protocol.js'),
    ]);
    const results = await runChain(
      root,
      chain.steps,
      {
        layout: () => createAPI(root, flags),
        builtin: async (spec) => {
          const plugin = await spec.load();
          const request = {
            group: flags.group,
            version: flags.version,
            kind: flags.kind,
            plural: flags.plural,
            namespaced: flags.namespaced,
            force: flags.force,
          };
          const result = plugin.createAPI!(root, request, chain.builtinFlags.get(spec) ?? {});
          return { ...result, warnings: [] };
        },
      },
      { command: 'create api', args: pluginArgs(chain.argv) },
    );
    printChainResults(results);
    if (chain.steps.some((s) => s.kind === 'layout'))
      console.log(
        flags.resource
          ? 'Next: edit the types, then generate the manifests with:\n$ npx scaffold manifests'
          : 'Next: implement the reconciler.',
      );
  });
  registerCreateWebhookCommand(create);
}

/** kubescaffold's own create api: the types, the controller and their wiring. */
async function createAPI(root: string, flags: CreateAPIFlags): Promise<StepResult> {
  const { scaffoldCreateAPI } = await import('../scaffold/api.js');
  let externalApiPath = flags.externalApiPath;
  let undoImport = (): void => {};
  if (flags.externalApiCrd && flags.externalApiCrd.length > 0) {
    const { importExternalCRD } = await import('../importer/external.js');
    const imported = await importExternalCRD(root, {
      sources: flags.externalApiCrd,
      group: flags.group,
      version: flags.version,
      kind: flags.kind,
      domain: flags.externalApiDomain,
      path: externalApiPath,
      resource: flags.resource,
    });
    externalApiPath = imported.folder;
    undoImport = imported.undo;
  }
  try {
    const result = scaffoldCreateAPI(root, {
      group: flags.group,
      version: flags.version,
      kind: flags.kind,
      plural: flags.plural,
      resource: flags.resource,
      controller: flags.controller,
      controllerName: flags.controllerName,
      namespaced: flags.namespaced,
      force: flags.force,
      externalApiPath,
      externalApiDomain: flags.externalApiDomain,
      ssa: flags.ssa,
    });
    return { written: result.written, notes: [], warnings: [] };
  } catch (err) {
    // a failed command leaves every file as it was: the types imported for it go again
    undoImport();
    throw err;
  }
}
