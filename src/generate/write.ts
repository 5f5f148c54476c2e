/** Writes generated files, touching only those whose content changed (so watchers and make see real changes). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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
    let old: string | undefined;
    try {
      old = readFileSync(f.path, 'utf8');
    } catch {
      old = undefined;
    }
    known?.set(f.path, f.content);
    if (old === f.content) continue;
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
    written.push(f.path);
  }
  return written;
}
