/**
 * `npm install` in a scaffolded project, done once per test run for each set of dependencies. The e2e tests whose
 * subject is not the install (run --as-deployed, deploy-image, the generated project's build and tests) scaffold their
 * own project, then take its node_modules from the run's first install of the same dependencies: the same
 * package.json dependency fields, the same packed tarballs in vendor/ (compared by content), the same Node. The
 * first project of a kind installs with npm, as a user's would; its node_modules is kept under the run's folder
 * (test/support/install-cache.global.ts), and the next projects get a copy whose files are hard links to it: no test
 * writes into node_modules, and the lockfiles a copy rewrites are replaced, not written through. The e2e tests
 * whose subject is the install (package, registry, the quick start, the tutorial, alpha update, the image, the legacy
 * project) run npm themselves.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { minutes, runCommand, type CommandResult } from './commands.js';

declare module 'vitest' {
  interface ProvidedContext {
    /** The folder where test/support/project-install.ts keeps the run's installs; removed when the run ends. */
    installCache: string;
  }
}

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: unknown;
  allowScripts?: unknown;
}

/** What an install of `project` depends on: the dependency fields, vendor/'s tarballs by content, Node and npm. */
function installKey(project: string, pkg: PackageJson): string {
  const hash = createHash('sha256');
  const { dependencies, devDependencies, overrides, allowScripts } = pkg;
  hash.update(JSON.stringify({ dependencies, devDependencies, overrides, allowScripts, node: process.version }));
  hash.update(runCommand(project, 'npm', ['--version']).output);
  const vendor = join(project, 'vendor');
  if (existsSync(vendor))
    for (const file of readdirSync(vendor).sort()) hash.update(file).update(readFileSync(join(vendor, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Puts the project's own name and version in a lockfile copied from another project of the same dependencies. */
function renameLock(file: string, pkg: PackageJson): void {
  if (!existsSync(file)) return;
  const lock = JSON.parse(readFileSync(file, 'utf8')) as {
    name?: string;
    version?: string;
    packages?: Record<string, { name?: string; version?: string }>;
  };
  lock.name = pkg.name;
  lock.version = pkg.version;
  const root = lock.packages?.[''];
  if (root) Object.assign(root, { name: pkg.name, version: pkg.version });
  // The file may be a hard link into the run's install: a new file leaves that one as it was.
  rmSync(file);
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}

/** `cp -al`: a copy of `from` whose files are hard links, in `to`, which must not exist yet. */
function linkCopy(from: string, to: string): CommandResult {
  return runCommand(from, 'cp', ['-al', from, to]);
}

/** Whether process `pid` is still there (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Blocks this worker for `ms`: the install steps around it are synchronous (spawnSync) too. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Waits while another worker installs the same dependencies (it holds `lock`, a folder naming its pid), until its
 * install is kept, it gives up, or it is gone; at most `limitMs`.
 */
function waitForOtherInstall(lock: string, entry: string, limitMs: number): void {
  const until = Date.now() + limitMs;
  while (!existsSync(join(entry, 'complete')) && existsSync(lock) && Date.now() < until) {
    let owner = Number.NaN;
    try {
      owner = Number(readdirSync(lock)[0]);
    } catch {
      return; // the lock went away between the two looks
    }
    if (owner > 0 && !alive(owner)) return;
    pause(500);
  }
}

/** Copies the run's install `entry` into `project`, with the project's name in its lockfiles. */
function copyInstall(entry: string, project: string, pkg: PackageJson): CommandResult {
  const modules = join(project, 'node_modules');
  const copied = linkCopy(join(entry, 'node_modules'), modules);
  if (copied.status !== 0) return copied;
  copyFileSync(join(entry, 'package-lock.json'), join(project, 'package-lock.json'));
  renameLock(join(project, 'package-lock.json'), pkg);
  renameLock(join(modules, '.package-lock.json'), pkg);
  return copied;
}

/**
 * Installs `project`'s dependencies as `npm install --no-audit --no-fund` does: from the run's earlier install of
 * the same dependencies when there is one (waiting for it when another worker is making it), else with npm,
 * keeping the result for the next project. The result is npm's (status and output) or the copy's; `installed` says
 * which.
 */
export function installProject(project: string): CommandResult & { installed: 'npm' | 'copy' } {
  const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as PackageJson;
  const entry = join(inject('installCache'), installKey(project, pkg));
  const lock = `${entry}.lock`;
  const modules = join(project, 'node_modules');
  let installer = false;
  if (!existsSync(modules) && !existsSync(join(entry, 'complete'))) {
    try {
      mkdirSync(lock);
      mkdirSync(join(lock, String(process.pid)));
      installer = true;
    } catch {
      waitForOtherInstall(lock, entry, minutes(10));
    }
  }
  try {
    if (!installer && !existsSync(modules) && existsSync(join(entry, 'complete'))) {
      const copied = copyInstall(entry, project, pkg);
      if (copied.status === 0) return { ...copied, installed: 'copy' };
      rmSync(modules, { recursive: true, force: true });
    }
    const result = runCommand(project, 'npm', ['install', '--no-audit', '--no-fund']);
    if (installer && result.status === 0) keepInstall(project, entry);
    return { ...result, installed: 'npm' };
  } finally {
    if (installer) rmSync(lock, { recursive: true, force: true });
  }
}

/** Keeps `project`'s fresh install as the run's `entry`: staged, then renamed, so a reader sees it whole or not. */
function keepInstall(project: string, entry: string): void {
  const staging = `${entry}.${process.pid}`;
  try {
    mkdirSync(staging);
    if (linkCopy(join(project, 'node_modules'), join(staging, 'node_modules')).status === 0) {
      copyFileSync(join(project, 'package-lock.json'), join(staging, 'package-lock.json'));
      writeFileSync(join(staging, 'complete'), '');
      renameSync(staging, entry);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
