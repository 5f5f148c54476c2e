import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaffoldError } from '../../errors.js';

/** The package `alpha update` installs an older or newer release of: this CLI. */
export const CLI_PACKAGE = 'kubescaffold';

/**
 * A version as `--from-version`, `--to-version` and PROJECT's cliVersion give it, without kubebuilder's `v` prefix
 * (npm's versions have none). Refuses anything but a full semantic version, which pins one release.
 */
export function normalizeVersion(given: string, what: string): string {
  const version = given.trim().replace(/^v(?=\d)/, '');
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new ScaffoldError(
      `${what} "${given}" is not a release version; give one as npm lists it, e.g. 0.1.0 (\`npm view ${CLI_PACKAGE} versions\`)`,
    );
  }
  return version;
}

/** Runs npm with the user's configuration (registry, proxy, cache), capturing its output. */
function npm(args: readonly string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    throw new ScaffoldError(`cannot run npm (${result.error.message}); install Node.js with npm and put it on PATH`, {
      cause: result.error,
    });
  }
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** The registry npm fetches packages from when run in `cwd` (the user's configuration, the project's .npmrc). */
export function npmRegistry(cwd: string): string {
  const result = npm(['config', 'get', 'registry'], cwd);
  const registry = result.stdout.trim();
  if (result.status !== 0 || registry === '') {
    const said = result.stderr.trim().split('\n').slice(-3).join(' ');
    throw new ScaffoldError(`npm could not say which registry it uses (npm config get registry): ${said}`);
  }
  return registry;
}

/**
 * Checks, before anything is changed, that npm can fetch `kubescaffold@version` from the registry it is configured
 * with; refuses a version that is not published there, naming the registry.
 */
export function checkReleaseExists(version: string, registry: string, cwd: string): void {
  const result = npm(['view', `--registry=${registry}`, `${CLI_PACKAGE}@${version}`, 'version', '--json'], cwd);
  const found = result.status === 0 && result.stdout.trim() !== '' && result.stdout.includes(version);
  if (found) return;
  const e404 = /E404|404 Not Found|No match found/.test(result.stderr);
  if (result.status === 0 || e404) {
    throw new ScaffoldError(
      `${CLI_PACKAGE} ${version} is not published on ${registry}; \`npm view ${CLI_PACKAGE} versions\` lists the releases there`,
    );
  }
  const said = result.stderr.trim().split('\n').slice(-3).join(' ');
  throw new ScaffoldError(`npm could not look up ${CLI_PACKAGE}@${version}: ${said}`);
}

/** Where installed releases are kept between runs: $XDG_CACHE_HOME/kubescaffold/releases, or ~/.cache/kubescaffold/releases. */
export function releaseCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubescaffold', 'releases');
}

/**
 * The directory of one release from one registry in the cache: <root>/<registry host>-<hash of its URL>/kubescaffold@<version>.
 * A release is fetched at one exact version, which a registry does not publish twice, so it never goes stale.
 */
export function releaseDir(cacheRoot: string, registry: string, version: string): string {
  const host = (/^[a-z]+:\/\/([^/]+)/i.exec(registry)?.[1] ?? 'registry').replace(/[^a-zA-Z0-9.-]/g, '_');
  const hash = createHash('sha256').update(registry).digest('hex').slice(0, 12);
  return join(cacheRoot, `${host}-${hash}`, `${CLI_PACKAGE}@${version}`);
}

/** The entry script of a release's CLI in its install directory. */
export const binOf = (dir: string): string => join(dir, 'node_modules', CLI_PACKAGE, 'bin', 'scaffold.js');

/** The entry script of the CLI that runs this code (dist/scaffold/alpha/ is three levels below the package). */
export const ownCli = (): string => fileURLToPath(new URL('../../../bin/scaffold.js', import.meta.url));

/** Runs a CLI entry script with `args` in `cwd` on this Node, capturing what it printed. */
export function runCli(bin: string, cwd: string, args: readonly string[]): { status: number; output: string } {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}`;
  return { status: result.status ?? 1, output };
}

/** Whether `dir` holds an installed release (installRelease renames a whole install into place, or nothing). */
export function isInstalled(dir: string): boolean {
  return existsSync(binOf(dir));
}

/**
 * Installs `kubescaffold@version` (that exact version, with its dependencies) from `registry` into `dir` as npm
 * installs any package, with the user's cache and credentials, unless it is there already. npm installs into a fresh directory next to `dir`, which is renamed into place once complete, so that `dir` holds a whole
 * install or nothing, and two runs at once do not share a half-made one. Install scripts are not run: the release only
 * has to scaffold.
 */
export function installRelease(version: string, registry: string, dir: string): void {
  if (isInstalled(dir)) return;
  // A directory without the entry script is no install of ours to keep (it was emptied by hand, say).
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.installing-`);
  try {
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ private: true }, null, 2)}\n`);
    const args = [
      'install',
      `--registry=${registry}`,
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--save-exact',
      '--no-package-lock',
      `${CLI_PACKAGE}@${version}`,
    ];
    const result = npm(args, staging);
    if (result.status !== 0 || !existsSync(binOf(staging))) {
      const said = result.stderr.trim().split('\n').slice(-5).join('\n');
      throw new ScaffoldError(`could not install ${CLI_PACKAGE}@${version} (npm ${args.join(' ')}):\n${said}`);
    }
    try {
      renameSync(staging, dir);
    } catch (err) {
      // Another run put the same release in place first: use that one.
      if (!isInstalled(dir)) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Runs the installed release's own `alpha generate`, which scaffolds the project of `inputDir`'s PROJECT into
 * `outputDir` as that release scaffolds it. `installDir` is where the release is installed, for the error.
 */
export function generateWithRelease(installDir: string, version: string, inputDir: string, outputDir: string): void {
  const args = ['alpha', 'generate', '--input-dir', inputDir, '--output-dir', outputDir];
  const result = runCli(binOf(installDir), inputDir, args);
  if (result.status !== 0) {
    const said = result.output.trim().split('\n').slice(-8).join('\n');
    throw new ScaffoldError(
      `${CLI_PACKAGE} ${version} could not scaffold the project again from its PROJECT (scaffold alpha generate):\n${said}\n` +
        `(that release is installed in ${installDir}; if the installation is damaged, delete that directory and run again)`,
    );
  }
}
