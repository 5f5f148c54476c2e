import { ScaffoldError } from '../../errors.js';
import { sameGVK, type ProjectConfig, type ProjectResource } from '../../project/project.js';
import { pluginSpecs, replayCommandLine, shortKey, type PluginReplay, type PluginSpec } from '../plugins/registry.js';
import { controllerNames, hasController } from '../../project/controllers.js';
import type { CreateAPIOptions } from '../api.js';
import type { InitOptions } from '../init.js';
import type { CreateWebhookOptions } from '../webhook.js';

/**
 * One command of a re-scaffold, as the user would type it (`argv`, after `scaffold`), and how it is run: the core
 * commands call their scaffolder with these options; a plugin's step calls that plugin (or the manifests generator)
 * with its typed replay. Nothing is parsed again from `argv`, which is for the user to read.
 */
export type ReplayStep =
  | { argv: string[]; run: 'init'; options: InitOptions }
  | { argv: string[]; run: 'create api'; options: CreateAPIOptions }
  | { argv: string[]; run: 'create webhook'; options: CreateWebhookOptions }
  | { argv: string[]; run: 'plugin'; plugin: string; spec: PluginSpec; replay: PluginReplay };

/** What init needs that PROJECT does not record: how the new package.json depends on kubescaffold, and its version. */
export type InitExtras = Pick<InitOptions, 'dependencies' | 'cliVersion'>;

/** InitExtras, and the previous project's header file when init is to keep it (--license-file). */
export type InitInputs = InitExtras & Pick<InitOptions, 'licenseFile'>;

/**
 * The commands that scaffold again the project PROJECT describes, in kubebuilder's order: init with the project-wide
 * settings, create api for each resource (or the plugin command that replaces it), create webhook for each resource
 * with webhooks (spokes exist by then), then the plugins' other commands. Refuses, before anything is run, what it
 * could not reproduce: a plugin no spec knows, an external API without the path of its types.
 */
export function replaySteps(
  config: ProjectConfig,
  extras: InitInputs,
  specs: readonly PluginSpec[] = pluginSpecs,
): ReplayStep[] {
  const replays = pluginReplays(config, specs);
  const steps: ReplayStep[] = [initStep(config, extras)];
  const resources = config.resources ?? [];
  for (const [i, r] of resources.entries()) checkReproducible(config, r, i);
  const placed = new Set<PluginReplay>();
  const pluginStep = (p: SpecReplay): ReplayStep => ({
    argv: replayCommandLine(p.spec, p.replay),
    run: 'plugin',
    plugin: shortKey(p.spec.key),
    spec: p.spec,
    replay: p.replay,
  });
  for (const r of resources) {
    const replacing = replays.filter(
      (p) => p.replay.command === 'create api' && sameGVK(p.replay.request, { ...r, domain: undefined }),
    );
    if (replacing.length > 0) {
      for (const p of replacing) {
        steps.push(pluginStep(p));
        placed.add(p.replay);
      }
    } else if (r.api || hasController(r)) {
      steps.push(...createAPISteps(r));
    }
  }
  // A plugin's resource that PROJECT's resources do not list still gets created before the webhooks.
  for (const p of replays.filter((p) => p.replay.command === 'create api' && !placed.has(p.replay)))
    steps.push(pluginStep(p));
  for (const r of resources) if (r.webhooks) steps.push(createWebhookStep(r));
  for (const p of replays.filter((p) => p.replay.command !== 'create api')) steps.push(pluginStep(p));
  return steps;
}

/** A plugin's replay step with the plugin it belongs to. */
interface SpecReplay {
  spec: PluginSpec;
  replay: PluginReplay;
}

/** The replay steps of every plugin PROJECT records, in the registry's order; refuses a key no spec knows. */
function pluginReplays(config: ProjectConfig, specs: readonly PluginSpec[]): SpecReplay[] {
  const recorded = config.plugins ?? {};
  const unknown = Object.keys(recorded).filter((key) => !specs.some((s) => s.key === key));
  if (unknown.length > 0) {
    const known =
      specs.length > 0
        ? `the plugins this version knows are ${specs.map((s) => s.key).join(', ')}`
        : 'this version of kubescaffold has no optional plugins';
    throw new ScaffoldError(
      `PROJECT records plugin${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which kubescaffold cannot scaffold again (${known}); ` +
        "use a kubescaffold version that has it, or remove its entry from PROJECT's plugins section to regenerate without it",
    );
  }
  return specs
    .filter((s) => Object.hasOwn(recorded, s.key))
    .flatMap((spec) => spec.replay(recorded[spec.key]).map((replay) => ({ spec, replay })));
}

