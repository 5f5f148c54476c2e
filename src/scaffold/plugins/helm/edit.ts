import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { isUserError, ScaffoldError } from '../../../errors.js';
import { resolveInProject } from '../../../files/confine.js';
import { readUtf8File } from '../../../files/utf8.js';
import { kustomizeBuildYaml } from '../../../kustomize/index.js';
import { pluginConfig, stringifyProject, withPluginConfig, type ProjectConfig } from '../../../project/project.js';
import { loadProject } from '../../../project/load.js';
import { Plan, type IfExists } from '../../plan.js';
import { render } from '../../render.js';
import type { PluginResult } from '../plugin.js';
import { chartTemplates } from './chart.js';
import { escapeRegExp } from './templater.js';
import { managerValues } from './manager.js';
import { parseInstaller, type Installer } from './manifests.js';
import {
  DEFAULT_MANIFESTS,
  DEFAULT_OUTPUT_DIR,
  HELM_PLUGIN_KEY,
  HELM_V1_PLUGIN_KEY,
  type HelmPluginConfig,
} from './spec.js';
import { valuesYaml, withMissingSections, type ChartFeatures } from './values.js';

export interface HelmEditFlags {
  force: boolean;
  manifests: string;
  outputDir: string;
}

/** The flags as commander gives them (absent ones undefined), with kubebuilder's defaults. */
export function helmFlags(flags: Record<string, unknown>): HelmEditFlags {
  const path = (name: string, flag: string, fallback: string): string => {
    const value = flags[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value.trim() === '')
      throw new ScaffoldError(`${flag} needs a path relative to the project root, e.g. ${fallback}`);
    const normalized = normalize(value).replace(/\/+$/, '');
    if (isAbsolute(value) || normalized === '..' || normalized.startsWith('../')) {
      throw new ScaffoldError(
        `${flag} ${value} is outside the project; give a path relative to the project root, e.g. ${fallback}`,
      );
    }
    return normalized;
  };
  return {
    force: flags.force === true,
    manifests: path('manifests', '--manifests', DEFAULT_MANIFESTS),
    outputDir: path('outputDir', '--output-dir', DEFAULT_OUTPUT_DIR),
  };
}

/**
 * `edit --plugins=helm/v2-alpha`: a Helm chart in <output-dir>/chart from the installer. With the default --manifests,
 * the installer is built first from config/default and written to dist/install.yaml, as kubebuilder runs
 * `make build-installer`. Chart.yaml is never overwritten; values.yaml, _helpers.tpl, NOTES.txt, .helmignore, the
 * test-chart workflow and the fallback network policies are kept unless --force; every other template follows the
 * installer.
 */
