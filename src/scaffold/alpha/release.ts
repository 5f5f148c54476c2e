import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The registry npm would fetch from here, for messages. */
function registryOf(cwd: string): string {
  const result = npm(['config', 'get', 'registry'], cwd);
  return result.status === 0 ? result.stdout.trim() : 'the npm registry';
}

/**
 * Checks, before anything is changed, that npm can fetch `kubescaffold@version` from the registry it is configured
 * with; refuses a version that is not published there, naming the registry.
 */
export function checkReleaseExists(version: string, cwd: string): void {
  const result = npm(['view', `${CLI_PACKAGE}@${version}`, 'version', '--json'], cwd);
  const found = result.status === 0 && result.stdout.trim() !== '' && result.stdout.includes(version);
  if (found) return;
  const e404 = /E404|404 Not Found|No match found/.test(result.stderr);
  if (result.status === 0 || e404) {
    throw new ScaffoldError(
      `${CLI_PACKAGE} ${version} is not published on ${registryOf(cwd)}; \`npm view ${CLI_PACKAGE} versions\` lists the releases there`,
    );
  }
  const said = result.stderr.trim().split('\n').slice(-3).join(' ');
  throw new ScaffoldError(`npm could not look up ${CLI_PACKAGE}@${version}: ${said}`);
}

/**
 * Installs `kubescaffold@version` (that exact version, with its dependencies) into `dir` as npm installs any package,
 * with the user's registry and cache, and returns the path of its CLI's entry script. Install scripts are not run:
 * the release only has to scaffold.
 */
export function installRelease(version: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true }, null, 2)}\n`);
  const args = [
    'install',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    '--save-exact',
    '--no-package-lock',
    `${CLI_PACKAGE}@${version}`,
  ];
  const result = npm(args, dir);
  const bin = join(dir, 'node_modules', CLI_PACKAGE, 'bin', 'scaffold.js');
  if (result.status !== 0 || !existsSync(bin)) {
    const said = result.stderr.trim().split('\n').slice(-5).join('\n');
    throw new ScaffoldError(`could not install ${CLI_PACKAGE}@${version} (npm ${args.join(' ')}):\n${said}`);
  }
  return bin;
}

/**
 * Runs the installed release's own `alpha generate`, which scaffolds the project of `inputDir`'s PROJECT into
 * `outputDir` as that release scaffolds it.
 */
export function generateWithRelease(bin: string, version: string, inputDir: string, outputDir: string): void {
  const args = [bin, 'alpha', 'generate', '--input-dir', inputDir, '--output-dir', outputDir];
  const result = spawnSync(process.execPath, args, { cwd: inputDir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    const said = `${result.stderr ?? ''}${result.error?.message ?? ''}`.trim().split('\n').slice(-8).join('\n');
    throw new ScaffoldError(
      `${CLI_PACKAGE} ${version} could not scaffold the project again from its PROJECT (scaffold alpha generate):\n${said}`,
    );
  }
}
