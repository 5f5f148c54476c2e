// alpha update's checks, which all run before npm or any scaffold: each refusal is one line and changes nothing. The
// update itself, with releases fetched by npm, is test/e2e/alpha-update.test.ts.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInstalled, normalizeVersion, npmRegistry, releaseDir } from '../../../src/scaffold/alpha/release.js';
import {
  DEFAULT_GIT_CONFIG,
  mergeMessage,
  updateProject,
  type UpdateOptions,
} from '../../../src/scaffold/alpha/update.js';
import { tempDir } from '../../support/files.js';
import { initProject, tempProjectDir } from '../helpers.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** What kubescaffold 0.1.0 wrote before the package split (see test/e2e/legacy-project.test.ts). */
const legacyFixture = fileURLToPath(new URL('../../fixtures/legacy-project/', import.meta.url));

describe('alpha update refuses before changing anything', () => {
  let project: { root: string; cleanup: () => void };
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: project.root, encoding: 'utf8' }).trim();
  const state = (): string =>
    [
      git('rev-parse', 'HEAD'),
      git('branch', '-av'),
      git('status', '--porcelain'),
      git('rev-parse', '--abbrev-ref', 'HEAD'),
    ].join('\n');
  const options = (overrides: Partial<UpdateOptions> = {}): UpdateOptions => ({
    cwd: project.root,
    force: false,
    showCommits: false,
    restorePaths: [],
    push: false,
    gitConfig: DEFAULT_GIT_CONFIG,
    currentVersion: '0.2.0',
    releaseCache: join(project.root, '..', 'releases'),
    ...overrides,
  });

  beforeEach(() => {
    project = tempProjectDir('project');
    initProject(project.root, { cliVersion: '0.1.0' });
    git('init', '--quiet', '--initial-branch=main');
    git('config', 'user.name', 'Crew');
    git('config', 'user.email', 'crew@example.com');
    git('add', '--all');
    git('commit', '--quiet', '--message', 'scaffold');
  });
  afterEach(() => project.cleanup());

  const refuses = async (overrides: Partial<UpdateOptions>, message: RegExp): Promise<void> => {
    const before = state();
    const refusal = updateProject(options(overrides));
    await expect(refusal).rejects.toThrow(message);
    await refusal.catch((err: Error) => expect(err.message).not.toContain('\n'));
    expect(state()).toBe(before);
  };

  it('does nothing, and says so, when the project is at the version to update to', async () => {
    const before = state();
    const result = await updateProject(options({ toVersion: 'v0.1.0' }));
    expect(result).toMatchObject({ fromVersion: '0.1.0', toVersion: '0.1.0' });
    expect(result.outputBranch).toBeUndefined();
    expect(state()).toBe(before);
  });

  it("does nothing for a project of today's layout at the version that runs", async () => {
    const before = state();
    const result = await updateProject(options({ currentVersion: '0.1.0' }));
    expect(result.outputBranch).toBeUndefined();
    expect(state()).toBe(before);
  });

  it('refuses an output branch that exists, naming it', async () => {
    git('branch', 'kubescaffold-update-from-0.1.0-to-0.2.0');
    await refuses({}, /branch kubescaffold-update-from-0\.1\.0-to-0\.2\.0 already exists/);
  });

  it('refuses --restore-path with --show-commits', async () => {
    await refuses({ showCommits: true, restorePaths: ['.github/workflows'] }, /--restore-path .* --show-commits/);
  });

  it('refuses a PROJECT without cliVersion unless --from-version names the release', async () => {
    const path = join(project.root, 'PROJECT');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^cliVersion: .*\n/m, ''));
    git('commit', '--quiet', '--all', '--message', 'no cliVersion');
    await refuses({}, /PROJECT has no cliVersion.*--from-version/);
    const result = await updateProject(options({ fromVersion: '0.2.0' }));
    expect(result.outputBranch).toBeUndefined();
  });

  it('refuses a version that is not a release version', async () => {
    await refuses({ fromVersion: 'latest' }, /--from-version "latest" is not a release version/);
    await refuses({ toVersion: '^0.2.0' }, /--to-version "\^0\.2\.0" is not a release version/);
  });

  it('refuses a run below the top of the repository', async () => {
    mkdirSync(join(project.root, 'sub'));
    await refuses({ cwd: join(project.root, 'sub') }, /at the top of the git repository/);
  });

  it('refuses a detached HEAD without --from-branch, and a --from-branch that does not exist', async () => {
    await refuses({ fromBranch: 'develop' }, /--from-branch develop is not a local branch/);
    git('checkout', '--quiet', '--detach');
    await refuses({}, /HEAD is detached/);
  });
});

