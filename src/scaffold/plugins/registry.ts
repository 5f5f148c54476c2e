import { ScaffoldError } from '../../errors.js';
import { autoUpdateSpec } from './autoupdate/spec.js';
import { deployImageSpec } from './deploy-image/spec.js';
import { grafanaSpec } from './grafana/spec.js';
import { helmPluginSpec } from './helm/spec.js';
import { multiClusterSpec } from './multicluster/spec.js';

// kubebuilder's optional plugins, selected with --plugins on init, edit and create api. This module stays light (no
// templates, no compiler): the CLI reads it to declare each plugin's flags, and loads a plugin's code only when it runs.

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

/** A plugin as the CLI sees it before loading it. */
export interface PluginSpec {
  /** The key kubebuilder records in PROJECT's plugins section, e.g. helm.kubebuilder.io/v2-alpha. */
  key: string;
  description: string;
  /** The subcommands whose --plugins accepts it (init runs its edit right after scaffolding). */
  subcommands: PluginSubcommand[];
  /** Flags it adds, per subcommand. */
  flags: Partial<Record<PluginSubcommand, PluginFlag[]>>;
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

/**
 * The command line a user would type for a replay step (without `scaffold`): the plugin selected by its short key, and
 * each flag in the spelling the CLI declares for it.
 */
export function replayCommandLine(spec: PluginSpec, replay: PluginReplay): string[] {
  if (replay.command === 'manifests') return ['manifests'];
  const plugins = `--plugins=${shortKey(spec.key)}`;
  const flagArgs = (spec.flags[replay.command] ?? []).flatMap((flag) => {
    const value = replay.flags[flag.name];
    const long = flag.flags.split(' ')[0] ?? flag.flags;
    if (value === undefined || value === false) return [];
    // --flag=value, so that a value starting with '-' (a container command) still reads as the flag's value.
    return value === true ? [long] : [`${long}=${String(value)}`];
  });
  if (replay.command === 'edit') return ['edit', plugins, ...flagArgs];
  const { group, version, kind, plural, namespaced, force } = replay.request;
  return [
    'create',
    'api',
    '--group',
    group,
    '--version',
    version,
    '--kind',
    kind,
    ...(plural !== undefined ? ['--plural', plural] : []),
    ...(namespaced ? [] : ['--namespaced=false']),
    ...(force ? ['--force'] : []),
    plugins,
    ...flagArgs,
  ];
}

/** The layout plugin of every project this CLI scaffolds; `init --plugins` accepts it (kubebuilder's go/v4). */
export const LAYOUT_PLUGIN_KEY = 'typescript.kubescaffold.io/v1';

/** Every optional plugin, in the order their runs are applied when several are given. */
export const pluginSpecs: readonly PluginSpec[] = [
  deployImageSpec,
  grafanaSpec,
  helmPluginSpec,
  autoUpdateSpec,
  multiClusterSpec,
];

/** The short form kubebuilder prints and accepts: the name's first segment and the version, e.g. helm/v2-alpha. */
export function shortKey(key: string): string {
  const [name = '', version = ''] = key.split('/');
  return `${name.split('.')[0] ?? name}/${version}`;
}

/**
 * The plugin flags given on the command line (those whose value is not undefined), refusing a flag of a plugin that
 * --plugins did not select: it would otherwise be ignored silently. Flags in `exempt` are taken by another plugin of
 * the chain (an external one) and are not refused.
 */
export function pluginFlagValues(
  options: Record<string, unknown>,
  subcommand: PluginSubcommand,
  selected: readonly PluginSpec[],
  specs: readonly PluginSpec[] = pluginSpecs,
  exempt: ReadonlySet<string> = new Set(),
): Map<PluginSpec, Record<string, unknown>> {
  const values = new Map<PluginSpec, Record<string, unknown>>();
  for (const spec of selected) values.set(spec, {});
  for (const spec of specs) {
    for (const flag of spec.flags[subcommand] ?? []) {
      const value = options[flag.name];
      if (value === undefined) continue;
      const own = values.get(spec);
      if (own) {
        own[flag.name] = value;
        continue;
      }
      // Several plugins may share a flag name (e.g. --force); it is refused only when no selected plugin takes it.
      const takenBySelected =
        exempt.has(flag.name) || selected.some((s) => (s.flags[subcommand] ?? []).some((f) => f.name === flag.name));
      if (!takenBySelected)
        throw new ScaffoldError(
          `${flag.flags.split(' ')[0]} is a flag of the ${shortKey(spec.key)} plugin; add --plugins=${shortKey(spec.key)}`,
        );
    }
  }
  return values;
}
