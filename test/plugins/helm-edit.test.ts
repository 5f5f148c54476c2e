// `edit --plugins=helm/v2-alpha` on a scaffolded project: what it writes and records, what it keeps without --force,
// and what it refuses (changing nothing).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { helmEdit } from '../../src/scaffold/plugins/helm/edit.js';
import { helmPluginSpec, HELM_PLUGIN_KEY } from '../../src/scaffold/plugins/helm/spec.js';
import { pluginSpecs, replayCommandLine, type PluginSpec } from '../../src/scaffold/plugins/registry.js';
import { snapshotTree } from '../scaffold/helpers.js';
import { createAPI, createWebhook, newProject, writeCRD, type Project } from '../kustomize/trees.js';

/** The plugin as the registry gives it: its spec data, code and replay. */
const registered = (): PluginSpec => {
  const [spec, ...others] = pluginSpecs.filter((s) => s.key === HELM_PLUGIN_KEY);
  expect(others).toEqual([]);
  return spec!;
};

let project: Project;
const read = (rel: string): string => readFileSync(join(project.root, rel), 'utf8');
const write = (rel: string, text: string): void => writeFileSync(join(project.root, rel), text);
const projectFile = (): { plugins?: Record<string, unknown> } =>
  parse(read('PROJECT')) as { plugins?: Record<string, unknown> };

beforeEach(() => {
  project = newProject('proj');
  createAPI(project, { group: 'batch', version: 'v1', kind: 'CronJob' });
  writeCRD(project, { group: 'batch.example.com', kind: 'CronJob', plural: 'cronjobs', versions: ['v1'] });
});
afterEach(() => project.cleanup());