function checkReproducible(config: ProjectConfig, r: ProjectResource, index: number): void {
  const name = `PROJECT's resources[${index}] (${r.group ? `${r.group}/` : ''}${r.version} ${r.kind})`;
  if (r.external) {
    if (r.api || !r.path)
      throw new ScaffoldError(
        `${name} is an external API (external: true) ${r.api ? 'with an api section' : 'without a path'}, which create api cannot scaffold again; give it the path of its types (and no api section)`,
      );
    return;
  }
  if (!r.core && r.domain !== undefined && r.domain !== config.domain) {
    throw new ScaffoldError(
      `${name} has domain "${r.domain}", not the project's "${config.domain}"; kubescaffold creates APIs in the project's domain only`,
    );
  }
}

function initStep(config: ProjectConfig, extras: InitInputs): ReplayStep {
  const options: InitOptions = {
    domain: config.domain,
    repo: config.repo,
    owner: config.owner,
    // A PROJECT without a license was written by an init that defaulted to apache2.
    license: config.license ?? 'apache2',
    projectName: config.projectName,
    multigroup: Boolean(config.multigroup),
    namespaced: Boolean(config.namespaced),
    ...extras,
  };
  const argv = ['init', '--domain', options.domain];
  if (options.repo !== undefined) argv.push('--repo', options.repo);
  argv.push('--project-name', config.projectName);
  if (options.licenseFile !== undefined) argv.push('--license-file', options.licenseFile);
  else argv.push('--license', options.license);
  if (options.owner !== undefined) argv.push('--owner', options.owner);
  if (options.multigroup) argv.push('--multigroup');
  if (options.namespaced) argv.push('--namespaced');
  argv.push('--skip-install');
  return { argv, run: 'init', options };
}

/**
 * The create api commands of one resource: one for its types and its first controller, then one per further named
 * controller (--resource=false --controller-name), in PROJECT's order.
 */
function createAPISteps(r: ProjectResource): ReplayStep[] {
  const named = r.controllers && r.controllers.length > 0 ? controllerNames(r) : [];
  if (named.length === 0) return [createAPIStep(r, r.api !== undefined, Boolean(r.controller))];
  const [first, ...rest] = named;
  return [
    createAPIStep(r, r.api !== undefined, true, first),
    ...rest.map((name) => createAPIStep(r, false, true, name)),
  ];
}

function createAPIStep(
  r: ProjectResource,
  resource: boolean,
  controller: boolean,
  controllerName?: string,
): ReplayStep {
  const options: CreateAPIOptions = {
    group: r.group,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    resource,
    controller,
    controllerName,
    // PROJECT leaves out `namespaced: false`, so an API without it is cluster-scoped.
    namespaced: r.api === undefined || Boolean(r.api.namespaced),
    force: false,
    ...(r.external ? { externalApiPath: r.path, externalApiDomain: r.domain } : {}),
    ...(r.api?.ssa ? { ssa: true } : {}),
  };
  const argv = ['create', 'api', '--group', r.group, '--version', r.version, '--kind', r.kind];
  if (r.plural !== undefined) argv.push('--plural', r.plural);
  argv.push(`--resource=${options.resource}`, `--controller=${options.controller}`);
  if (controllerName !== undefined) argv.push('--controller-name', controllerName);
  if (options.resource) argv.push(`--namespaced=${options.namespaced}`);
  if (options.ssa) argv.push('--ssa');
  if (r.external) {
    argv.push('--external-api-path', r.path!);
    if (r.domain) argv.push('--external-api-domain', r.domain);
  }
  return { argv, run: 'create api', options };
}

function createWebhookStep(r: ProjectResource): ReplayStep {
  const w = r.webhooks ?? { webhookVersion: 'v1' };
  const options: CreateWebhookOptions = {
    group: r.group,
    version: r.version,
    kind: r.kind,
    defaulting: Boolean(w.defaulting),
    validation: Boolean(w.validation),
    conversion: Boolean(w.conversion),
    spokes: w.spoke ?? [],
    force: false,
    defaultingPath: w.defaultingPath,
    validationPath: w.validationPath,
  };
  const argv = ['create', 'webhook', '--group', r.group, '--version', r.version, '--kind', r.kind];
  if (options.defaulting) argv.push('--defaulting');
  if (options.validation) argv.push('--programmatic-validation');
  if (options.conversion) argv.push('--conversion');
  if (options.spokes.length > 0) argv.push('--spoke', options.spokes.join(','));
  if (w.defaultingPath !== undefined) argv.push('--defaulting-path', w.defaultingPath);
  if (w.validationPath !== undefined) argv.push('--validation-path', w.validationPath);
  return { argv, run: 'create webhook', options };
}

/** A step's command line as the user would type it, quoting arguments the shell would split. */
export function commandLine(argv: readonly string[]): string {
  return ['scaffold', ...argv]
    .map((a) => (/^[\w./:=,@+-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`))
    .join(' ');
}
