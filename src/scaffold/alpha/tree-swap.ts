import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ScaffoldError } from '../../errors.js';

/**
 * What stays in place when a directory's contents are set aside for a new scaffold: git's own data (the user diffs
 * against it) and the installed dependencies (not the user's work, and slow to install again).
 */
export const KEPT_IN_PLACE: readonly string[] = ['.git', 'node_modules'];

/** The entries of `dir` that a new scaffold would replace: everything but KEPT_IN_PLACE (none when dir is absent). */
export function replaceableEntries(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((entry) => !KEPT_IN_PLACE.includes(entry))
    .sort();
}

/**
 * A fresh, empty directory next to `target` (same filesystem, so its contents can be renamed into place), where the
 * new scaffold is built before anything of the user's is touched.
 */
export function makeStagingDir(target: string): string {
  const parent = dirname(target);
  try {
    mkdirSync(parent, { recursive: true });
    return mkdtempSync(join(parent, `.${basename(target)}.generate-`));
  } catch (err) {
    throw new ScaffoldError(
      `cannot create a working directory next to ${target}: ${(err as Error).message}; the parent directory must be writable`,
      { cause: err },
    );
  }
}

/** The path for a backup of `target`: a sibling named after it and the time, that does not exist yet. */
export function backupPath(target: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const base = join(dirname(target), `${basename(target)}.backup-${stamp}`);
  let path = base;
  for (let n = 2; existsSync(path); n++) path = `${base}-${n}`;
  return path;
}

/**
 * Moves `entries` of `from` into `to` (created when missing). All or nothing: when a rename fails, the entries already
 * moved go back and the error says what happened.
 */
export function moveEntries(from: string, to: string, entries: readonly string[]): void {
  mkdirSync(to, { recursive: true });
  const moved: string[] = [];
  try {
    for (const entry of entries) {
      if (existsSync(join(to, entry))) throw new Error(`${join(to, entry)} already exists`);
      renameSync(join(from, entry), join(to, entry));
      moved.push(entry);
    }
  } catch (err) {
    for (const entry of moved.reverse()) renameSync(join(to, entry), join(from, entry));
    throw new ScaffoldError(`could not move ${from} into ${to}: ${(err as Error).message}; nothing was moved`, {
      cause: err,
    });
  }
}

/** Removes the staging directory of a run that did not finish. */
export function removeStagingDir(staging: string): void {
  rmSync(staging, { recursive: true, force: true });
}

/** Removes a directory that the moves above left empty. */
export function removeEmptyDir(dir: string): void {
  rmdirSync(dir);
}
