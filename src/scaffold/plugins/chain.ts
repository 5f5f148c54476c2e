import { ScaffoldError } from '../../errors.js';
import { discoverExternalPlugins, type Discovery, type ExternalPlugin } from './external/discover.js';
import { LAYOUT_PLUGIN_KEY, pluginSpecs, shortKey, type PluginSpec, type PluginSubcommand } from './registry.js';

// A plugin chain, as kubebuilder runs one: the plugins a subcommand runs, in order. It comes from --plugins when that
// is given, else from PROJECT's layout (init: the layout alone). kubescaffold's layout plugin scaffolds the project's
// own code; kubebuilder's optional plugins are built in; any other key names an external plugin, a program found as
// kubebuilder finds it.

/** One plugin of a chain. */
export type ChainStep =
  /** kubescaffold's own scaffold for the subcommand (typescript.kubescaffold.io/v1, kubebuilder's go/v4). */
  | { kind: 'layout' }
  /** One of kubebuilder's optional plugins, built in. */
  | { kind: 'builtin'; spec: PluginSpec }
  /** A program that speaks kubebuilder's external plugin protocol. */
  | { kind: 'external'; plugin: ExternalPlugin };

/** Where a chain's keys come from, for messages: the --plugins flag, or PROJECT's layout. */
export type ChainSource = '--plugins' | "PROJECT's layout";

export interface ChainOptions {
  source?: ChainSource;
  /** The built-in optional plugins (default: all of them). */
  specs?: readonly PluginSpec[];
  /** Finds the external plugins, called only when a key is not built in (default: discoverExternalPlugins()). */
  discover?: () => Discovery;
}

/**
 * The chain `keys` name for `subcommand`, in their order, each key resolved as kubebuilder resolves it: a full key
 * (grafana.kubebuilder.io/v1-alpha), a short one (grafana/v1-alpha), or a name alone when one version has it.
 *
 * - init always runs the layout: when the keys leave it out it runs first, and the built-in plugins (which edit an
 *   initialized project) must come after it.
 * - From --plugins, a built-in plugin that does not implement the subcommand is refused; from PROJECT's layout it is
 *   passed over, as kubebuilder passes over a layout plugin without the subcommand.
 * - create api runs one plugin that scaffolds the API itself (the layout or deploy-image), external ones aside.
 *
 * Throws a ScaffoldError naming the key and what to do for an unknown, ambiguous or unusable plugin.
 */
export function resolveChain(
  keys: string | readonly string[],
  subcommand: PluginSubcommand,
  options: ChainOptions = {},
): ChainStep[] {
  const source = options.source ?? '--plugins';
  const specs = options.specs ?? pluginSpecs;
  let discovery: Discovery | undefined;
  const discover = (): Discovery => (discovery ??= (options.discover ?? discoverExternalPlugins)());
  const list = (typeof keys === 'string' ? keys.split(',') : [...keys]).map((k) => k.trim()).filter((k) => k !== '');

  const steps: ChainStep[] = [];
  const identity = (step: ChainStep): string =>
    step.kind === 'layout' ? LAYOUT_PLUGIN_KEY : step.kind === 'builtin' ? step.spec.key : step.plugin.key;
  for (const key of list) {
    const step = resolveKey(key, subcommand, source, specs, discover);
    if (step !== undefined && !steps.some((s) => identity(s) === identity(step))) steps.push(step);
  }

  if (subcommand === 'init') {
    const layoutAt = steps.findIndex((s) => s.kind === 'layout');
    if (layoutAt === -1) steps.unshift({ kind: 'layout' });
    const early = steps.slice(0, Math.max(layoutAt, 0)).find((s) => s.kind === 'builtin');
    if (early?.kind === 'builtin')
      throw new ScaffoldError(
        `${source} lists ${shortKey(early.spec.key)} before ${shortKey(LAYOUT_PLUGIN_KEY)}, but it edits an initialized project; list it after ${shortKey(LAYOUT_PLUGIN_KEY)}`,
      );
  }
  if (subcommand === 'create api') {
    const apiScaffolders = steps.filter((s) => s.kind === 'layout' || s.kind === 'builtin');
    if (apiScaffolders.length > 1)
      throw new ScaffoldError(
        `${source} names ${apiScaffolders.length} plugins that scaffold the API themselves (${apiScaffolders.map((s) => (s.kind === 'builtin' ? shortKey(s.spec.key) : shortKey(LAYOUT_PLUGIN_KEY))).join(', ')}); give one of them`,
      );
  }
  return steps;
}

