import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LAYOUT, stringifyProject, withPluginConfig, type ProjectConfig } from '../../../src/project/project.js';
import { generateFromProject } from '../../../src/scaffold/alpha/generate.js';
import { registryDependencies } from '../../../src/scaffold/dependencies.js';
import { replaySteps } from '../../../src/scaffold/alpha/replay.js';
import { loadProject } from '../../../src/project/load.js';
import { scaffoldCreateAPI } from '../../../src/scaffold/api.js';
import { scaffoldEdit } from '../../../src/scaffold/edit.js';
import type { PluginModule, PluginReplay, PluginSpec } from '../../../src/scaffold/plugins/registry.js';
import { snapshotTree, tempProjectDir } from '../helpers.js';
import { scaffold } from './cli-run.js';

interface Recorded {
  resources: Array<{ group: string; version: string; kind: string }>;
  owner: string;
}

// A plugin that records resources it scaffolds without a controller, and an owner it sets: its replay gives one
// create api per resource (in place of the plain one) and one edit, which alpha generate calls on its module.
const KEY = 'test.kubescaffold.io/v1-alpha';
const testPluginModule: PluginModule = {
  createAPI: (root, request) => ({
    ...scaffoldCreateAPI(root, { ...request, resource: true, controller: false }),
    notes: [],
  }),
  edit: (root, flags) =>
    scaffoldEdit(root, { owner: typeof flags.ownerName === 'string' ? flags.ownerName : undefined }),
};
const testPlugin: PluginSpec = {
  key: KEY,
  description: 'a plugin for this test',
  subcommands: ['edit', 'create api'],
  flags: { edit: [{ flags: '--owner-name <name>', name: 'ownerName', description: 'the owner' }] },
  load: () => Promise.resolve(testPluginModule),
  replay(recorded: unknown): PluginReplay[] {
    // PROJECT leaves out empty lists, so an empty `resources` is read back as absent.
    const { resources = [], owner } = recorded as Partial<Recorded>;
    return [
      ...resources.map((r): PluginReplay => ({
        command: 'create api',
        request: { ...r, namespaced: true, force: false },
        flags: {},
      })),
      { command: 'edit', flags: { ownerName: owner ?? '' } },
    ];
  },
};
const extras = { dependencies: () => registryDependencies('0.1.0'), cliVersion: '0.1.0' };

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('replaySteps', () => {
  const config: ProjectConfig = {
    version: '3',
    domain: 'example.com',
    projectName: 'crew',
    layout: [LAYOUT],
    resources: [
      {
        group: 'crew',
        version: 'v1',
        kind: 'Captain',
        domain: 'example.com',
        api: { crdVersion: 'v1', namespaced: true },
        controller: true,
        webhooks: { webhookVersion: 'v1', defaulting: true },
      },
      { group: 'crew', version: 'v1', kind: 'Ship', domain: 'example.com', api: { crdVersion: 'v1' } },
    ],
    plugins: {
      [KEY]: { resources: [{ group: 'crew', version: 'v1', kind: 'Ship' }], owner: 'Someone' } satisfies Recorded,
    },
  };

  it("puts a plugin's create api in place of the plain one, before the webhooks, and its other commands last", () => {
    expect(replaySteps(config, extras, [testPlugin]).map((s) => `${s.run}: ${s.argv.join(' ')}`)).toEqual([
      'init: init --domain example.com --project-name crew --license apache2 --skip-install',
      'create api: create api --group crew --version v1 --kind Captain --resource=true --controller=true --namespaced=true',
      'plugin: create api --group crew --version v1 --kind Ship --plugins=test/v1-alpha',
      'create webhook: create webhook --group crew --version v1 --kind Captain --defaulting',
      'plugin: edit --plugins=test/v1-alpha --owner-name=Someone',
    ]);
  });

  it('without the plugin, refuses its PROJECT entry, naming the plugins it knows', () => {
    const other: PluginSpec = { ...testPlugin, key: 'other.kubescaffold.io/v1' };
    expect(() => replaySteps(config, extras, [other])).toThrow(
      `PROJECT records plugin ${KEY}, which kubescaffold cannot scaffold again (the plugins this version knows are other.kubescaffold.io/v1)`,
    );
  });

  it('refuses external APIs and APIs of another domain', () => {
    const base = { ...config, plugins: undefined };
    const captain = config.resources![0]!;
    expect(() => replaySteps({ ...base, resources: [{ ...captain, external: true }] }, extras, [])).toThrow(
      /resources\[0\] \(crew\/v1 Captain\) is an external API/,
    );
    expect(() => replaySteps({ ...base, resources: [{ ...captain, domain: 'other.io' }] }, extras, [])).toThrow(
      /has domain "other\.io", not the project's "example\.com"/,
    );
  });
});

