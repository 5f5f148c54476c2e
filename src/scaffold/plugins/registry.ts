import { ScaffoldError } from '../../errors.js';
import { autoUpdateSpec } from './autoupdate/spec.js';
import { deployImageSpec } from './deploy-image/spec.js';
import { replayDeployImage } from './deploy-image/replay.js';
import { grafanaSpec } from './grafana/spec.js';
import { helmPluginSpec } from './helm/spec.js';
import { replayHelm } from './helm/replay.js';
import { multiClusterSpec } from './multicluster/spec.js';
import type { PluginReplay, PluginSpec, PluginSpecData, PluginSubcommand } from './plugin.js';

// kubebuilder's optional plugins, selected with --plugins on init, edit and create api. Imports run one way: the
// registry reads each plugin's spec data (spec.ts) and its replay, and loads its code (import() below) only when it
// runs, so this module stays light (no templates, no compiler) for the CLI, which reads it to declare the flags. A
// plugin's own modules import its spec and plugin.ts's types, never the registry.

export type {
  PluginAPIRequest,
  PluginFlag,
  PluginModule,
  PluginReplay,
  PluginResult,
  PluginSpec,
  PluginSpecData,
  PluginSubcommand,
} from './plugin.js';

/**
 * The command line a user would type for a replay step (without `scaffold`): the plugin selected by its short key, and
 * each flag in the spelling the CLI declares for it.
 */
export function replayCommandLine(spec: PluginSpecData, replay: PluginReplay): string[] {
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

/** The replay of a plugin whose PROJECT entry records no settings: its edit, with no flags. */
const replayEdit = (): PluginReplay[] => [{ command: 'edit', flags: {} }];

/** Every optional plugin, in the order their runs are applied when several are given: its spec data, code and replay. */
export const pluginSpecs: readonly PluginSpec[] = [
  { ...deployImageSpec, load: () => import('./deploy-image/index.js'), replay: replayDeployImage },
  { ...grafanaSpec, load: async () => (await import('./grafana/index.js')).default, replay: replayEdit },
  {
    ...helmPluginSpec,
    load: async () => ({ edit: (await import('./helm/edit.js')).helmEdit }),
    replay: replayHelm,
  },
  { ...autoUpdateSpec, load: async () => (await import('./autoupdate/index.js')).default, replay: replayEdit },
  { ...multiClusterSpec, load: async () => (await import('./multicluster/index.js')).default, replay: replayEdit },
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
