// What a built-in plugin is, as types only: the data a plugin's spec.ts declares, the code its implementation exports,
// and the registry's pairing of the two. A leaf: the specs, the implementations and the registry all import it, and it
// imports none of them, so that nothing a plugin defines imports the registry back.

/** The subcommands that take --plugins. */
export type PluginSubcommand = 'init' | 'edit' | 'create api' | 'create webhook';

/** One flag a plugin adds to a subcommand, in commander's syntax. */
export interface PluginFlag {
  /** Commander's flag syntax, e.g. '--image <image>' or '--force'. */
  flags: string;
  description: string;
  /** The flag's name in the parsed options object (commander's camelCase of the long flag). */
  name: string;
}

/** What a plugin run wrote, and what it tells the user afterwards. */
export interface PluginResult {
  written: string[];
  notes: string[];
}

/** The resource a `create api --plugins=...` run was asked for: create api's own flags. */
export interface PluginAPIRequest {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  namespaced: boolean;
  force: boolean;
}

/** A plugin's code, loaded on demand. Each function validates first and writes nothing when it refuses. */
export interface PluginModule {
  /** `edit --plugins=<key>` (also run right after `init --plugins=<key>`). */
  edit?(root: string, flags: Record<string, unknown>): PluginResult;
  /** `create api --plugins=<key>`: scaffolds the API in place of the default create api. */
  createAPI?(root: string, request: PluginAPIRequest, flags: Record<string, unknown>): PluginResult;
}

/**
 * A plugin as plain data, what its spec.ts declares: enough for the CLI to offer it, declare its flags and check a
 * chain, without loading any of its code.
 */
export interface PluginSpecData {
  /** The key kubebuilder records in PROJECT's plugins section, e.g. helm.kubebuilder.io/v2-alpha. */
  key: string;
  description: string;
  /** The subcommands whose --plugins accepts it (init runs its edit right after scaffolding). */
  subcommands: PluginSubcommand[];
  /** Flags it adds, per subcommand. */
  flags: Partial<Record<PluginSubcommand, PluginFlag[]>>;
}

/** A built-in plugin as the registry gives it: its spec data, how to load its code, and how PROJECT replays it. */
export interface PluginSpec extends PluginSpecData {
  load(): Promise<PluginModule>;
  /**
   * What scaffolds again what this plugin recorded in PROJECT (`alpha generate` runs it in a fresh tree): typed calls of
   * this plugin's own edit or createAPI, or of `scaffold manifests`. A create api call takes the place of the plain
   * `create api` of the resource it names.
   */
  replay(recorded: unknown): PluginReplay[];
}

/**
 * One step of a plugin's replay, as data: alpha generate calls the plugin's function (or the manifests generator)
 * with it, and prints it as the command line a user would type.
 */
export type PluginReplay =
  /** This plugin's edit, with its flags (named as in `flags`). */
  | { command: 'edit'; flags: Record<string, unknown> }
  /** This plugin's createAPI for one resource, with its flags. */
  | { command: 'create api'; request: PluginAPIRequest; flags: Record<string, unknown> }
  /** `scaffold manifests` with its defaults, for a plugin that reads what it writes (as the helm chart does). */
  | { command: 'manifests' };
