import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command, type Option } from 'commander';
import { isUserError } from '../errors.js';
import { parseProject } from '../project/project.js';
import { resolveChain, type ChainSource, type ChainStep } from '../scaffold/plugins/chain.js';
import {
  LAYOUT_PLUGIN_KEY,
  pluginFlagValues,
  pluginSpecs,
  shortKey,
  type PluginSpec,
  type PluginSubcommand,
} from '../scaffold/plugins/registry.js';
import type { PluginFlag } from '../scaffold/plugins/external/protocol.js';
import { CliError } from './errors.js';
import type { ChainResult } from '../scaffold/plugins/run-chain.js';
import { parseBoolean, printWritten } from './flags.js';

// --plugins and the flags of the plugins it selects. An external plugin's flags are known only once the plugin is
// asked for them, so, as kubebuilder binds them before cobra parses, the chain is resolved from the command line (or
// PROJECT's layout) just before commander parses the subcommand, and the plugins' flags are declared on it then:
// `--help` shows them and a misspelt flag is still refused.

/** The chain a command runs, with what each plugin of it is given. */
export interface PluginChainRun {
  steps: ChainStep[];
  /** The flag values of each built-in plugin of the chain. */
  builtinFlags: Map<PluginSpec, Record<string, unknown>>;
  /** The subcommand's command line (after its name), for the external plugins' arguments. */
  argv: string[];
}

/** The chain of a command that addPluginOptions prepared. */
export interface PluginOptions {
  /** The chain to run, given the parsed options; throws what resolving it threw. */
  chain(options: Record<string, unknown>): Promise<PluginChainRun>;
}

/** The flag names kubebuilder never takes from a plugin: the resource's and help (pkg/plugins/external/helpers.go). */
const RESERVED = new Set(['group', 'version', 'kind', 'help', 'plugins']);

/**
 * Adds --plugins and the built-in plugins' flags for this subcommand (a flag shared by two plugins is declared once),
 * and, before the subcommand's flags are parsed, the flags of the external plugins its chain runs.
 */
export function addPluginOptions(command: Command, subcommand: PluginSubcommand): PluginOptions {
  const usable = pluginSpecs.filter((s) => s.subcommands.includes(subcommand));
  const keys = [LAYOUT_PLUGIN_KEY, ...usable.map((s) => s.key)].map(shortKey);
  command.option(
    '--plugins <keys>',
    `comma-separated plugins to run, in order (default: ${subcommand === 'init' ? 'typescript/v1' : "PROJECT's layout"}): ${keys.join(', ')}, or an external plugin's <name>/<version> (an executable in $EXTERNAL_PLUGINS_PATH or ~/.config/kubebuilder/plugins/<name>/<version>/)`,
  );
  const declared = new Set(command.options.map((o) => o.attributeName()));
  for (const spec of usable) {
    for (const flag of spec.flags[subcommand] ?? []) {
      if (declared.has(flag.name)) continue;
      declared.add(flag.name);
      const owners = usable
        .filter((s) => (s.flags[subcommand] ?? []).some((f) => f.name === flag.name))
        .map((s) => shortKey(s.key));
      command.option(flag.flags, `${flag.description} (with --plugins=${owners.join(' or ')})`);
    }
  }

  let prepared: Prepared | undefined;
  command.parent?.hook('preSubcommand', async (parent, sub) => {
    if (sub !== command) return;
    prepared = await prepare(command, subcommand, subcommandArgs(parent), process.cwd());
  });
  return {
    async chain(options) {
      const { steps, argv, externalFlags } = prepared ?? (await prepare(undefined, subcommand, [], process.cwd()));
      return {
        steps,
        argv,
        builtinFlags: pluginFlagValues(
          options,
          subcommand,
          steps.flatMap((s) => (s.kind === 'builtin' ? [s.spec] : [])),
          pluginSpecs,
          externalFlags,
        ),
      };
    },
  };
}

interface Prepared {
  steps: ChainStep[];
  argv: string[];
  /** The option names the external plugins declared, which are theirs whatever built-in plugin also has them. */
  externalFlags: Set<string>;
}

/**
 * Resolves the chain and declares its external plugins' flags on `command` (when given). A chain that does not
 * resolve is an error, unless help was asked for: the help then says why.
 */
async function prepare(
  command: Command | undefined,
  subcommand: PluginSubcommand,
  argv: string[],
  cwd: string,
): Promise<Prepared> {
  const given = pluginsValue(argv);
  const help = argv.includes('--help') || argv.includes('-h');
  let keys: string[] = [];
  let source: ChainSource = '--plugins';
  if (given !== undefined && given.trim() !== '') keys = given.split(',');
  else if (subcommand !== 'init') {
    keys = projectLayout(cwd) ?? [LAYOUT_PLUGIN_KEY];
    source = "PROJECT's layout";
  }
  let steps: ChainStep[];
  try {
    steps = resolveChain(keys, subcommand, { source });
  } catch (err) {
    if (!help || !isUserError(err) || command === undefined) throw err;
    command.addHelpText('after', `\nNote: ${err.message}\n`);
    return { steps: [], argv, externalFlags: new Set() };
  }
  const externalFlags = new Set<string>();
  if (command === undefined) return { steps, argv, externalFlags };
  for (const step of steps) {
    if (step.kind !== 'external') continue;
    // loaded here only: most commands run no external plugin
    const external = await import('../scaffold/plugins/external/index.js');
    const flags = external.pluginFlags(step.plugin, subcommand, cwd);
    const added =
      flags === undefined
        ? declareGivenFlags(command, step.plugin.key, argv)
        : declareFlags(command, step.plugin.key, flags);
    for (const name of added) externalFlags.add(name);
    if (help) {
      const meta = external.pluginHelp(step.plugin, subcommand, cwd);
      const text = [meta?.description.trim(), meta?.examples.trim() ? `Examples:\n${meta.examples.trim()}` : '']
        .filter((t) => t)
        .join('\n\n');
      command.addHelpText(
        'after',
        `\nPlugin ${step.plugin.key} (${step.plugin.path}):\n${text || '(it gives no help text)'}`,
      );
    }
  }
  return { steps, argv, externalFlags };
}