describe('alpha generate with plugins', () => {
  async function projectWithPlugin(replayed: Recorded): Promise<{ base: string; root: string }> {
    const { root, cleanup } = tempProjectDir('crew');
    cleanups.push(cleanup);
    await scaffold(root, 'init', '--domain', 'example.com', '--skip-install');
    await scaffold(root, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain');
    await scaffold(root, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Ship');
    writeFileSync(join(root, 'PROJECT'), stringifyProject(withPluginConfig(loadProject(root), KEY, replayed)));
    return { base: join(root, '..'), root };
  }

  it("calls the recorded plugin's functions with its typed replay, never re-entering the CLI or changing directory", async () => {
    const { base, root } = await projectWithPlugin({
      resources: [{ group: 'crew', version: 'v1', kind: 'Ship' }],
      owner: 'Replayed Owner',
    });
    const outputDir = join(base, 'out');
    const chdir = vi.spyOn(process, 'chdir');
    const result = await generateFromProject({
      inputDir: root,
      outputDir,
      force: false,
      ...extras,
      specs: [testPlugin],
    }).finally(() => chdir.mockRestore());
    expect(chdir).not.toHaveBeenCalled();

    expect(result.commands.slice(1)).toEqual([
      'scaffold create api --group crew --version v1 --kind Captain --resource=true --controller=true --namespaced=true',
      'scaffold create api --group crew --version v1 --kind Ship --plugins=test/v1-alpha',
      "scaffold edit --plugins=test/v1-alpha '--owner-name=Replayed Owner'",
    ]);
    expect(existsSync(join(outputDir, 'api/v1/ship_types.ts'))).toBe(true);
    expect(
      existsSync(join(outputDir, 'internal/controller/ship_controller.ts')),
      'the plain create api of Ship did not run',
    ).toBe(false);
    expect(existsSync(join(outputDir, 'internal/controller/captain_controller.ts'))).toBe(true);
    expect(loadProject(outputDir).owner).toBe('Replayed Owner');
    expect(readFileSync(join(outputDir, 'hack/boilerplate.txt'), 'utf8')).toContain('Replayed Owner');
    // This test's plugin does not record itself in PROJECT again, as a real one does: the new PROJECT lacks its entry.
    expect(result.notes).toContainEqual(
      expect.stringMatching(/^PROJECT differs from your previous one in more than cliVersion/),
    );
  });

  it('refuses, changing nothing, when a replay command fails', async () => {
    const { base, root } = await projectWithPlugin({ resources: [], owner: 'has\nnewline' });
    const before = { files: snapshotTree(base), entries: readdirSync(base) };
    await expect(
      generateFromProject({
        inputDir: root,
        outputDir: join(base, 'out'),
        force: false,
        ...extras,
        specs: [testPlugin],
      }),
    ).rejects.toThrow(
      /`scaffold edit --plugins=test\/v1-alpha '--owner-name=has\nnewline'` failed: invalid --owner: the owner must be one line/,
    );
    expect({ files: snapshotTree(base), entries: readdirSync(base) }).toEqual(before);
  });
});
