/**
 * `edit --plugins=autoupdate/v1-alpha`: the scheduled workflow that runs `scaffold alpha update`, what PROJECT records,
 * its refusals, alpha generate's replay of it, and the workflow against the one kubebuilder v4.16.0 writes. That
 * release's plugin has no flags: v4.15.0's --use-gh-models (an AI summary through GitHub Models) was removed with the
 * service (kubebuilder #5777), and a --delete was never released; ours has none either.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { buildProgram, main } from '../../src/cli/index.js';
import { loadProject } from '../../src/project/load.js';
import { replaySteps } from '../../src/scaffold/alpha/replay.js';
import { AUTO_UPDATE_WORKFLOW, editAutoUpdate } from '../../src/scaffold/plugins/autoupdate/index.js';
import { pluginSpecs } from '../../src/scaffold/plugins/registry.js';
import { builtinSteps, resolveChain } from '../../src/scaffold/plugins/chain.js';
import { registryDependencies } from '../../src/scaffold/dependencies.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, goEnv } from '../support/kubebuilder.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';

const KEY = 'autoupdate.kubebuilder.io/v1-alpha';

interface Workflow {
  permissions: unknown;
  on: unknown;
  jobs: {
    'auto-update': {
      permissions: Record<string, string>;
      env: Record<string, string>;
      steps: Array<{ name: string; uses?: string; with?: Record<string, unknown>; run?: string }>;
    };
  };
}

const workflowOf = (root: string): Workflow =>
  parse(readFileSync(join(root, AUTO_UPDATE_WORKFLOW), 'utf8')) as Workflow;

/** The flags a workflow gives alpha update, from its run step. */
const updateFlags = (workflow: Workflow): string[] => {
  const run = workflow.jobs['auto-update'].steps.find((s) => s.run?.includes('alpha update'))?.run ?? '';
  return (run.split('alpha update')[1] ?? '').replace(/\\\n/g, ' ').trim().split(/\s+/);
};

describe('edit --plugins=autoupdate/v1-alpha', () => {
  let project: { root: string; cleanup: () => void };
  beforeEach(() => {
    project = tempProjectDir('project');
    initProject(project.root);
  });
  afterEach(() => project.cleanup());

  it('writes a weekly workflow that runs the latest kubescaffold alpha update and opens an issue with the result', () => {
    const result = editAutoUpdate(project.root);
    expect(result.written).toContain(AUTO_UPDATE_WORKFLOW);
    const workflow = workflowOf(project.root);
    expect(workflow.on).toEqual({ workflow_dispatch: null, schedule: [{ cron: '0 0 * * 2' }] });
    expect(workflow.jobs['auto-update'].permissions).toEqual({ contents: 'write', issues: 'write' });
    const run = workflow.jobs['auto-update'].steps.find((s) => s.run?.includes('alpha update'))?.run;
    expect(run).toContain('npx --yes kubescaffold@latest alpha update');
    expect(updateFlags(workflow)).toEqual([
      '--force',
      '--push',
      '--restore-path',
      '.github/workflows',
      '--open-gh-issue',
    ]);
    // Every flag the workflow gives is one alpha update declares.
    const update = buildProgram()
      .commands.find((c) => c.name() === 'alpha')
      ?.commands.find((c) => c.name() === 'update');
    const declared = update?.options.map((o) => o.long) ?? [];
    for (const flag of updateFlags(workflow).filter((f) => f.startsWith('--'))) expect(declared).toContain(flag);
  });

  it('records the plugin in PROJECT, so that alpha generate and alpha update scaffold it again', () => {
    editAutoUpdate(project.root);
    const config = loadProject(project.root);
    expect(config.plugins).toEqual({ [KEY]: {} });
    const steps = replaySteps(config, { dependencies: () => registryDependencies('0.1.0'), cliVersion: '0.1.0' });
    expect(steps.at(-1)?.argv).toEqual(['edit', '--plugins=autoupdate/v1-alpha']);
  });

  it('keeps a workflow the user changed, as kubebuilder skips it', () => {
    mkdirSync(join(project.root, '.github/workflows'), { recursive: true });
    writeFileSync(join(project.root, AUTO_UPDATE_WORKFLOW), 'name: Mine\n');
    const result = editAutoUpdate(project.root);
    expect(result.written).not.toContain(AUTO_UPDATE_WORKFLOW);
    expect(readFileSync(join(project.root, AUTO_UPDATE_WORKFLOW), 'utf8')).toBe('name: Mine\n');
  });

  it('refuses a PROJECT without cliVersion and writes nothing', () => {
    const path = join(project.root, 'PROJECT');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^cliVersion: .*\n/m, ''));
    const before = snapshotTree(project.root);
    expect(() => editAutoUpdate(project.root)).toThrow(/PROJECT has no cliVersion/);
    expect(snapshotTree(project.root)).toEqual(before);
    expect(existsSync(join(project.root, AUTO_UPDATE_WORKFLOW))).toBe(false);
  });

  it('is selected by its full key, its short key and its name, on init and edit', () => {
    const spec = pluginSpecs.find((s) => s.key === KEY);
    expect(spec).toBeDefined();
    for (const given of [KEY, 'autoupdate/v1-alpha', 'autoupdate'])
      for (const subcommand of ['init', 'edit'] as const)
        expect(builtinSteps(resolveChain(given, subcommand))).toEqual([spec]);
  });
});

