/** `scaffold run`: build the project and run its manager on this machine against the current kubeconfig (make run), or as its Deployment would run it (make run-as-deployed). */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadProject } from '../project/load.js';
import { conversionHubs } from '../project/conversion-hubs.js';
import { CliError } from './errors.js';

interface RunFlags {
  kubeconfig?: string;
  context?: string;
  build: boolean;
  asDeployed?: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description(
      'Build the project (npm run build) and run its manager against the cluster of the current kubeconfig; Ctrl-C stops it',
    )
    .argument('[args...]', 'arguments for the manager, after -- (e.g. -- --metrics-bind-address=:8080)')
    .option('--kubeconfig <file>', 'kubeconfig for the manager (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context for the manager')
    .option('--no-build', 'run dist/cmd/main.js as it is, without npm run build')
    .option(
      '--as-deployed',
      "run it as config/default would in a pod: as its ServiceAccount (not you), with the container's args, env and memory limit, " +
        'its probes polled, and every Forbidden answer reported with the RBAC marker that grants it',
    )
    .action(async (args: string[], opts: RunFlags) => {
      if (opts.asDeployed) {
        if (args.length > 0)
          throw new CliError(
            '--as-deployed runs the manager with the args of its Deployment; change them in config/manager/manager.yaml instead of passing them here',
          );
        const { runAsDeployed } = await import('../cluster/deployed/run.js');
        const code = await runAsDeployed(process.cwd(), {
          kubeconfig: opts.kubeconfig,
          context: opts.context,
          skipBuild: !opts.build,
        });
        if (code !== 0) throw new CliError(`the manager exited with code ${code}`, code);
        return;
      }
      warnOfConversionWithoutWebhooks(process.cwd());
      const { runManager } = await import('../cluster/index.js');
      const code = await runManager(process.cwd(), {
        kubeconfig: opts.kubeconfig,
        context: opts.context,
        skipBuild: !opts.build,
        args,
      });
      if (code !== 0) throw new CliError(`the manager exited with code ${code}`, code);
    });
}

/**
 * With ENABLE_WEBHOOKS=false the conversion webhook is off too: the API server cannot convert a multi-version Kind, and
 * kubectl, which asks for the newest version, fails on it. Says which version reads without a conversion.
 */
function warnOfConversionWithoutWebhooks(root: string): void {
  if (process.env.ENABLE_WEBHOOKS !== 'false' || !existsSync(join(root, 'PROJECT'))) return;
  let project;
  try {
    project = loadProject(root);
  } catch {
    return; // A PROJECT this cannot read is not this note's business: the manager runs as it is.
  }
  for (const hub of conversionHubs(project)) {
    process.stderr.write(
      `note: ENABLE_WEBHOOKS=false turns off the conversion webhook of ${hub.kind} (${hub.versions.join(', ')}): ` +
        `the API server cannot convert between its versions. Write and read it in its stored version, ${hub.versions[0]}: ` +
        `kubectl get ${hub.hubResource}\n`,
    );
  }
}