/**
 * Declares the flags a plugin answered `flags` with (bool, int, float or string), the resource's and help aside. A
 * flag the command already has is shared when it takes a value of the same kind, as kubebuilder shares a flag two
 * plugins bind; otherwise the two cannot be told apart and the command refuses to run. Returns the names added.
 */
function declareFlags(command: Command, plugin: string, flags: readonly PluginFlag[]): string[] {
  const added: string[] = [];
  for (const flag of flags) {
    if (RESERVED.has(flag.name)) continue;
    const existing = command.options.find((o) => o.long === `--${flag.name}`);
    if (existing) {
      const takesValue = existing.required;
      const isBool = existing.isBoolean() || (existing.optional && !existing.required);
      if (flag.type === 'bool' ? !isBool : !takesValue)
        throw new CliError(
          `plugin ${plugin} declares --${flag.name} as a ${flag.type} flag, but \`scaffold ${commandPath(command)}\` has --${flag.name} ${isBool ? 'as a true/false flag' : 'with a value'}; the two cannot share it`,
        );
      continue;
    }
    const description = `${flag.usage.trim() || 'a flag of the plugin'} (plugin ${plugin})`;
    if (flag.type === 'bool') command.option(`--${flag.name} [bool]`, description, parseBoolean, goBool(flag.default));
    else if (flag.type === 'int')
      command.option(
        `--${flag.name} <int>`,
        description,
        parseInteger,
        flag.default ? parseIntegerOr(flag.default) : undefined,
      );
    else if (flag.type === 'float')
      command.option(
        `--${flag.name} <number>`,
        description,
        parseFloatValue,
        flag.default ? parseFloatOr(flag.default) : undefined,
      );
    else command.option(`--${flag.name} <value>`, description, flag.default || undefined);
    added.push(command.options.at(-1)!.attributeName());
  }
  return added;
}

/**
 * For a plugin that does not say which flags it takes: every `--flag` of the command line that the command lacks,
 * declared so that the plugin gets it and checks it (kubebuilder's bindAllFlags): a flag followed by a value takes it.
 */
function declareGivenFlags(command: Command, plugin: string, argv: readonly string[]): string[] {
  const added: string[] = [];
  const description = `a flag passed to plugin ${plugin}, which does not say which flags it takes (it checks them itself)`;
  for (const [i, arg] of argv.entries()) {
    if (!arg.startsWith('--') || arg === '--') continue;
    const name = arg.slice(2).split('=')[0]!;
    if (RESERVED.has(name) || command.options.some((o: Option) => o.long === `--${name}`)) continue;
    const next = argv[i + 1];
    const takesValue = arg.includes('=') || (next !== undefined && !next.startsWith('--'));
    command.option(takesValue ? `--${name} <value>` : `--${name}`, description);
    added.push(command.options.at(-1)!.attributeName());
  }
  return added;
}

/** Go's strconv.ParseBool of a plugin's default; an unreadable one is false, as kubebuilder takes it. */
function goBool(value: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

function parseInteger(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return Number(value);
}

function parseIntegerOr(value: string): number {
  return /^[+-]?\d+$/.test(value) ? Number(value) : 0;
}

function parseFloatValue(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || Number.isNaN(n)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return n;
}

function parseFloatOr(value: string): number {
  const n = Number(value);
  return Number.isNaN(n) ? 0 : n;
}

/** The last --plugins value on a command line (commander keeps the last one too). */
function pluginsValue(argv: readonly string[]): string | undefined {
  let value: string | undefined;
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') break;
    if (arg.startsWith('--plugins=')) value = arg.slice('--plugins='.length);
    else if (arg === '--plugins') value = argv[i + 1];
  }
  return value;
}

/** PROJECT's layout in `cwd`, or undefined when there is no readable PROJECT (the command says why itself). */
function projectLayout(cwd: string): string[] | undefined {
  const path = join(cwd, 'PROJECT');
  if (!existsSync(path)) return undefined;
  try {
    const config = parseProject(readFileSync(path, 'utf8'));
    return typeof config === 'string' ? undefined : config.layout;
  } catch {
    return undefined;
  }
}

/** The arguments a parent command hands its subcommand (commander has set them when it dispatches). */
function subcommandArgs(parent: Command): string[] {
  return parent.args.slice(1);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Prints what each plugin of a chain wrote, its notes and its warnings: kubescaffold's own under "Wrote:", an external
 * plugin's under its key.
 */
export function printChainResults(results: ReadonlyArray<ChainResult & { header?: string }>): void {
  for (const { step, name, result, header = 'Wrote:' } of results) {
    for (const warning of result.warnings) console.warn(`Warning: ${warning}`);
    if (step.kind === 'external')
      console.log(result.written.length > 0 ? `Plugin ${name} wrote:` : `Plugin ${name} changed no file.`);
    else if (result.written.length > 0) console.log(header);
    printWritten(result.written);
    for (const note of result.notes) console.log(note);
  }
}
