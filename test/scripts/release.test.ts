// The release (scripts/release.js): one version for the three packages with their ranges on each other following, the
// tarballs' checks, and its dry run on this checkout, which does everything but publish. test/e2e/registry.test.ts
// publishes with it for real, to a local registry.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RELEASE_ORDER, atVersion, releaseVersion, setReleaseVersion } from '../../scripts/lib/release.js';
import {
  TARBALL_BUDGETS,
  missingEntryPoints,
  tarballProblems,
  type PackedPackage,
} from '../../scripts/lib/tarballs.js';
import { minutes } from '../support/commands.js';
import { tempDir } from '../support/files.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const work = tempDir('kubescaffold-release-');
afterAll(() => work.remove());

/** A copy of the checkout's three package.json files and its lock, where the release may change them. */
function copyOfManifests(): string {
  const dir = join(work.path, `copy-${Math.random().toString(36).slice(2)}`);
  for (const { dir: pkgDir } of RELEASE_ORDER) {
    mkdirSync(join(dir, pkgDir), { recursive: true });
    copyFileSync(join(repoRoot, pkgDir, 'package.json'), join(dir, pkgDir, 'package.json'));
  }
  copyFileSync(join(repoRoot, 'package-lock.json'), join(dir, 'package-lock.json'));
  return dir;
}

