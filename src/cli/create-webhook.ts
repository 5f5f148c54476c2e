import type { Command } from 'commander';
import { printWritten } from './flags.js';

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
}

/** `scaffold create webhook`, a subcommand of `scaffold create`. */
export function registerCreateWebhookCommand(create: Command): void {
  create
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
    .option('--force', 'overwrite existing webhook files')
    .action(async (flags: CreateWebhookFlags) => {
      const { scaffoldCreateWebhook } = await import('../scaffold/webhook.js');
      const result = scaffoldCreateWebhook(process.cwd(), {
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
      for (const warning of result.warnings) console.warn(`Warning: ${warning}`);
      console.log('Wrote:');
      printWritten(result.written);
      console.log('Next: implement your new webhook and generate the manifests with:\n$ npx scaffold manifests');
    });
}
