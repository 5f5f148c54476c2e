import type { Command } from 'commander';
import { addPluginOptions, printChainResults } from './plugins.js';

interface CreateWebhookFlags {
  group: string;
  version: string;
  kind: string;
  defaulting?: boolean;
  programmaticValidation?: boolean;
  conversion?: boolean;
  spoke?: string;
  defaultingPath?: string;
  validationPath?: string;
  force?: boolean;
  [pluginFlag: string]: unknown;
}

/** `scaffold create webhook`, a subcommand of `scaffold create`. */
export function registerCreateWebhookCommand(create: Command): void {
  const webhook = create
    .command('webhook')
    .description(
      'Scaffold defaulting, validating and conversion webhooks for an API, or defaulting and validating webhooks for a built-in kind (e.g. --group apps --kind Deployment)',
    )
    .option('--group <group>', 'resource group', '')
    .requiredOption('--version <version>', 'resource version, e.g. v1 (the hub, with --conversion)')
    .requiredOption('--kind <kind>', 'resource kind')
    .option('--defaulting', 'scaffold a defaulting (mutating) webhook')
    .option('--programmatic-validation', 'scaffold a validating webhook')
    .option('--conversion', 'scaffold a conversion webhook, with --version as the hub')
    .option('--spoke <versions>', 'comma-separated versions that convert through the hub, e.g. v2,v3')
    .option(
      '--defaulting-path <path>',
      'serve the defaulting webhook at this path instead of /mutate-<group>-<version>-<kind>, e.g. /custom-mutate (with --defaulting)',
    )
    .option(
      '--validation-path <path>',
      'serve the validating webhook at this path instead of /validate-<group>-<version>-<kind> (with --programmatic-validation)',
    )
    .option('--force', 'overwrite existing webhook files');
  const plugins = addPluginOptions(webhook, 'create webhook');
  webhook.action(async (flags: CreateWebhookFlags) => {
    const chain = await plugins.chain(flags);
    const root = process.cwd();
    const [{ runChain }, { pluginArgs }] = await Promise.all([
      import('../scaffold/plugins/run-chain.js'),
      import('../scaffold/plugins/external/protocol.js'),
    ]);
    const results = await runChain(
      root,
      chain.steps,
      {
        layout: async () => {
          const { scaffoldCreateWebhook } = await import('../scaffold/webhook.js');
          const result = scaffoldCreateWebhook(root, {
            group: flags.group,
            version: flags.version,
            kind: flags.kind,
            defaulting: Boolean(flags.defaulting),
            validation: Boolean(flags.programmaticValidation),
            conversion: Boolean(flags.conversion),
            spokes: (flags.spoke ?? '')
              .split(',')
              .map((v) => v.trim())
              .filter((v) => v !== ''),
            force: Boolean(flags.force),
            defaultingPath: flags.defaultingPath,
            validationPath: flags.validationPath,
          });
          return { written: result.written, notes: [], warnings: result.warnings };
        },
        // no built-in optional plugin scaffolds webhooks (resolveChain refuses them here)
        builtin: () => ({ written: [], notes: [], warnings: [] }),
      },
      { command: 'create webhook', args: pluginArgs(chain.argv) },
    );
    printChainResults(results);
    if (chain.steps.some((s) => s.kind === 'layout'))
      console.log('Next: implement your new webhook and generate the manifests with:\n$ npx scaffold manifests');
  });
}