describe('the release', () => {
  it('puts the three packages on one version, their ranges on each other following, and leaves other ranges alone', () => {
    const dir = copyOfManifests();
    const changed = setReleaseVersion(dir, '2.3.4');
    expect(changed.sort()).toEqual(
      ['package-lock.json', 'package.json', 'src/envtest/package.json', 'src/runtime/package.json'].sort(),
    );
    expect(releaseVersion(dir)).toBe('2.3.4');
    const cli = readJson(join(dir, 'package.json')) as { dependencies: Record<string, string> };
    expect(cli.dependencies['@kubescaffold/runtime']).toBe('^2.3.4');
    expect(cli.dependencies['@kubescaffold/envtest']).toBe('^2.3.4');
    const before = readJson(join(repoRoot, 'package.json')) as { dependencies: Record<string, string> };
    expect(cli.dependencies.commander).toBe(before.dependencies.commander);
    const envtest = readJson(join(dir, 'src/envtest/package.json')) as { dependencies: Record<string, string> };
    expect(envtest.dependencies['@kubescaffold/runtime']).toBe('^2.3.4');
    // The lock's entries for the workspaces and the root follow, so npm ci accepts it.
    const lock = readJson(join(dir, 'package-lock.json')) as {
      version: string;
      packages: Record<string, { version: string; dependencies?: Record<string, string> }>;
    };
    expect([lock.version, lock.packages['']!.version, lock.packages['src/runtime']!.version]).toEqual([
      '2.3.4',
      '2.3.4',
      '2.3.4',
    ]);
    expect(lock.packages['src/envtest']!.dependencies!['@kubescaffold/runtime']).toBe('^2.3.4');
    // Run again at the same version, it has nothing to change.
    expect(setReleaseVersion(dir, '2.3.4')).toEqual([]);
  });

  it('refuses a version npm cannot publish, changing nothing', () => {
    const dir = copyOfManifests();
    const before = readFileSync(join(dir, 'package.json'), 'utf8');
    expect(() => setReleaseVersion(dir, '1.2')).toThrow(/"1.2" is not a version npm can publish/);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(before);
    const cli = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'release.js'), '1.2', '--dry-run'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(cli.status).toBe(1);
    expect(cli.stderr.trim()).toBe('release: "1.2" is not a version npm can publish (x.y.z[-pre])');
  });

  it('keeps the version of a package that is not one of the three', () => {
    expect(atVersion({ name: 'x', version: '1.0.0', dependencies: { yaml: '^2.0.0' } }, '3.0.0')).toEqual({
      name: 'x',
      version: '3.0.0',
      dependencies: { yaml: '^2.0.0' },
    });
  });

  it("names each tarball's problem: a source map, a missing LICENSE, a size over its budget, a package missing", () => {
    const pkg = (name: string, files: string[], size = 1000): PackedPackage => ({
      name,
      version: '1.0.0',
      filename: `${name}.tgz`,
      size,
      unpackedSize: size * 3,
      files: files.map((path) => ({ path })),
    });
    const good = ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts'];
    expect(
      tarballProblems([
        pkg('kubescaffold', good),
        pkg('@kubescaffold/runtime', [...good, 'dist/index.js.map', 'test/x.test.ts']),
        pkg('@kubescaffold/envtest', good),
      ]),
    ).toEqual([
      '@kubescaffold/runtime: ships dist/index.js.map, which it should not',
      '@kubescaffold/runtime: ships test/x.test.ts, which it should not',
    ]);
    const runtimeBudget = TARBALL_BUDGETS['@kubescaffold/runtime'].packed;
    expect(
      tarballProblems([pkg('kubescaffold', good.slice(1)), pkg('@kubescaffold/runtime', good, runtimeBudget + 1024)]),
    ).toEqual([
      '@kubescaffold/envtest: not packed',
      'kubescaffold: no LICENSE',
      `@kubescaffold/runtime: ${((runtimeBudget + 1024) / 1024).toFixed(1)} KiB packed, over its budget of ${(runtimeBudget / 1024).toFixed(1)} KiB`,
    ]);
  });

  it('names the entry points package.json exports or bins that a tarball does not hold; TypeScript sources are not entry points', () => {
    const manifest = {
      bin: { tool: 'bin/tool.js' },
      exports: {
        '.': { 'kubescaffold-source': './index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
        './sub': { types: './dist/sub/index.d.ts', import: './dist/sub/index.js' },
        './package.json': './package.json',
      },
    };
    const all = [
      'bin/tool.js',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/sub/index.d.ts',
      'dist/sub/index.js',
      'package.json',
    ];
    expect(missingEntryPoints(manifest, all)).toEqual([]);
    expect(
      missingEntryPoints(
        manifest,
        all.filter((p) => !p.startsWith('dist/sub/') && p !== 'bin/tool.js'),
      ),
    ).toEqual(['bin/tool.js', 'dist/sub/index.d.ts', 'dist/sub/index.js']);
  });

  it(
    'dry run on this checkout: packs and checks the tarballs, and goes as far as npm publish --dry-run, runtime, envtest, then the CLI, changing no file',
    () => {
      if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
        throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
      const manifests = RELEASE_ORDER.map(({ dir }) => readFileSync(join(repoRoot, dir, 'package.json'), 'utf8'));
      const lock = readFileSync(join(repoRoot, 'package-lock.json'), 'utf8');
      const version = releaseVersion(repoRoot);
      // --skip-build: npm test has built dist/; the release workflow's dry run builds.
      const result = spawnSync(
        process.execPath,
        [join(repoRoot, 'scripts', 'release.js'), version, '--dry-run', '--skip-build'],
        { cwd: repoRoot, encoding: 'utf8', timeout: minutes(3), env: { ...process.env, GITHUB_ACTIONS: '' } },
      );
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
      const said = result.stdout.split('\n');
      expect(said).toContain(`release ${version}: the packages are on it already`);
      for (const name of ['kubescaffold', 'kubescaffold-runtime', 'kubescaffold-envtest'])
        expect(said.some((line) => line.startsWith(`checked ${name}-${version}.tgz: `))).toBe(true);
      expect(said).toContain('publishing without --provenance: it needs GitHub Actions (the release workflow)');
      // Each package is either one the registry does not have yet (would publish) or one it has (skipped), in order.
      const order = said
        .map((line) => /^(?:would publish (\S+)@|(\S+)@\S+ is on the registry already)/.exec(line))
        .filter((m) => m !== null)
        .map((m) => m[1] ?? m[2]);
      expect(order).toEqual(['@kubescaffold/runtime', '@kubescaffold/envtest', 'kubescaffold']);
      expect(said).toContain(`release ${version}: dry run done, nothing published`);
      expect(RELEASE_ORDER.map(({ dir }) => readFileSync(join(repoRoot, dir, 'package.json'), 'utf8'))).toEqual(
        manifests,
      );
      expect(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')).toBe(lock);
    },
    minutes(4),
  );
});
