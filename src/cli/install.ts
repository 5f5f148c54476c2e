/**
 * `scaffold install` / `scaffold uninstall`: the CRDs of config/crd, server-side applied (field manager kubescaffold)
 * and waited for until Established, or deleted. kubebuilder's `make install` / `make uninstall`.
 */
import { Command, Option } from 'commander';
import { parseBoolean, parseDryRun, parseDuration } from './flags.js';
import { runClusterCommand } from './cluster-action.js';

interface InstallFlags {
  kubeconfig?: string;
  context?: string;
  dryRun: 'none' | 'server';
  forceConflicts?: boolean;
  timeout: number;
}

interface UninstallFlags {
  kubeconfig?: string;
  context?: string;
  dryRun: 'none' | 'server';
  ignoreNotFound: boolean;
  wait: boolean;
  timeout: number;
}

export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use instead of its current-context')
    .addOption(
      new Option('--dry-run <mode>', 'server: send every request as a server-side dry run; nothing is stored')
        .argParser(parseDryRun)
        .default('none'),
    );
}

export function registerInstallCommand(program: Command): void {
  addConnectionOptions(
    program
      .command('install')
      .description(
        'Install the CRDs of config/crd into the cluster (server-side apply) and wait until they are established',
      ),
  )
    .option('--force-conflicts', 'take over fields another field manager owns')
    .addOption(
      new Option('--timeout <duration>', 'how long the CRDs may take to become established')
        .argParser(parseDuration)
        .default(60_000, '60s'),
    )
    .action(async (opts: InstallFlags) => {
      await runClusterCommand(opts, async ({ connect, root, print }) => {
        const { applyManifests, buildConfig } = await import('../cluster/index.js');
        const objects = buildConfig(root, 'config/crd');
        if (objects.length === 0) {
          print('No CRDs to install; skipping.');
          return;
        }
        await applyManifests(await connect(), objects, {
          dryRun: opts.dryRun === 'server',
          forceConflicts: opts.forceConflicts,
          timeoutMs: opts.timeout,
          log: print,
        });
      });
    });
}

export function registerUninstallCommand(program: Command): void {
  addConnectionOptions(
    program
      .command('uninstall')
      .description('Delete the CRDs of config/crd (and with them every object of their kinds) from the cluster'),
  )
    .option('--ignore-not-found [bool]', 'CRDs that are not installed are not an error', parseBoolean, false)
    .option('--wait [bool]', 'wait until the CRDs are gone', parseBoolean, true)
    .addOption(new Option('--timeout <duration>', 'how long to wait').argParser(parseDuration).default(120_000, '2m'))
    .action(async (opts: UninstallFlags) => {
      await runClusterCommand(opts, async ({ connect, root, print }) => {
        const { buildConfig, deleteManifests } = await import('../cluster/index.js');
        const objects = buildConfig(root, 'config/crd');
        if (objects.length === 0) {
          print('No CRDs to uninstall; skipping.');
          return;
        }
        await deleteManifests(await connect(), objects, {
          dryRun: opts.dryRun === 'server',
          ignoreNotFound: opts.ignoreNotFound,
          wait: opts.wait,
          timeoutMs: opts.timeout,
          log: print,
        });
      });
    });
}
