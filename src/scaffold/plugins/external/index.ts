import { ScaffoldError, isUserError } from '../../../errors.js';
import { callPlugin, exchange } from './call.js';
import type { ExternalPlugin } from './discover.js';
import {
  PROTOCOL_API_VERSION,
  parseResponse,
  subcommandArg,
  type PluginFlag,
  type PluginRequest,
  type PluginResponse,
  type ScaffoldCommand,
} from './protocol.js';
import { readUniverse, writeUniverse, type UniverseWrite } from './universe.js';

export type { ExternalPlugin } from './discover.js';
export type { PluginFlag, ScaffoldCommand } from './protocol.js';

/**
 * The flags a plugin declares for a subcommand (the `flags` request), or undefined when it does not answer one: then,
 * as kubebuilder does, every flag of the command line is taken and the plugin checks them itself. A plugin that
 * answers with flags it cannot have (a malformed name) is an error.
 */
export function pluginFlags(plugin: ExternalPlugin, command: ScaffoldCommand, cwd: string): PluginFlag[] | undefined {
  const response = ask(plugin, 'flags', command, cwd);
  return response?.flags;
}

/** The help text a plugin gives for a subcommand (the `metadata` request), or undefined when it gives none. */
export function pluginHelp(
  plugin: ExternalPlugin,
  command: ScaffoldCommand,
  cwd: string,
): { description: string; examples: string } | undefined {
  return ask(plugin, 'metadata', command, cwd)?.metadata;
}

function ask(
  plugin: ExternalPlugin,
  what: 'flags' | 'metadata',
  command: ScaffoldCommand,
  cwd: string,
): PluginResponse | undefined {
  const request: PluginRequest = {
    apiVersion: PROTOCOL_API_VERSION,
    args: [subcommandArg(command)],
    command: what,
    universe: {},
  };
  // kubebuilder falls back to its defaults whenever these requests fail (many plugins answer only the scaffold
  // commands); a JSON answer with flags that cannot be declared is the plugin's bug, and reported.
  let text: string;
  try {
    text = exchange(plugin, request, cwd);
    JSON.parse(text);
  } catch (err) {
    if (isUserError(err) || err instanceof SyntaxError) return undefined;
    throw err;
  }
  const response = parseResponse(text, plugin.key);
  return response.error === undefined ? response : undefined;
}

/** A scaffold run of an external plugin. */
export interface ExternalRun {
  command: ScaffoldCommand;
  /** The command line's flags (pluginArgs of it). */
  args: string[];
  /** PROJECT as it stands (for init before it is written: what it will hold so far). */
  config: Record<string, unknown>;
}

/**
 * Runs one plugin of a chain: sends it the project's files and PROJECT, and writes back the files its answer
 * changes, all or nothing. An `error: true` answer, or any problem with the answer, throws a ScaffoldError naming
 * the plugin, and nothing is written.
 */
export function runExternalPlugin(root: string, plugin: ExternalPlugin, run: ExternalRun): UniverseWrite {
  const universe = readUniverse(root);
  const layout = run.config.layout;
  const request: PluginRequest = {
    apiVersion: PROTOCOL_API_VERSION,
    args: run.args,
    command: run.command,
    universe,
    pluginChain: Array.isArray(layout) ? layout.map(String) : typeof layout === 'string' ? [layout] : [],
    config: run.config,
  };
  const response = callPlugin(plugin, request, root);
  if (response.error !== undefined)
    throw new ScaffoldError(
      `plugin ${plugin.key} failed to scaffold \`${run.command}\`${response.error === '' ? ' (it gave no message)' : `:\n  ${response.error.split('\n').join('\n  ')}`}`,
    );
  return writeUniverse(root, plugin.key, universe, response.universe);
}
