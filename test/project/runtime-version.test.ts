// Version skew between a project and the CLI run in it (src/project/runtime-version.ts): the project's runtime must be
// one the CLI generates code for, or the command says what to do in one line and writes nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRuntimeVersion, runtimeSkew, type RunningCli } from '../../src/project/runtime-version.js';
import { compareVersions, parseRange, parseVersion, satisfies } from '../../src/project/semver.js';
import { listFiles, tempDir } from '../support/files.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const work = tempDir('kubescaffold-skew-');
afterAll(() => work.remove());

/** A project folder whose package.json asks for the runtime at `spec`, with `installed` in node_modules if given. */
function project(spec: string | undefined, installed?: string): string {
  const root = join(work.path, `p-${Math.random().toString(36).slice(2)}`);
  mkdirSync(root);
  writeFileSync(
    join(root, 'PROJECT'),
    'domain: example.com\nlayout:\n- typescript.kubescaffold.io/v1\nprojectName: p\nversion: "3"\n',
  );
  const dependencies = spec === undefined ? {} : { '@kubescaffold/runtime': spec };
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'p', dependencies }));
  if (installed !== undefined) {
    const dir = join(root, 'node_modules', '@kubescaffold', 'runtime');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@kubescaffold/runtime', version: installed }));
  }
  return root;
}

const v = (text: string) => parseVersion(text)!;
const cli = (version: string, dir = join(work.path, 'other-cli')): RunningCli => ({
  version,
  runtimeRange: `^${version}`,
  dir,
});

describe('semver, as far as the skew check needs it', () => {
  it('orders versions, a prerelease before its release', () => {
    const sorted = ['1.0.0', '0.10.0', '0.2.0', '1.0.0-rc.10', '1.0.0-rc.2', '0.2.1'].map(v).sort(compareVersions);
    expect(
      sorted.map((x) => `${x.major}.${x.minor}.${x.patch}${x.prerelease.length ? '-' + x.prerelease.join('.') : ''}`),
    ).toEqual(['0.2.0', '0.2.1', '0.10.0', '1.0.0-rc.2', '1.0.0-rc.10', '1.0.0']);
  });

  it('reads caret, tilde and exact ranges as npm does: ^0.y.z stays on 0.y, ^x.y.z on x', () => {
    const inRange = (version: string, range: string) => satisfies(v(version), parseRange(range)!);
    expect([inRange('0.1.5', '^0.1.0'), inRange('0.2.0', '^0.1.0'), inRange('0.0.9', '^0.1.0')]).toEqual([
      true,
      false,
      false,
    ]);
    expect([inRange('1.9.0', '^1.2.0'), inRange('2.0.0', '^1.2.0'), inRange('0.0.4', '^0.0.3')]).toEqual([
      true,
      false,
      false,
    ]);
    expect([
      inRange('1.2.9', '~1.2.3'),
      inRange('1.3.0', '~1.2.3'),
      inRange('1.2.3', '1.2.3'),
      inRange('1.2.4', '1.2.3'),
    ]).toEqual([true, false, true, false]);
    expect(parseRange('latest')).toBeUndefined();
    expect(parseRange('>=1.0.0 <2')).toBeUndefined();
  });
});

describe("the project's runtime version", () => {
  it('is the installed one, else the version its package.json asks for, else unknown', () => {
    expect(projectRuntimeVersion(project('^0.1.0', '0.1.3'))).toEqual(v('0.1.3'));
    expect(projectRuntimeVersion(project('^0.2.0'))).toEqual(v('0.2.0'));
    expect(projectRuntimeVersion(project('file:vendor/kubescaffold-runtime-0.1.0.tgz'))).toEqual(v('0.1.0'));
    expect(projectRuntimeVersion(project('latest'))).toBeUndefined();
    expect(projectRuntimeVersion(project(undefined))).toBeUndefined();
  });
});

describe('runtimeSkew', () => {
  it('says nothing when the project runs a runtime the CLI generates for, or one it cannot know', () => {
    expect(runtimeSkew(project('^0.1.0', '0.1.0'), cli('0.1.0'))).toBeUndefined();
    // A newer patch of the same release line is one the older CLI generates for.
    expect(runtimeSkew(project('^0.1.3', '0.1.3'), cli('0.1.0'))).toBeUndefined();
    expect(runtimeSkew(project('latest'), cli('0.1.0'))).toBeUndefined();
  });

  it('tells a newer CLI in an older project to use the project’s own CLI or to upgrade it', () => {
    expect(runtimeSkew(project('^0.1.0', '0.1.0'), cli('0.2.0'))).toBe(
      "this project's @kubescaffold/runtime is 0.1.0, and kubescaffold 0.2.0 generates code for @kubescaffold/runtime ^0.2.0: run the project's own CLI, `npx scaffold`, or upgrade the project with `npm install @kubescaffold/runtime@^0.2.0 && npm install -D kubescaffold@^0.2.0 @kubescaffold/envtest@^0.2.0` (upgrade notes: https://github.com/kubescaffold/kubescaffold/blob/main/docs/changelog.md)",
    );
  });

  it('tells an older CLI in a newer project to use the project’s own CLI', () => {
    expect(runtimeSkew(project('^0.2.0'), cli('0.1.0'))).toBe(
      "this project's @kubescaffold/runtime is 0.2.0, and kubescaffold 0.1.0 generates code for @kubescaffold/runtime ^0.1.0, an older release: run the project's own CLI, `npx scaffold` (after `npm install`), not this one",
    );
  });

  it("tells the project's own CLI, when the runtime was left on another release, to put the three on one", () => {
    const root = project('^0.1.0', '0.1.0');
    const own = join(work.path, `own-cli-${Math.random().toString(36).slice(2)}`);
    mkdirSync(own);
    symlinkSync(own, join(root, 'node_modules', 'kubescaffold'));
    expect(runtimeSkew(root, cli('0.2.0', own))).toMatch(
      /^this project's @kubescaffold\/runtime is 0\.1\.0, and kubescaffold 0\.2\.0 generates code for @kubescaffold\/runtime \^0\.2\.0: put the three packages on one release with `npm install @kubescaffold\/runtime@\^0\.2\.0 && npm install -D kubescaffold@\^0\.2\.0 @kubescaffold\/envtest@\^0\.2\.0`/,
    );
  });

  it('stops `scaffold create api` before it writes anything, with one line and exit 1', () => {
    const root = project('^99.0.0', '99.0.0');
    const before = listFiles(root).map((f) => [f, readFileSync(join(root, f), 'utf8')]);
    const result = spawnSync(
      process.execPath,
      [
        join(repoRoot, 'bin', 'scaffold.js'),
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Captain',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const cliRange = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    ).dependencies['@kubescaffold/runtime'];
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Error: this project's @kubescaffold/runtime is 99\\.0\\.0, and kubescaffold \\S+ generates code for @kubescaffold/runtime \\${cliRange}, an older release: run the project's own CLI`,
        ),
      ),
    ]);
    expect(listFiles(root).map((f) => [f, readFileSync(join(root, f), 'utf8')])).toEqual(before);
  });
});
