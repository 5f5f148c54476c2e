// alpha update's checks, which all run before npm or any scaffold: each refusal is one line and changes nothing. The
// update itself, with releases fetched by npm, is test/e2e/alpha-update.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeVersion } from '../../../src/scaffold/alpha/release.js';
import { DEFAULT_GIT_CONFIG, updateProject, type UpdateOptions } from '../../../src/scaffold/alpha/update.js';
import { initProject, tempProjectDir } from '../helpers.js';

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
