import { isObject } from '@kubescaffold/runtime/json';

import { ScaffoldError } from '../../../errors.js';

// kubebuilder's external plugin protocol (sigs.k8s.io/kubebuilder/v4/pkg/plugin/external): the CLI writes one
// PluginRequest as JSON on the plugin's standard input and reads one PluginResponse from its standard output.

/** The schema version kubebuilder sends and plugins answer with. */
export const PROTOCOL_API_VERSION = 'v1alpha1';

/** The subcommands a plugin scaffolds for, as PluginRequest.command names them. */
export type ScaffoldCommand = 'init' | 'create api' | 'create webhook' | 'edit';

/** What the CLI asks a plugin: a scaffold run, or its flags or help text for one subcommand. */
export type RequestCommand = ScaffoldCommand | 'flags' | 'metadata';

/** PluginRequest: what the CLI and the plugins before this one in the chain give the plugin. */
export interface PluginRequest {
  apiVersion: string;
  /** The `--` flags of the command line with their values, `--plugins` left out (kubebuilder's parseExternalPluginArgs). */
  args: string[];
  command: RequestCommand;
  /** The project's files, path to content; empty for `flags` and `metadata`. */
  universe: Record<string, string>;
  /** The project's plugin chain (PROJECT's layout). */
  pluginChain?: string[];
  /** PROJECT as a JSON object. */
  config?: Record<string, unknown>;
}

/** A flag a plugin declares in answer to `flags` (kubebuilder's external.Flag; Go writes its keys capitalised). */
export interface PluginFlag {
  name: string;
  /** bool, int, float or string; anything else is taken as string, as kubebuilder takes it. */
  type: 'bool' | 'int' | 'float' | 'string';
  /** The default as text, converted to the type (an unreadable one gives the type's zero value, as in kubebuilder). */
  default: string;
  usage: string;
}

/** PluginResponse, checked: the files to write, or the flags or help text asked for. */
export interface PluginResponse {
  universe: Record<string, string>;
  flags: PluginFlag[];
  metadata: { description: string; examples: string };
  /** Set when the plugin answered `error: true`; the messages joined by newlines, as kubebuilder joins them. */
  error?: string;
}

/** The argument kubebuilder gives `flags` and `metadata` requests to name the subcommand they are about. */
export function subcommandArg(command: ScaffoldCommand): string {
  return { init: '--init', 'create api': '--api', 'create webhook': '--webhook', edit: '--edit' }[command];
}

/**
 * The PluginResponse in `text`, checked field by field. Keys are matched as Go's encoding/json matches them (an exact
 * match first, else case-insensitively), so a plugin may write `Name` or `name`. Throws a ScaffoldError naming the
 * plugin and the field when the response is not one.
 */
export function parseResponse(text: string, plugin: string): PluginResponse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const start = text.trim().slice(0, 80);
    throw new ScaffoldError(
      `plugin ${plugin} answered with something that is not JSON (${(err as Error).message.replace(/\s+/g, ' ')})${start ? `: ${JSON.stringify(start)}` : ' (nothing at all)'}; a plugin writes one PluginResponse on standard output and its logs on standard error`,
    );
  }
  const bad = (what: string): ScaffoldError =>
    new ScaffoldError(`plugin ${plugin} answered with an invalid PluginResponse: ${what}`);
  if (!isObject(data)) throw bad('it is not a JSON object');

  const errorFlag = field(data, 'error');
  if (errorFlag !== undefined && errorFlag !== null && typeof errorFlag !== 'boolean')
    throw bad('"error" is not a boolean');
  const messages = field(data, 'errorMsgs');
  if (errorFlag === true) {
    const list = Array.isArray(messages) ? messages.filter((m): m is string => typeof m === 'string') : [];
    return { universe: {}, flags: [], metadata: { description: '', examples: '' }, error: list.join('\n') };
  }

  const universe = field(data, 'universe');
  const files: Record<string, string> = {};
  if (universe !== undefined && universe !== null) {
    if (!isObject(universe)) throw bad('"universe" is not an object of file paths to contents');
    for (const [path, content] of Object.entries(universe)) {
      if (typeof content !== 'string')
        throw bad(`the content of ${JSON.stringify(path)} in "universe" is not a string`);
      files[path] = content;
    }
  }

  const flags: PluginFlag[] = [];
  const rawFlags = field(data, 'flags');
  if (rawFlags !== undefined && rawFlags !== null) {
    if (!Array.isArray(rawFlags)) throw bad('"flags" is not a list');
    for (const [i, raw] of rawFlags.entries()) {
      if (!isObject(raw)) throw bad(`flags[${i}] is not an object`);
      const text = (key: string): string => {
        const value = field(raw, key);
        if (value === undefined || value === null) return '';
        if (typeof value !== 'string') throw bad(`flags[${i}].${key} is not a string`);
        return value;
      };
      const name = text('Name');
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
        throw bad(
          `flags[${i}] has the name ${JSON.stringify(name)}; a flag's name is letters, digits, '.', '_' and '-'`,
        );
      const type = text('Type');
      flags.push({
        name,
        type: type === 'bool' || type === 'int' || type === 'float' ? type : 'string',
        default: text('Default'),
        usage: text('Usage'),
      });
    }
  }

  const metadata = { description: '', examples: '' };
  const rawMetadata = field(data, 'metadata');
  if (isObject(rawMetadata)) {
    for (const key of ['description', 'examples'] as const) {
      const value = field(rawMetadata, key);
      if (typeof value === 'string') metadata[key] = value;
    }
  }
  return { universe: files, flags, metadata };
}

/** A key's value the way Go's json.Unmarshal finds a struct field: the exact key, else one equal ignoring case. */
function field(object: Record<string, unknown>, key: string): unknown {
  if (Object.hasOwn(object, key)) return object[key];
  const lower = key.toLowerCase();
  const found = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return found === undefined ? undefined : object[found];
}

/**
 * The arguments kubebuilder passes a plugin (parseExternalPluginArgs): every argument that starts with `--`, each
 * followed by the next argument when that one does not start with `--`, and `--plugins` with its value left out.
 * `argv` is the command line after the program's name.
 */
export function pluginArgs(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (const [i, arg] of argv.entries()) {
    if (!arg.startsWith('--') || arg === '--plugins' || arg.startsWith('--plugins=')) continue;
    args.push(arg);
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) args.push(next);
  }
  return args;
}
