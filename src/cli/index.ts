import { Command, CommanderError } from 'commander';
import { registerBuildCommand } from './build.js';
import { registerCreateCommand } from './create-api.js';
import { registerBuildInstallerCommand, registerDeployCommand, registerUndeployCommand } from './deploy.js';
import { registerEditCommand } from './edit.js';
import { registerEnvtestCommand } from './envtest.js';
import { CliError } from './errors.js';
import { registerGenerateCommand } from './generate.js';
import { registerInitCommand } from './init.js';
import { registerInstallCommand, registerUninstallCommand } from './install.js';
import { registerManifestsCommand } from './manifests.js';
import { registerRunCommand } from './run.js';
import { readPackageVersion } from './version.js';

/** Builds the `scaffold` program. Command modules load their heavy dependencies lazily, inside actions. */
export function buildProgram(): Command {
  const program = new Command('scaffold')
    .description('Kubebuilder for TypeScript: scaffold, generate manifests for, and run Kubernetes operators')
    .version(readPackageVersion(), '-v, --version')
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride();
  registerInitCommand(program);
  registerCreateCommand(program);
  registerEditCommand(program);
  registerManifestsCommand(program);
  registerGenerateCommand(program);
  registerBuildCommand(program);
  registerInstallCommand(program);
  registerUninstallCommand(program);
  registerDeployCommand(program);
  registerUndeployCommand(program);
  registerBuildInstallerCommand(program);
  registerRunCommand(program);
  registerEnvtestCommand(program);
  return program;
}

/** Runs the CLI and returns the exit code; errors are printed, never thrown. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}
