import { Command, CommanderError, type Option } from 'commander';
import { registerAlphaCommand } from './alpha.js';
import { registerBuildCommand } from './build.js';
import { registerCreateCommand } from './create-api.js';
import { registerBuildInstallerCommand, registerDeployCommand, registerUndeployCommand } from './deploy.js';
import { registerEditCommand } from './edit.js';
import { registerEnvtestCommand } from './envtest.js';
import { isUserError } from '../errors.js';
import { registerGenerateCommand } from './generate.js';
import { registerImportCommand } from './import.js';
import { registerInitCommand } from './init.js';
import { registerInstallCommand, registerUninstallCommand } from './install.js';
import { registerManifestsCommand } from './manifests.js';
import { registerRunCommand } from './run.js';
import { registerCompletionCommand } from './completion.js';
import { addExamples } from './examples.js';
import { commandTree } from './tree.js';
import { readPackageVersion, registerVersionCommand, runningCli } from './version.js';
import { checkRuntimeSkew } from '../project/runtime-version.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The commands that write code or manifests into a project: they first check the project's runtime is this CLI's. */
const PROJECT_WRITERS = new Set(['create api', 'create webhook', 'edit', 'manifests', 'generate']);

/** Builds the `scaffold` program. Command modules load their heavy dependencies lazily, inside actions. */
export function buildProgram(): Command {
  const program = new Command('scaffold')
    .description('Kubebuilder for TypeScript: scaffold, generate manifests for, and run Kubernetes operators')
    .version(readPackageVersion(), '-v, --version')
    .enablePositionalOptions()
    .exitOverride();
  registerInitCommand(program);
  registerCreateCommand(program);
  registerEditCommand(program);
  registerAlphaCommand(program);
  registerManifestsCommand(program);
  registerGenerateCommand(program);
  registerImportCommand(program);
  registerBuildCommand(program);
  registerInstallCommand(program);
  registerUninstallCommand(program);
  registerDeployCommand(program);
  registerUndeployCommand(program);
  registerBuildInstallerCommand(program);
  registerRunCommand(program);
  registerEnvtestCommand(program);
  registerVersionCommand(program);
  registerCompletionCommand(program);
  addExamples(program);
  shortUsageAfterErrors(program);
  unknownOptionsBeforeMissingOnes(program);
  program.hook('preAction', (_program, command) => {
    const path = commandPath(command);
    const root = process.cwd();
    if (PROJECT_WRITERS.has(path) && existsSync(join(root, 'PROJECT'))) checkRuntimeSkew(root, runningCli());
  });
  return program;
}

/** A command's path below the program, e.g. "create api". */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * A usage error (a missing flag, an unknown one, a misspelt command) prints its line, then the command's usage and where
 * its help is: the whole help, 45 lines and more, would push the error out of sight above it.
 */
function shortUsageAfterErrors(program: Command): void {
  for (const [path, cmd] of commandTree(program)) {
    const name = path === '' ? 'scaffold' : `scaffold ${path}`;
    const what = cmd.commands.length > 0 ? 'its commands' : 'its flags and examples';
    cmd.showHelpAfterError(`Usage: ${name} ${cmd.usage()}\nSee \`${name} --help\` for ${what}.`);
  }
}

/**
 * A mistyped flag (`--versoin v1`) must be named, with commander's suggestion, rather than reported as the missing
 * `--version` it was meant to be. Commander checks required options before unknown ones, so each command's required
 * options are checked here instead, in a preAction hook: that runs after the unknown-option check.
 */
function unknownOptionsBeforeMissingOnes(program: Command): void {
  const required = new Map<Command, Option[]>();
  for (const [, cmd] of commandTree(program)) {
    const options = cmd.options.filter((o) => o.mandatory);
    for (const option of options) option.makeOptionMandatory(false);
    if (options.length > 0) required.set(cmd, options);
  }
  // On the program, registered before its other preAction hooks: a missing flag is reported before anything runs.
  program.hook('preAction', (_program, command) => {
    const missing = required.get(command)?.find((o) => command.getOptionValue(o.attributeName()) === undefined);
    if (missing)
      command.error(`error: required option '${missing.flags}' not specified`, {
        code: 'commander.missingMandatoryOptionValue',
      });
  });
}

/** Runs the CLI and returns the exit code; errors are printed, never thrown. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    console.error(describeFailure(err, argv));
    return exitCodeOf(err);
  }
}

/** The exit code for a failed command: a UserError's own, 130 (as a shell's) for Ctrl-C, else 1. */
export function exitCodeOf(err: unknown): number {
  if (isUserError(err)) return err.exitCode;
  return isCtrlC(err) ? 130 : 1;
}

/** Node's readline rejects a pending question with this AbortError on Ctrl-C: the user's answer, not a bug. */
function isCtrlC(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError' && /Ctrl\+C/.test(err.message);
}

/**
 * What the user sees when a command fails: a UserError's message, with what caused it when that adds something; for
 * anything else, which is a bug in kubescaffold, the stack and how to report it.
 */
export function describeFailure(err: unknown, argv: readonly string[]): string {
  if (isCtrlC(err)) return 'Interrupted (Ctrl-C).';
  if (isUserError(err)) {
    const cause = err.cause instanceof Error ? err.cause.message : undefined;
    return cause && !err.message.includes(cause)
      ? `Error: ${err.message}\n  caused by: ${cause}`
      : `Error: ${err.message}`;
  }
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return [
    detail,
    '',
    `This is a bug in kubescaffold ${readPackageVersion()}, not something you did wrong. Please report it with the text above`,
    `and the command that was run: scaffold ${argv.slice(2).join(' ')}`,
  ].join('\n');
}