describe('release versions', () => {
  it("takes kubebuilder's v prefix and npm's pre-releases, one exact version each", () => {
    expect(normalizeVersion('v0.2.0', '--to-version')).toBe('0.2.0');
    expect(normalizeVersion('1.0.0-rc.1', '--to-version')).toBe('1.0.0-rc.1');
    expect(() => normalizeVersion('0.2', '--to-version')).toThrow(/not a release version/);
    expect(() => normalizeVersion('>=0.1.0', '--to-version')).toThrow(/not a release version/);
  });
});

describe('alpha update of a project scaffolded before the package split', () => {
  let project: { root: string; cleanup: () => void };
  let releases: { path: string; remove: () => void };
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: project.root, encoding: 'utf8' }).trim();
  const state = (): string => [git('rev-parse', 'HEAD'), git('branch', '-av'), git('status', '--porcelain')].join('\n');
  const options = (overrides: Partial<UpdateOptions> = {}): UpdateOptions => ({
    cwd: project.root,
    force: false,
    showCommits: false,
    restorePaths: [],
    push: false,
    gitConfig: DEFAULT_GIT_CONFIG,
    currentVersion: '0.1.0',
    releaseCache: releases.path,
    ...overrides,
  });

  beforeEach(() => {
    project = tempProjectDir('legacy');
    releases = tempDir('ks-releases-');
    cpSync(legacyFixture, project.root, { recursive: true });
    git('init', '--quiet', '--initial-branch=main');
    git('config', 'user.name', 'Crew');
    git('config', 'user.email', 'crew@example.com');
    git('add', '--all');
    git('commit', '--quiet', '--message', 'scaffold before the split');
  });
  afterEach(() => {
    project.cleanup();
    releases.remove();
  });

  it("refuses, rather than say it is at today's version, a project whose PROJECT names it but whose package.json predates the split", async () => {
    // The builds before the split called themselves 0.1.0, as today's release does.
    expect(readFileSync(join(project.root, 'PROJECT'), 'utf8')).toContain('cliVersion: 0.1.0\n');
    const before = state();
    const refusal = updateProject(options());
    await expect(refusal).rejects.toThrow(
      /records cliVersion 0\.1\.0, but the project was scaffolded before kubescaffold was split into three packages/,
    );
    const message = await refusal.catch((err: Error) => err.message);
    expect(message).not.toContain('\n');
    expect(message).toContain(
      'its package.json depends on kubescaffold (file:/work/main) and names no @kubescaffold/ package',
    );
    expect(message).toContain('give the release that made it with --from-version');
    expect(state()).toBe(before);
    // The same when --from-version names today's version.
    await expect(updateProject(options({ fromVersion: '0.1.0' }))).rejects.toThrow(
      /^--from-version names 0\.1\.0, but the project was scaffolded before kubescaffold was split/,
    );
    expect(state()).toBe(before);
  });

  it('refuses an ancestor scaffold that depends on @kubescaffold/runtime, which did not make the project, and changes nothing', async () => {
    // "0.0.5" as if installed earlier from the registry npm uses: a release that scaffolds today's layout (this
    // checkout's CLI), so no npm is run.
    const dir = releaseDir(releases.path, npmRegistry(project.root), '0.0.5');
    const bin = join(dir, 'node_modules', 'kubescaffold', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'scaffold.js'), `await import(${JSON.stringify(join(repoRoot, 'bin', 'scaffold.js'))});\n`);
    expect(isInstalled(dir)).toBe(true);
    const before = state();
    const warnings: string[] = [];
    const refusal = updateProject(options({ fromVersion: '0.0.5', warn: (line) => warnings.push(line) }));
    await expect(refusal).rejects.toThrow(
      /kubescaffold 0\.0\.5, which --from-version names, scaffolds projects that depend on @kubescaffold\/runtime, but the project on main was scaffolded before the package split/,
    );
    expect(state()).toBe(before);
    expect(git('branch', '--list', 'tmp-*')).toBe('');
    expect(warnings).toEqual([]);
  });
});

