import { describe, expect, it } from 'vitest';
import { builtinSteps, resolveChain } from '../../src/scaffold/plugins/chain.js';
import type { Discovery } from '../../src/scaffold/plugins/external/discover.js';
import {
  pluginFlagValues,
  shortKey,
  type PluginSpec,
  type PluginSubcommand,
} from '../../src/scaffold/plugins/registry.js';

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

/** Discovery that finds no external plugin, so that these tests never look at the machine's plugin folders. */
const noExternals = (): Discovery => ({ root: '/nowhere', plugins: [], problems: new Map() });
const resolve = (value: string, subcommand: PluginSubcommand): PluginSpec[] =>
  builtinSteps(resolveChain(value, subcommand, { specs, discover: noExternals }));

describe('resolveChain with built-in plugins', () => {
  it('accepts full keys, short keys and a name whose version is unique, in the order given (as kubebuilder runs them)', () => {
    expect(resolve('grafana,helm/v2-alpha', 'edit')).toEqual([grafana, helm]);
    expect(resolve('helm/v2-alpha,grafana', 'edit')).toEqual([helm, grafana]);
    expect(resolve('deploy-image.go.kubebuilder.io/v1-alpha', 'create api')).toEqual([deployImage]);
  });

  it('runs the layout first on init when it is left out, and names the TypeScript layout when given go/v4', () => {
    expect(resolveChain('grafana/v1-alpha', 'init', { specs, discover: noExternals })).toEqual([
      { kind: 'layout' },
      { kind: 'builtin', spec: grafana },
    ]);
    expect(resolve('typescript/v1,grafana/v1-alpha', 'init')).toEqual([grafana]);
    expect(() => resolve('go/v4', 'init')).toThrow(/unknown plugin "go\/v4".*typescript\.kubescaffold\.io\/v1/);
  });

  it('refuses a built-in plugin listed before the layout on init, and two plugins that scaffold the API', () => {
    expect(() => resolve('grafana/v1-alpha,typescript/v1', 'init')).toThrow(
      /lists grafana\/v1-alpha before typescript\/v1, but it edits an initialized project/,
    );
    expect(() => resolve('typescript/v1,deploy-image/v1-alpha', 'create api')).toThrow(
      /names 2 plugins that scaffold the API themselves \(typescript\/v1, deploy-image\/v1-alpha\)/,
    );
  });

  it('refuses an ambiguous name, an unknown key and a plugin without the subcommand', () => {
    expect(() => resolve('helm', 'edit')).toThrow(/ambiguous.*give its version/);
    expect(() => resolve('helm/v3-alpha', 'edit')).toThrow(
      /unknown plugin "helm\/v3-alpha".*plugins for `edit`: typescript\/v1, helm\/v2-alpha, .*\/nowhere .*which holds none/,
    );
    expect(() => resolve('deploy-image/v1-alpha', 'edit')).toThrow(
      /does not implement `edit` \(it implements `create api`\)/,
    );
  });

  it("passes over a built-in plugin of PROJECT's layout that lacks the subcommand", () => {
    const chain = resolveChain(['typescript.kubescaffold.io/v1', 'grafana.kubebuilder.io/v1-alpha'], 'create api', {
      specs,
      source: "PROJECT's layout",
      discover: noExternals,
    });
    expect(chain).toEqual([{ kind: 'layout' }]);
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