export function helmEdit(root: string, rawFlags: Record<string, unknown>): PluginResult {
  const flags = helmFlags(rawFlags);
  const config = loadProject(root);
  const plan = new Plan(root);
  const installer = parseInstaller(readInstaller(root, flags, plan), flags.manifests, config.projectName);
  const chartDir = `${flags.outputDir}/chart`;
  const keep: IfExists = flags.force ? 'overwrite' : 'skip';
  const manager = managerValues(installer.manager);
  const features = chartFeatures(installer, manager.metricsPort, manager.webhookPort);
  const helpers = config.projectName;
  const context = {
    helpers,
    prefix: installer.prefix,
    namespace: installer.namespace,
    metricsPort: features.metricsPort,
    webhookPort: features.webhooks ? features.webhookPort : undefined,
    names: new Set(
      installer.objects.map((o) => o.metadata.name ?? '').filter((n) => n.startsWith(`${installer.prefix}-`)),
    ),
  };

  plan.template(
    `${chartDir}/Chart.yaml`,
    render('plugins/helm/Chart.yaml', {
      chartName: config.projectName,
      projectName: config.projectName,
      appVersion: manager.image.tag ?? '0.1.0',
    }),
    'skip',
  );
  const freshValues = valuesYaml(manager, features);
  plan.template(`${chartDir}/values.yaml`, freshValues, keep);
  const missing = missingValues(plan.current(`${chartDir}/values.yaml`) ?? '', features);
  plan.edit(`${chartDir}/values.yaml`, (kept) => withMissingSections(kept, freshValues, missing));
  plan.template(`${chartDir}/.helmignore`, render('plugins/helm/helmignore', { outputDir: flags.outputDir }), keep);
  plan.template(`${chartDir}/templates/_helpers.tpl`, render('plugins/helm/_helpers.tpl', { name: helpers }), keep);
  plan.template(`${chartDir}/templates/NOTES.txt`, render('plugins/helm/NOTES.txt', {}), keep);
  plan.template(
    '.github/workflows/test-chart.yml',
    render('plugins/helm/test-chart.yml', {
      projectName: config.projectName,
      outputDir: flags.outputDir,
      webhooks: features.webhooks,
    }),
    keep,
  );
  if (features.webhooks) plan.edit('.github/workflows/test-chart.yml', enableCertManagerStep, { ifMissing: 'ignore' });

  if (!installer.objects.some((o) => o.kind === 'ServiceMonitor')) {
    const service =
      [...context.names].find((n) => n.endsWith('metrics-service')) ??
      `${installer.prefix}-controller-manager-metrics-service`;
    const serviceSuffix = service.slice(installer.prefix.length + 1);
    plan.template(
      `${chartDir}/templates/prometheus/controller-manager-metrics-monitor.yaml`,
      render('plugins/helm/servicemonitor.yaml', { name: helpers, serviceSuffix }),
      'overwrite',
    );
  }
  if (!features.networkPolicy) {
    plan.template(
      `${chartDir}/templates/network-policy/allow-metrics-traffic.yaml`,
      render('plugins/helm/allow-metrics-traffic.yaml', { name: helpers }),
      keep,
    );
    if (features.webhooks)
      plan.template(
        `${chartDir}/templates/network-policy/allow-webhook-traffic.yaml`,
        render('plugins/helm/allow-webhook-traffic.yaml', { name: helpers }),
        keep,
      );
  }
  for (const [path, content] of chartTemplates(installer, context))
    plan.template(`${chartDir}/templates/${path}`, content, 'overwrite');

  const firstRun = pluginConfig(config, HELM_PLUGIN_KEY) === undefined;
  if (firstRun && existsSync(join(root, 'Makefile'))) {
    const targets = render('plugins/helm/Makefile-helm', {
      namespace: installer.namespace,
      release: config.projectName,
      outputDir: flags.outputDir,
    });
    plan.edit('Makefile', (content) =>
      content.includes('##@ Helm Deployment') ? content : `${content.replace(/\n*$/, '\n')}${targets}`,
    );
  }
  plan.edit('.gitignore', (content) => unignoreChart(content, flags.outputDir), { ifMissing: 'ignore' });
  plan.template('PROJECT', stringifyProject(recordPlugin(config, flags)), 'overwrite');

  const written = plan.commit();
  const notes = [
    `Chart in ${chartDir}: check it with \`helm lint ${chartDir}\`, install it with \`make helm-deploy IMG=<image>\`.`,
  ];
  if (flags.manifests === DEFAULT_MANIFESTS)
    notes.push(
      `${DEFAULT_MANIFESTS} was built from config/default as it stands: after changing +kubebuilder markers, run \`scaffold manifests\` and this command again.`,
    );
  if (!flags.force)
    notes.push(
      `${chartDir}/Chart.yaml, values.yaml, _helpers.tpl, NOTES.txt, .helmignore and .github/workflows/test-chart.yml are kept when they exist; --force regenerates all but Chart.yaml.`,
    );
  if (missing.length > 0) {
    notes.push(
      `${chartDir}/values.yaml was kept; the templates now use ${missing.map((key) => `\`${key}\``).join(', ')}, so ${missing.length === 1 ? 'that section was' : 'those sections were'} added at its end with ${missing.length === 1 ? 'its' : 'their'} defaults.`,
    );
  }
  if (installer.customResources.length > 0) {
    notes.push(
      `Left out of the chart: ${installer.customResources.map((o) => `${o.kind} ${o.metadata.name ?? ''}`).join(', ')} (instances of the project's CRDs are created after installing the chart).`,
    );
  }
  return { written, notes };
}