const VERSION = 'v4.16.0';
const what = `autoupdate plugin comparison with kubebuilder ${VERSION}`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

describe.skipIf(!available)(`the autoupdate workflow against kubebuilder ${VERSION}'s`, () => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };
  let binary: string;

  beforeAll(async () => {
    binary = await requirePeer(what, () => findKubebuilder(VERSION));
    theirs = tempDir('ks-kubebuilder-autoupdate-');
    const kubebuilder = (...args: string[]): void => {
      execFileSync(binary, args, { cwd: theirs.path, env: goEnv(), stdio: 'pipe' });
    };
    kubebuilder(
      'init',
      '--domain=example.com',
      '--repo=example.com/project',
      '--fetch-deps=false',
      '--skip-go-version-check',
    );
    kubebuilder('edit', '--plugins=autoupdate.kubebuilder.io/v1-alpha');
    ours = tempProjectDir('project');
    initProject(ours.root);
    editAutoUpdate(ours.root);
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it('has its path, triggers, permissions, token and alpha update flags', () => {
    const [mine, kb] = [workflowOf(ours.root), workflowOf(theirs.path)];
    expect(mine.on).toEqual(kb.on);
    expect(mine.permissions).toEqual(kb.permissions);
    expect(mine.jobs['auto-update'].permissions).toEqual(kb.jobs['auto-update'].permissions);
    expect(mine.jobs['auto-update'].env).toEqual(kb.jobs['auto-update'].env);
    expect(updateFlags(mine)).toEqual(updateFlags(kb));
  });

  it('checks out the whole history with the token and commits as the GitHub Actions bot, as kubebuilder does', () => {
    const step = (w: Workflow, name: string) => w.jobs['auto-update'].steps.find((s) => s.name === name);
    const [mine, kb] = [workflowOf(ours.root), workflowOf(theirs.path)];
    expect(step(mine, 'Checkout repository')?.with).toMatchObject({
      token: step(kb, 'Checkout repository')?.with?.token,
      'fetch-depth': 0,
    });
    expect(step(mine, 'Configure Git')?.run).toBe(step(kb, 'Configure Git')?.run);
    // By design: kubebuilder's checkout drops its credentials (persist-credentials: false), which its --push then
    // lacks; ours keeps them in git's config for --push, as its comment says.
    expect(step(kb, 'Checkout repository')?.with?.['persist-credentials']).toBe(false);
    expect(step(mine, 'Checkout repository')?.with?.['persist-credentials']).toBeUndefined();
  });

  it('takes no flags, as kubebuilder refuses --use-gh-models and --delete', async () => {
    const project = tempDir('ks-autoupdate-flags-');
    try {
      execFileSync(
        binary,
        ['init', '--domain=example.com', '--repo=example.com/p', '--fetch-deps=false', '--skip-go-version-check'],
        {
          cwd: project.path,
          env: goEnv(),
          stdio: 'pipe',
        },
      );
      for (const flag of ['--use-gh-models', '--delete']) {
        let theirError = '';
        try {
          execFileSync(binary, ['edit', `--plugins=${KEY}`, flag], { cwd: project.path, env: goEnv(), stdio: 'pipe' });
        } catch (err) {
          theirError = String((err as { stderr?: Buffer }).stderr);
        }
        expect(theirError).toContain(`unknown flag: ${flag}`);
        let ourError = '';
        const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text: string | Uint8Array) => {
          ourError += String(text);
          return true;
        });
        try {
          expect(await main(['node', 'scaffold', 'edit', '--plugins=autoupdate/v1-alpha', flag])).toBe(1);
        } finally {
          stderr.mockRestore();
        }
        expect(ourError).toContain(`unknown option '${flag}'`);
      }
      expect(existsSync(join(project.path, AUTO_UPDATE_WORKFLOW))).toBe(false);
    } finally {
      project.remove();
    }
  });

  it('records the plugin in PROJECT under the same key and value as kubebuilder', () => {
    const theirsProject = parse(readFileSync(join(theirs.path, 'PROJECT'), 'utf8')) as { plugins: unknown };
    expect(loadProject(ours.root).plugins).toEqual(theirsProject.plugins);
  });
});