/** The step a key names, or undefined for a built-in plugin that PROJECT's layout lists but that lacks the subcommand. */
function resolveKey(
  key: string,
  subcommand: PluginSubcommand,
  source: ChainSource,
  specs: readonly PluginSpec[],
  discover: () => Discovery,
): ChainStep | undefined {
  if (keyMatches(LAYOUT_PLUGIN_KEY, key)) return { kind: 'layout' };
  const builtins = specs.filter((s) => keyMatches(s.key, key));
  if (builtins.length > 1)
    throw new ScaffoldError(
      `plugin "${key}" in ${source} is ambiguous (${builtins.map((s) => s.key).join(', ')}); give its version, e.g. ${shortKey(builtins[0]!.key)}`,
    );
  const [spec] = builtins;
  if (spec !== undefined) {
    if (spec.subcommands.includes(subcommand)) return { kind: 'builtin', spec };
    if (source === "PROJECT's layout") return undefined;
    throw new ScaffoldError(
      `plugin ${shortKey(spec.key)} does not implement \`${subcommand}\` (it implements ${spec.subcommands.map((s) => `\`${s}\``).join(', ')}); ${hint(subcommand, specs)}`,
    );
  }
  if (/^go(\.kubebuilder\.io)?\/v\d/.test(key))
    throw new ScaffoldError(
      `unknown plugin "${key}" in ${source}; this is a TypeScript project, whose layout is ${LAYOUT_PLUGIN_KEY}; ${hint(subcommand, specs)}`,
    );

  const discovery = discover();
  const problem = [...discovery.problems].find(([k]) => keyMatches(k, key));
  const found = discovery.plugins.filter((p) => keyMatches(p.key, key));
  if (found.length > 1)
    throw new ScaffoldError(
      `plugin "${key}" in ${source} is ambiguous (external plugins ${found.map((p) => p.key).join(', ')}); give its version, e.g. ${found[0]!.key}`,
    );
  const [plugin] = found;
  if (plugin !== undefined) return { kind: 'external', plugin };
  if (problem !== undefined) throw new ScaffoldError(`plugin "${key}" in ${source} cannot be used: ${problem[1]}`);
  const installed = discovery.plugins.map((p) => p.key);
  throw new ScaffoldError(
    `unknown plugin "${key}" in ${source}; ${hint(subcommand, specs)}; an external plugin is an executable <name>/<version>/<name> in ${discovery.root} (set EXTERNAL_PLUGINS_PATH to look elsewhere)${installed.length > 0 ? `, which holds ${installed.join(', ')}` : ', which holds none'}`,
  );
}

/** The built-in plugins a subcommand takes, for messages. */
function hint(subcommand: PluginSubcommand, specs: readonly PluginSpec[]): string {
  const keys = [LAYOUT_PLUGIN_KEY, ...specs.filter((s) => s.subcommands.includes(subcommand)).map((s) => s.key)];
  return `built-in plugins for \`${subcommand}\`: ${keys.map(shortKey).join(', ')}`;
}

/**
 * Whether a user-given key names the plugin with this full key: the same name, or the name's first dotted segments
 * (grafana for grafana.kubebuilder.io), and the same version when one is given.
 */
export function keyMatches(fullKey: string, given: string): boolean {
  const [fullName = '', fullVersion] = fullKey.split('/');
  const [name, version] = given.split('/');
  if (version !== undefined && version !== fullVersion) return false;
  return name === fullName || fullName.startsWith(`${name}.`);
}

/** The built-in optional plugins of a chain, in its order. */
export function builtinSteps(chain: readonly ChainStep[]): PluginSpec[] {
  return chain.flatMap((s) => (s.kind === 'builtin' ? [s.spec] : []));
}

/** The keys PROJECT's layout records for a chain run by init: the layout's and the external plugins', in order. */
export function layoutKeys(chain: readonly ChainStep[]): string[] {
  return chain.flatMap((s) =>
    s.kind === 'layout' ? [LAYOUT_PLUGIN_KEY] : s.kind === 'external' ? [s.plugin.key] : [],
  );
}