/** The installer's text: built from config/default for the default --manifests (and written there), else read. */
function readInstaller(root: string, flags: HelmEditFlags, plan: Plan): string {
  if (flags.manifests === DEFAULT_MANIFESTS) {
    if (!existsSync(join(root, 'config', 'default'))) {
      throw new ScaffoldError(
        `config/default does not exist in ${root}, so ${DEFAULT_MANIFESTS} cannot be built; restore it, or pass --manifests <file> with your installer`,
      );
    }
    let yaml: string;
    try {
      yaml = kustomizeBuildYaml(join(root, 'config', 'default'));
    } catch (err) {
      if (!isUserError(err)) throw err;
      throw new ScaffoldError(
        `building ${DEFAULT_MANIFESTS} from config/default failed: ${err.message}\n(run \`scaffold manifests\` first when CRDs, RBAC or webhook manifests are missing)`,
      );
    }
    plan.template(DEFAULT_MANIFESTS, yaml, 'overwrite');
    return yaml;
  }
  const path = join(root, flags.manifests);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new ScaffoldError(
      `--manifests ${flags.manifests} does not exist; write it with \`scaffold build-installer -o ${flags.manifests}\`, or leave --manifests out to build ${DEFAULT_MANIFESTS}`,
    );
  }
  return readUtf8File(resolveInProject(root, flags.manifests, 'read'), flags.manifests);
}

function chartFeatures(
  installer: Installer,
  metricsPort: number | undefined,
  webhookPort: number | undefined,
): ChartFeatures {
  const has = (kind: string): boolean => installer.objects.some((o) => o.kind === kind);
  const webhookService = installer.objects.find(
    (o) => o.kind === 'Service' && (o.metadata.name ?? '').endsWith('webhook-service'),
  );
  const servicePort = (webhookService?.spec as { ports?: Array<{ targetPort?: unknown }> } | undefined)?.ports?.[0]
    ?.targetPort;
  return {
    crds: has('CustomResourceDefinition'),
    metrics: installer.objects.some((o) => o.kind === 'Service' && (o.metadata.name ?? '').endsWith('metrics-service')),
    webhooks: has('ValidatingWebhookConfiguration') || has('MutatingWebhookConfiguration'),
    certManager: installer.objects.some((o) => o.apiVersion === 'cert-manager.io/v1'),
    networkPolicy: has('NetworkPolicy'),
    metricsPort: metricsPort ?? 8443,
    webhookPort: webhookPort ?? (typeof servicePort === 'number' ? servicePort : 9443),
  };
}

/** The top-level sections the templates use that a kept values.yaml lacks (the installer gained webhooks, say). */
function missingValues(values: string, f: ChartFeatures): string[] {
  const needed = [
    'manager',
    'rbac',
    'serviceAccount',
    'metrics',
    'certManager',
    'prometheus',
    'networkPolicy',
    ...(f.crds ? ['crd'] : []),
    ...(f.webhooks ? ['webhook'] : []),
  ];
  return needed.filter((key) => !new RegExp(`^${key}:`, 'm').test(values));
}

/** PROJECT with this run's settings, and without the v1-alpha plugin it replaces (as kubebuilder drops it). */
function recordPlugin(config: ProjectConfig, flags: HelmEditFlags): ProjectConfig {
  const recorded: HelmPluginConfig = { manifests: flags.manifests, output: flags.outputDir };
  const next = withPluginConfig(config, HELM_PLUGIN_KEY, recorded);
  if (next.plugins && HELM_V1_PLUGIN_KEY in next.plugins) {
    const { [HELM_V1_PLUGIN_KEY]: _dropped, ...rest } = next.plugins;
    return { ...next, plugins: rest };
  }
  return next;
}

/**
 * The project's .gitignore ignores dist/ (the compiled manager), which would leave the chart out of git and so out of
 * the test-chart workflow's checkout: dist/ becomes dist/* with the chart let back in.
 */
function unignoreChart(content: string, outputDir: string): string {
  if (outputDir.includes('/')) return content;
  const ignored = new RegExp(`^/?${escapeRegExp(outputDir)}/$`, 'm');
  if (!ignored.test(content)) return content;
  return content.replace(ignored, `${outputDir}/*\n!${outputDir}/chart/`);
}

const commentedCertManagerStep = /# TODO: Uncomment if cert-manager is enabled\n((?:#.*\n)*?#\s+--timeout 300s\n)/;

/** With webhooks, the workflow installs cert-manager: the commented step of a kept workflow is turned on. */
function enableCertManagerStep(content: string): string {
  return content.replace(commentedCertManagerStep, (_all, step: string) => step.replace(/^#/gm, ''));
}
