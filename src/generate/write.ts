/** Writes generated files, touching only those whose content changed (so watchers and make see real changes). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { resolveInProject } from '../files/confine.js';

/** A generated file: its absolute path and full content. */
export interface GeneratedFile {
  /** Absolute path. */
  path: string;
  content: string;
}

/**
 * Returns the paths that were written (new or changed). Every path must stay in the project at `root` once symbolic
 * links are followed (OutsideProjectError otherwise, before anything is written). `known` remembers what each path
 * held after an earlier call, so repeated runs (--watch) do not re-read files they wrote themselves.
 */
export function writeChanged(root: string, files: readonly GeneratedFile[], known?: Map<string, string>): string[] {
  const targets = files.map((f) => resolveInProject(root, f.path, 'write'));
  const written: string[] = [];
  files.forEach((f, i) => {
    const target = targets[i]!;
    if (known?.get(f.path) === f.content) return;
    known?.set(f.path, f.content);
    if (holds(target, f.content)) return;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.content);
    written.push(f.path);
  });
  return written;
}

/** Whether the file holds exactly `content` (UTF-8); read as bytes, which is quicker than decoding it. */
function holds(path: string, content: string): boolean {
  let old: Buffer;
  try {
    old = readFileSync(path);
  } catch {
    return false;
  }
  const size = Buffer.byteLength(content);
  if (old.length !== size) return false;
  // as bytes, outside the JS heap; ASCII text (a manifest nearly always is) is copied without encoding it
  return old.equals(Buffer.from(content, size === content.length ? 'latin1' : 'utf8'));
}
