import { describe, expect, it } from 'vitest';
import { pluginFlagValues, resolvePlugins, shortKey, type PluginSpec } from '../../src/scaffold/plugins/registry.js';

const load = (): Promise<never> => Promise.reject(new Error('not loaded in this test'));
const replay = (): [] => [];
const helm: PluginSpec = {
  key: 'helm.kubebuilder.io/v2-alpha',
  description: 'chart',
  subcommands: ['init', 'edit'],
  flags: {
    edit: [
      { flags: '--force', name: 'force', description: 'regenerate' },
      { flags: '--output-dir <dir>', name: 'outputDir', description: 'where' },
    ],
  },
  load,
  replay,
};
const helmV1: PluginSpec = { ...helm, key: 'helm.kubebuilder.io/v1-alpha' };
const grafana: PluginSpec = {
  key: 'grafana.kubebuilder.io/v1-alpha',
  description: 'dashboards',
  subcommands: ['init', 'edit'],
  flags: {},
  load,
  replay,
};
const deployImage: PluginSpec = {
  key: 'deploy-image.go.kubebuilder.io/v1-alpha',
  description: 'operand',
  subcommands: ['create api'],
  flags: { 'create api': [{ flags: '--image <image>', name: 'image', description: 'operand image' }] },
  load,
  replay,
};
const specs = [helm, helmV1, grafana, deployImage];

describe('resolvePlugins', () => {
  it('accepts full keys, short keys and a name whose version is unique, in registry order', () => {
    expect(resolvePlugins('grafana,helm/v2-alpha', 'edit', specs)).toEqual([helm, grafana]);
    expect(resolvePlugins('deploy-image.go.kubebuilder.io/v1-alpha', 'create api', specs)).toEqual([deployImage]);
  });

  it('skips the layout plugin on init and names the TypeScript layout when given go/v4', () => {
    expect(resolvePlugins('typescript/v1,grafana/v1-alpha', 'init', specs)).toEqual([grafana]);
    expect(() => resolvePlugins('go/v4', 'init', specs)).toThrow(
      /unknown plugin "go\/v4".*typescript\.kubescaffold\.io\/v1/,
    );
  });

  it('refuses an ambiguous name, an unknown key and a plugin without the subcommand', () => {
    expect(() => resolvePlugins('helm', 'edit', specs)).toThrow(/ambiguous.*give its version/);
    expect(() => resolvePlugins('helm/v3-alpha', 'edit', specs)).toThrow(
      /unknown plugin "helm\/v3-alpha".*plugins for `edit`: helm\/v2-alpha/,
    );
    expect(() => resolvePlugins('deploy-image/v1-alpha', 'edit', specs)).toThrow(
      /does not implement `edit` \(it implements `create api`\)/,
    );
  });

  it('prints short keys as kubebuilder does', () => {
    expect(shortKey('deploy-image.go.kubebuilder.io/v1-alpha')).toBe('deploy-image/v1-alpha');
  });
});

describe('pluginFlagValues', () => {
  it('gives each selected plugin the flags it declares', () => {
    const values = pluginFlagValues({ outputDir: 'out', force: true, plugins: 'helm/v2-alpha' }, 'edit', [helm], specs);
    expect(values.get(helm)).toEqual({ outputDir: 'out', force: true });
  });

  it('refuses a flag of a plugin that was not selected', () => {
    expect(() => pluginFlagValues({ image: 'memcached' }, 'create api', [], specs)).toThrow(
      '--image is a flag of the deploy-image/v1-alpha plugin; add --plugins=deploy-image/v1-alpha',
    );
  });
});
