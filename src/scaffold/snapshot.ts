import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

// A chain of plugins is several scaffold runs, each of which writes all or nothing; a later one failing must leave the
// project as the first found it. A snapshot of the project taken before the chain is what puts it back.

/** Folders no scaffold writes into, which a snapshot neither records nor restores. */
const UNTRACKED = new Set(['.git', 'node_modules']);

/** Files bigger than this are recorded by size and time only: no scaffold writes them, and a copy would cost memory. */
const MAX_COPIED_BYTES = 16 * 1024 * 1024;

type Entry =
  | { type: 'file'; content: Buffer; mode: number }
  | { type: 'large'; size: number; mtimeMs: number }
  | { type: 'link'; target: string }
  | { type: 'dir' };

/** The project's files as they were, and how to put them back. */
export interface ProjectSnapshot {
  /**
   * Puts the project back as it was: files created since are removed (new folders with all they hold), changed ones
   * get their content and mode back, removed ones come back. Returns the large files that changed and could not be
   * restored (none, unless something outside scaffold rewrote one).
   */
  restore(): string[];
}

/** Records every file and folder below root (except .git and node_modules), for restore(). */
export function snapshotProject(root: string): ProjectSnapshot {
  const before = walk(root);
  return { restore: () => restore(root, before) };
}

function walk(root: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const visit = (rel: string): void => {
    const absolute = join(root, rel);
    let names: string[];
    try {
      names = readdirSync(absolute);
    } catch {
      return;
    }
    for (const name of names) {
      if (UNTRACKED.has(name)) continue;
      const path = rel === '' ? name : join(rel, name);
      const entry = read(join(root, path));
      if (entry === undefined) continue;
      entries.set(path, entry);
      if (entry.type === 'dir') visit(path);
    }
  };
  visit('');
  return entries;
}

function read(absolute: string): Entry | undefined {
  let stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    return undefined;
  }
  if (stats.isSymbolicLink()) return { type: 'link', target: readlinkSync(absolute) };
  if (stats.isDirectory()) return { type: 'dir' };
  if (!stats.isFile()) return undefined;
  if (stats.size > MAX_COPIED_BYTES) return { type: 'large', size: stats.size, mtimeMs: stats.mtimeMs };
  return { type: 'file', content: readFileSync(absolute), mode: stats.mode & 0o7777 };
}

function same(a: Entry, b: Entry): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'file' && b.type === 'file') return a.content.equals(b.content) && a.mode === b.mode;
  if (a.type === 'large' && b.type === 'large') return a.size === b.size && a.mtimeMs === b.mtimeMs;
  if (a.type === 'link' && b.type === 'link') return a.target === b.target;
  return true;
}

function restore(root: string, before: Map<string, Entry>): string[] {
  const now = walk(root);
  const unrestorable: string[] = [];
  // Remove what is new, shallowest first: a new folder goes with everything in it.
  const paths = [...now.keys()].sort((a, b) => a.length - b.length);
  const removed: string[] = [];
  for (const path of paths) {
    if (removed.some((dir) => path.startsWith(`${dir}/`))) continue;
    const old = before.get(path);
    const current = now.get(path)!;
    if (old !== undefined && (old.type === current.type || old.type === 'large')) continue;
    rmSync(join(root, path), { recursive: true, force: true });
    removed.push(path);
  }
  // Put back what changed or went, parents before children.
  for (const [path, old] of [...before].sort(([a], [b]) => a.length - b.length)) {
    const absolute = join(root, path);
    const current = read(absolute);
    if (current !== undefined && same(old, current)) continue;
    if (old.type === 'large') {
      unrestorable.push(path);
      continue;
    }
    if (old.type === 'dir') {
      mkdirSync(absolute, { recursive: true });
      continue;
    }
    if (current !== undefined) rmSync(absolute, { recursive: true, force: true });
    mkdirSync(dirname(absolute), { recursive: true });
    if (old.type === 'link') symlinkSync(old.target, absolute);
    else {
      writeFileSync(absolute, old.content, { mode: old.mode });
      chmodSync(absolute, old.mode);
    }
  }
  return unrestorable;
}
