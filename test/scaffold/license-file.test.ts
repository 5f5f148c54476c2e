/**
 * `init --license-file`: the file becomes hack/boilerplate.txt and the header of generated files (checked against the
 * real kubebuilder v4.16.0 running init with the same file), PROJECT records the license as custom, `alpha generate`
 * keeps the header instead of warning about it, and every refusal leaves the directory as it was.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/project/load.js';
import { generateFromProject } from '../../src/scaffold/alpha/generate.js';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { registryDependencies } from '../../src/scaffold/dependencies.js';
import { scaffoldEdit } from '../../src/scaffold/edit.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const VERSION = 'v4.16.0';
const header = '/*\nCopyright YEAR The Fleet.\n\nAll hands on deck.\n*/\n';
const year = String(new Date().getFullYear());

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** An empty project directory and, beside it, a header file holding `text`. */
function workspace(text = header): { root: string; headerFile: string } {
  const { root, cleanup } = tempProjectDir('project');
  cleanups.push(cleanup);
  const headerFile = join(root, '..', 'my-header.txt');
  writeFileSync(headerFile, text);
  return { root, headerFile };
}

const regenerate = (inputDir: string, outputDir: string) =>
  generateFromProject({
    inputDir,
    outputDir,
    force: false,
    dependencies: () => registryDependencies('0.1.0'),
    cliVersion: '0.1.0',
  });

describe('init --license-file', () => {
  it("writes the file as hack/boilerplate.txt and heads every generated file with it; PROJECT's license is custom", () => {
    const { root, headerFile } = workspace();
    initProject(root, { licenseFile: headerFile, license: 'copyright' });
    scaffoldCreateAPI(root, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      resource: true,
      controller: true,
      namespaced: true,
      force: false,
    });
    expect(readFileSync(join(root, 'hack/boilerplate.txt'), 'utf8')).toBe(header);
    const expected = `${header.trim().replace('YEAR', year)}\n\n`;
    for (const file of ['cmd/main.ts', 'api/v1/captain_types.ts', 'internal/controller/captain_controller.ts'])
      expect(readFileSync(join(root, file), 'utf8').startsWith(expected), file).toBe(true);
    expect(loadProject(root).license).toBe('custom');
  });

  it('with an empty file, writes no header, as kubebuilder allows', () => {
    const { root, headerFile } = workspace('');
    initProject(root, { licenseFile: headerFile });
    expect(readFileSync(join(root, 'cmd/main.ts'), 'utf8').startsWith('/*')).toBe(false);
  });

  describe('refuses, writing nothing,', () => {
    it.each([
      ['a missing file', undefined, /license file ".*missing.txt" does not exist/],
      [
        'a file that is not a comment block',
        '// Copyright\n',
        /must be a comment block: start with \/\* and end with \*\//,
      ],
      ['a comment that closes early', '/* a */ code /* b */', /closes its comment \(\*\/\) before the end/],
    ])('%s', (_what, text, error) => {
      const { root, headerFile } = workspace(text ?? header);
      const file = text === undefined ? join(root, '..', 'missing.txt') : headerFile;
      expect(() => initProject(root, { licenseFile: file })).toThrow(error);
      expect(snapshotTree(root).size).toBe(0);
    });
  });

  it('makes edit --owner refuse, since the header is the user’s own', () => {
    const { root, headerFile } = workspace();
    initProject(root, { licenseFile: headerFile });
    const tree = snapshotTree(root);
    expect(() => scaffoldEdit(root, { owner: 'Someone' })).toThrow(/the file header is your own/);
    expect(snapshotTree(root)).toEqual(tree);
  });
});

describe('alpha generate keeps the header', () => {
  it('of a --license-file project, through init --license-file, with no note about it', async () => {
    const { root, headerFile } = workspace();
    initProject(root, { licenseFile: headerFile });
    const out = join(root, '..', 'again');
    const result = await regenerate(root, out);
    expect(result.commands[0]).toContain(`--license-file ${join(root, 'hack/boilerplate.txt')}`);
    expect(result.commands[0]).not.toContain('--license ');
    expect(readFileSync(join(out, 'hack/boilerplate.txt'), 'utf8')).toBe(header);
    expect(readFileSync(join(out, 'cmd/main.ts'), 'utf8')).toBe(readFileSync(join(root, 'cmd/main.ts'), 'utf8'));
    expect(result.notes).toEqual([]);
  });

  it('the user edited after init, where it used to warn that the header was replaced', async () => {
    const { root } = workspace();
    initProject(root, { license: 'apache2' });
    writeFileSync(join(root, 'hack/boilerplate.txt'), header);
    const out = join(root, '..', 'again');
    const result = await regenerate(root, out);
    expect(readFileSync(join(out, 'hack/boilerplate.txt'), 'utf8')).toBe(header);
    expect(result.notes.join('\n')).not.toMatch(/boilerplate/);
  });

  it('refuses, changing nothing, a custom license whose header file is gone', async () => {
    const { root, headerFile } = workspace();
    initProject(root, { licenseFile: headerFile });
    rmSync(join(root, 'hack/boilerplate.txt'));
    const tree = snapshotTree(root);
    await expect(regenerate(root, root)).rejects.toThrow(/records a custom license header .* is missing; restore it/);
    expect(snapshotTree(root)).toEqual(tree);
  });
});

const what = `init --license-file against kubebuilder ${VERSION}`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

describe.skipIf(!available)(what, () => {
  const suite: Array<() => void> = [];
  let ours: string;
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    const mine = tempProjectDir('project');
    suite.push(mine.cleanup);
    ours = mine.root;
    const headerFile = join(ours, '..', 'my-header.txt');
    writeFileSync(headerFile, header);
    initProject(ours, { licenseFile: headerFile });
    const theirs = tempDir('ks-kubebuilder-license-file-');
    suite.push(theirs.remove);
    theirRoot = join(theirs.path, 'project');
    mkdirSync(theirRoot);
    runWithGoEnv(
      kubebuilder,
      [
        'init',
        '--domain=example.com',
        '--repo=example.com/project',
        `--license-file=${headerFile}`,
        '--fetch-deps=false',
        '--skip-go-version-check',
      ],
      theirRoot,
    );
  }, GO_BUILD_MS);
  afterAll(() => {
    for (const c of suite) c();
  });

  it("writes the file as kubebuilder's boilerplate", () => {
    expect(readFileSync(join(ours, 'hack/boilerplate.txt'), 'utf8').trim()).toBe(
      readFileSync(join(theirRoot, 'hack/boilerplate.go.txt'), 'utf8').trim(),
    );
  });

  it("heads cmd/main with kubebuilder's header, the year filled in", () => {
    const headOf = (file: string): string => readFileSync(file, 'utf8').split('\n*/\n')[0]!;
    expect(headOf(join(ours, 'cmd/main.ts'))).toBe(headOf(join(theirRoot, 'cmd/main.go')));
    expect(headOf(join(ours, 'cmd/main.ts'))).toContain(`Copyright ${year} The Fleet.`);
  });
});