describe("alpha update keeps the operator's own flags", () => {
  let project: { root: string; cleanup: () => void };
  let releases: { path: string; remove: () => void };
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: project.root, encoding: 'utf8' }).trim();

  beforeEach(() => {
    project = tempProjectDir('project');
    releases = tempDir('ks-releases-');
    initProject(project.root, { cliVersion: '0.1.0' });
    git('init', '--quiet', '--initial-branch=main');
    git('config', 'user.name', 'Crew');
    git('config', 'user.email', 'crew@example.com');
    git('add', '--all');
    git('commit', '--quiet', '--message', 'scaffold');
  });
  afterEach(() => {
    project.cleanup();
    releases.remove();
  });

  it('declared in cmd/flags.ts and used in cmd/main.ts, through the merge onto the new scaffold', async () => {
    // "0.1.0" as if installed earlier from the registry npm uses: this checkout's CLI, so that no npm is run; the
    // update to 0.2.0 scaffolds in this process.
    const dir = releaseDir(releases.path, npmRegistry(project.root), '0.1.0');
    const bin = join(dir, 'node_modules', 'kubescaffold', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'scaffold.js'), `await import(${JSON.stringify(join(repoRoot, 'bin', 'scaffold.js'))});\n`);

    const flagsPath = join(project.root, 'cmd', 'flags.ts');
    const marker = '  // +kubebuilder:scaffold:flags\n';
    const flag =
      "  'sync-period': { type: 'string', default: '10h', usage: 'How often every object is reconciled again.' },\n";
    const flags = readFileSync(flagsPath, 'utf8');
    expect(flags).toContain(marker);
    writeFileSync(flagsPath, flags.replace(marker, `${flag}${marker}`));
    const mainPath = join(project.root, 'cmd', 'main.ts');
    const anchor = "configureLog({ level: flags['zap-log-level'] });\n";
    const use = "setupLog.info('resync', { every: flags['sync-period'] });\n";
    expect(readFileSync(mainPath, 'utf8')).toContain(anchor);
    writeFileSync(mainPath, readFileSync(mainPath, 'utf8').replace(anchor, `${anchor}${use}`));
    git('commit', '--quiet', '--all', '--message', 'the operator flag --sync-period');
    const userFlags = readFileSync(flagsPath, 'utf8');
    const userMain = readFileSync(mainPath, 'utf8');

    const result = await updateProject({
      cwd: project.root,
      force: false,
      showCommits: false,
      restorePaths: [],
      push: false,
      gitConfig: DEFAULT_GIT_CONFIG,
      currentVersion: '0.2.0',
      releaseCache: releases.path,
      log: () => {},
      warn: () => {},
    });

    expect(result).toMatchObject({ outputBranch: 'kubescaffold-update-from-0.1.0-to-0.2.0', conflicts: [] });
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('kubescaffold-update-from-0.1.0-to-0.2.0');
    expect(readFileSync(flagsPath, 'utf8')).toBe(userFlags);
    expect(readFileSync(mainPath, 'utf8')).toBe(userMain);
    expect(readFileSync(join(project.root, 'PROJECT'), 'utf8')).toContain('cliVersion: 0.2.0\n');
  });
});

describe('the commit messages', () => {
  const plan = { fromVersion: '0.0.9', toVersion: '0.1.0' };

  it("are kubebuilder's, with this tool's name, and list the files left with conflict markers", () => {
    expect(mergeMessage(plan, [])).toBe('chore(kubescaffold): update scaffold 0.0.9 -> 0.1.0');
    expect(mergeMessage(plan, ['Dockerfile', 'cmd/main.ts'])).toBe(
      'chore(kubescaffold): (:warning: manual conflict resolution required) update scaffold 0.0.9 -> 0.1.0\n\n' +
        'Conflicts left marked in:\n- Dockerfile\n- cmd/main.ts\n',
    );
  });

  it('are --merge-message and --conflict-message as given, each for its case', () => {
    const custom = { mergeMessage: 'chore: new scaffold', conflictMessage: 'chore: new scaffold, to resolve' };
    expect(mergeMessage(plan, [], custom)).toBe('chore: new scaffold');
    expect(mergeMessage(plan, ['Dockerfile'], custom)).toBe('chore: new scaffold, to resolve');
    expect(mergeMessage(plan, ['Dockerfile'], { mergeMessage: 'chore: new scaffold' })).toMatch(
      /^chore\(kubescaffold\): \(:warning:/,
    );
  });
});

describe('the release cache', () => {
  it('keeps one directory per registry and version, and counts only a whole install as installed', () => {
    const root = '/cache/kubescaffold/releases';
    const npmjs = releaseDir(root, 'https://registry.npmjs.org/', '0.0.9');
    expect(npmjs).toMatch(/^\/cache\/kubescaffold\/releases\/registry\.npmjs\.org-[0-9a-f]{12}\/kubescaffold@0\.0\.9$/);
    expect(releaseDir(root, 'https://registry.npmjs.org/', '0.0.9')).toBe(npmjs);
    expect(releaseDir(root, 'https://registry.npmjs.org/', '0.1.0')).not.toBe(npmjs);
    expect(releaseDir(root, 'http://127.0.0.1:4873/', '0.0.9')).toMatch(
      /\/127\.0\.0\.1_4873-[0-9a-f]{12}\/kubescaffold@0\.0\.9$/,
    );
    const dir = tempDir('ks-release-');
    try {
      expect(isInstalled(dir.path)).toBe(false);
    } finally {
      dir.remove();
    }
  });
});
