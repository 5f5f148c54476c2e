/** Writes generated files, touching only those whose content changed (so watchers and make see real changes). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A generated file: its absolute path and full content. */
export interface GeneratedFile {
  /** Absolute path. */
  path: string;
  content: string;
}

/**
 * Returns the paths that were written (new or changed). `known` remembers what each path held after an earlier
 * call, so repeated runs (--watch) do not re-read files they wrote themselves.
 */
export function writeChanged(files: readonly GeneratedFile[], known?: Map<string, string>): string[] {
  const written: string[] = [];
  for (const f of files) {
    if (known?.get(f.path) === f.content) continue;
    known?.set(f.path, f.content);
    if (holds(f.path, f.content)) continue;
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
    written.push(f.path);
  }
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
