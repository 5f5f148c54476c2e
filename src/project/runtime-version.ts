/**
 * Version skew between a project and the CLI run in it. A project depends on one release of @kubescaffold/runtime; the
 * code a CLI generates (types, controllers, webhooks, cmd/main.ts's registrations) is written for the runtime range the
 * CLI itself depends on. When the project's runtime is outside that range, the CLI says what to do in one line rather
 * than write code for another runtime.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { aboveRange, formatVersion, parseRange, parseVersion, satisfies, type Version } from './semver.js';

/** The CLI that runs: its version, the runtime range it generates code for, and the folder it is installed in. */
export interface RunningCli {
  version: string;
  /** Its package.json's range on @kubescaffold/runtime, e.g. ^0.2.0. */
  runtimeRange: string;
  /** Its package folder, to tell the project's own installed CLI from another. */
  dir: string;
}

const RUNTIME = '@kubescaffold/runtime';
const CHANGELOG = 'https://github.com/kubescaffold/kubescaffold/blob/main/docs/changelog.md';

interface ProjectPackage {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The version of a package.json file, if the file is there and says one. */
function installedVersion(path: string): Version | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const { version } = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? parseVersion(version) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The runtime version the project at `root` runs: the installed one, or without node_modules the version its
 * package.json asks for (a range's base, or a vendored tarball's version). Undefined when the project does not depend on
 * the runtime or names it in a way this cannot read (a tag, a URL).
 */
export function projectRuntimeVersion(root: string): Version | undefined {
  let pkg: ProjectPackage;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as ProjectPackage;
  } catch {
    return undefined;
  }
  const spec = pkg.dependencies?.[RUNTIME] ?? pkg.devDependencies?.[RUNTIME];
  if (spec === undefined) return undefined;
  const installed = installedVersion(join(root, 'node_modules', '@kubescaffold', 'runtime', 'package.json'));
  if (installed) return installed;
  const vendored = /kubescaffold-runtime-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/.exec(spec);
  return vendored ? parseVersion(vendored[1]!) : parseRange(spec)?.base;
}

/** Whether `cli` is the project's own CLI: the kubescaffold installed in its node_modules. */
function isProjectsOwnCli(root: string, cli: RunningCli): boolean {
  const own = join(root, 'node_modules', 'kubescaffold');
  try {
    return existsSync(own) && realpathSync(own) === realpathSync(cli.dir);
  } catch {
    return false;
  }
}

/**
 * What to do, in one line, when the project at `root` runs a runtime `cli` does not generate code for; undefined when
 * they match, or when the project's runtime version cannot be known.
 */
export function runtimeSkew(root: string, cli: RunningCli): string | undefined {
  const range = parseRange(cli.runtimeRange);
  const runtime = projectRuntimeVersion(root);
  if (!range || !runtime || satisfies(runtime, range)) return undefined;
  const has = `this project's ${RUNTIME} is ${formatVersion(runtime)}, and kubescaffold ${cli.version} generates code for ${RUNTIME} ${cli.runtimeRange}`;
  const upgrade = `npm install ${RUNTIME}@^${cli.version} && npm install -D kubescaffold@^${cli.version} @kubescaffold/envtest@^${cli.version}`;
  if (isProjectsOwnCli(root, cli))
    return `${has}: put the three packages on one release with \`${upgrade}\` (upgrade notes: ${CHANGELOG})`;
  if (aboveRange(runtime, range))
    return `${has}, an older release: run the project's own CLI, \`npx scaffold\` (after \`npm install\`), not this one`;
  return `${has}: run the project's own CLI, \`npx scaffold\`, or upgrade the project with \`${upgrade}\` (upgrade notes: ${CHANGELOG})`;
}

/** Throws runtimeSkew's line as a ScaffoldError, before a command writes anything. */
export function checkRuntimeSkew(root: string, cli: RunningCli): void {
  const problem = runtimeSkew(root, cli);
  if (problem !== undefined) throw new ScaffoldError(problem);
}