describe('edit --plugins=helm/v2-alpha', () => {
  it("is registered under kubebuilder's key with its edit flags", () => {
    expect(registered()).toMatchObject(helmPluginSpec);
    expect(helmPluginSpec.key).toBe('helm.kubebuilder.io/v2-alpha');
    expect(helmPluginSpec.flags.edit?.map((f) => f.flags)).toEqual([
      '--force',
      '--manifests <file>',
      '--output-dir <dir>',
    ]);
  });

  it('builds dist/install.yaml, writes the chart in dist/chart and records the plugin in PROJECT as kubebuilder does', () => {
    const { written } = helmEdit(project.root, {});
    expect(written).toEqual(
      expect.arrayContaining([
        'dist/install.yaml',
        'dist/chart/Chart.yaml',
        'dist/chart/values.yaml',
        'dist/chart/.helmignore',
        'dist/chart/templates/_helpers.tpl',
        'dist/chart/templates/NOTES.txt',
        'dist/chart/templates/manager/manager.yaml',
        'dist/chart/templates/crd/cronjobs.batch.example.com.yaml',
        'dist/chart/templates/rbac/manager-role.yaml',
        'dist/chart/templates/metrics/controller-manager-metrics-service.yaml',
        'dist/chart/templates/prometheus/controller-manager-metrics-monitor.yaml',
        'dist/chart/templates/network-policy/allow-metrics-traffic.yaml',
        '.github/workflows/test-chart.yml',
        'Makefile',
        'PROJECT',
        '.gitignore',
      ]),
    );
    expect(read('dist/install.yaml')).toContain('kind: CustomResourceDefinition');
    expect(projectFile().plugins).toEqual({ [HELM_PLUGIN_KEY]: { manifests: 'dist/install.yaml', output: 'dist' } });
    expect(read('dist/chart/Chart.yaml')).toMatch(/^name: proj$/m);
    expect(read('dist/chart/templates/crd/cronjobs.batch.example.com.yaml')).toMatch(
      /^\{\{- if \.Values\.crd\.enabled \}\}/,
    );
    // Without webhooks there is no webhook section, webhook network policy or cert-manager step.
    expect(read('dist/chart/values.yaml')).not.toMatch(/^webhook:/m);
    expect(written).not.toContain('dist/chart/templates/network-policy/allow-webhook-traffic.yaml');
    expect(read('.github/workflows/test-chart.yml')).toContain('#      - name: Install cert-manager via Helm');
    // dist/ holds the compiled manager and stays ignored, but not the chart.
    expect(read('.gitignore')).toMatch(/^dist\/\*\n!dist\/chart\/$/m);
  });

  it("appends the helm-* Makefile targets once, with the manager's namespace and the project as release", () => {
    helmEdit(project.root, {});
    const makefile = read('Makefile');
    for (const target of ['helm-deploy', 'helm-uninstall', 'helm-status', 'helm-history', 'helm-rollback'])
      expect(makefile).toContain(`\n.PHONY: ${target}\n${target}:`);
    expect(makefile).toContain('HELM_NAMESPACE ?= proj-system\n');
    expect(makefile).toContain('HELM_RELEASE ?= proj\n');
    helmEdit(project.root, { force: true });
    expect(read('Makefile')).toBe(makefile);
  });

  it('keeps Chart.yaml always and values.yaml, helpers, NOTES.txt, .helmignore and the workflow without --force; regenerates the other templates', () => {
    helmEdit(project.root, {});
    const userEdits = [
      'dist/chart/Chart.yaml',
      'dist/chart/values.yaml',
      'dist/chart/templates/_helpers.tpl',
      'dist/chart/templates/NOTES.txt',
      'dist/chart/.helmignore',
      '.github/workflows/test-chart.yml',
      'dist/chart/templates/network-policy/allow-metrics-traffic.yaml',
    ];
    for (const rel of userEdits) write(rel, `${read(rel)}# edited by the user\n`);
    const derived = 'dist/chart/templates/rbac/manager-role.yaml';
    const original = read(derived);
    write(derived, '# edited by the user\n');

    helmEdit(project.root, {});
    for (const rel of userEdits) expect(read(rel), rel).toContain('# edited by the user');
    expect(read(derived)).toBe(original);

    helmEdit(project.root, { force: true });
    expect(read('dist/chart/Chart.yaml')).toContain('# edited by the user');
    for (const rel of userEdits.filter((r) => !r.endsWith('Chart.yaml')))
      expect(read(rel), rel).not.toContain('# edited by the user');
  });

  it('adds the webhook parts when the installer has webhooks, and turns on the cert-manager step of a kept workflow', () => {
    helmEdit(project.root, {});
    createWebhook(project, {
      group: 'batch',
      version: 'v1',
      kind: 'CronJob',
      qualifiedGroup: 'batch.example.com',
      plural: 'cronjobs',
      defaulting: true,
    });
    const { notes } = helmEdit(project.root, {});
    expect(notes).toContain(
      'dist/chart/values.yaml was kept; the templates now use `webhook`, so that section was added at its end with its defaults.',
    );
    expect(read('dist/chart/templates/webhook/mutating-webhook-configuration.yaml')).toMatch(
      /^\{\{- if \.Values\.webhook\.enabled \}\}/,
    );
    expect(read('.github/workflows/test-chart.yml')).toContain(
      '\n      - name: Install cert-manager via Helm (wait for readiness)\n        run: |\n          helm repo add jetstack',
    );
    expect(read('.github/workflows/test-chart.yml')).not.toContain('TODO: Uncomment if cert-manager');
    // values.yaml was kept (no --force), with the webhook section the templates read added at its end (kubebuilder
    // leaves it out until --force, and `helm lint` then fails on .Values.webhook.enabled).
    const kept = read('dist/chart/values.yaml');
    expect(kept).toMatch(/^webhook:\n {2}enabled: true\n {2}# Webhook server port\n {2}port: 9443\n$/m);
    expect(kept.match(/^webhook:/gm)).toHaveLength(1);
    helmEdit(project.root, {});
    expect(read('dist/chart/values.yaml')).toBe(kept);
    helmEdit(project.root, { force: true });
    expect(read('dist/chart/values.yaml')).toMatch(
      /^webhook:\n {2}enabled: true\n {2}# Webhook server port\n {2}port: 9443$/m,
    );
  });

  it('reads --manifests as given, writes to --output-dir and records both', () => {
    helmEdit(project.root, {});
    write('custom-install.yaml', read('dist/install.yaml'));
    const { written } = helmEdit(project.root, { manifests: 'custom-install.yaml', outputDir: 'charts' });
    expect(written).toContain('charts/chart/templates/manager/manager.yaml');
    expect(written).not.toContain('dist/install.yaml');
    expect(projectFile().plugins).toEqual({
      [HELM_PLUGIN_KEY]: { manifests: 'custom-install.yaml', output: 'charts' },
    });
    expect(read('charts/chart/.helmignore')).toContain('charts/chart/*.tgz');
  });

  it("drops the v1-alpha helm plugin's PROJECT entry, as kubebuilder does", () => {
    write(
      'PROJECT',
      read('PROJECT').replace('projectName: proj', 'plugins:\n  helm.kubebuilder.io/v1-alpha: {}\nprojectName: proj'),
    );
    helmEdit(project.root, {});
    expect(Object.keys(projectFile().plugins ?? {})).toEqual([HELM_PLUGIN_KEY]);
  });

  it('refuses a missing --manifests file, a path outside the project and an installer that is not Kubernetes YAML, changing nothing', () => {
    const before = snapshotTree(project.root);
    expect(() => helmEdit(project.root, { manifests: 'missing.yaml' })).toThrow(
      /--manifests missing\.yaml does not exist; write it with `scaffold build-installer -o missing\.yaml`/,
    );
    expect(() => helmEdit(project.root, { outputDir: '../elsewhere' })).toThrow(
      /--output-dir \.\.\/elsewhere is outside the project/,
    );
    expect(() => helmEdit(project.root, { manifests: '/etc/hosts' })).toThrow(
      /--manifests \/etc\/hosts is outside the project/,
    );
    write('bad.yaml', 'just: a map\n');
    const withBad = snapshotTree(project.root);
    expect(() => helmEdit(project.root, { manifests: 'bad.yaml' })).toThrow(
      /bad\.yaml: a document is not a Kubernetes object/,
    );
    expect(snapshotTree(project.root)).toEqual(withBad);
    withBad.delete('bad.yaml');
    expect(withBad).toEqual(before);
  });

  it('replays what PROJECT recorded as manifests, then the edit command (defaults left out)', () => {
    expect(registered().replay({ manifests: 'dist/install.yaml', output: 'dist' })).toEqual([
      { command: 'manifests' },
      { command: 'edit', flags: {} },
    ]);
    const custom = registered().replay({ manifests: 'm.yaml', output: 'charts' });
    expect(custom).toEqual([
      { command: 'manifests' },
      { command: 'edit', flags: { manifests: 'm.yaml', outputDir: 'charts' } },
    ]);
    expect(custom.map((r) => replayCommandLine(registered(), r))).toEqual([
      ['manifests'],
      ['edit', '--plugins=helm/v2-alpha', '--manifests=m.yaml', '--output-dir=charts'],
    ]);
  });
});
