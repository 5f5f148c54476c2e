/**
 * Lets `scaffold manifests` and `scaffold generate` skip all work (including loading the TypeScript compiler) when
 * no source, option or generator version changed since their last run and the files they wrote are untouched:
 * `make test`, `make build` and `make run` call both every time. The stamp lives in the project's
 * node_modules/.cache/kubescaffold/, so a project without node_modules never skips anything.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandPaths, listSourceFiles } from '../markers/paths.js';

interface Stamp {
  key: string;
  outputs: Record<string, { size: number; mtimeMs: number }>;
}

function stampPath(root: string, name: string): string | undefined {
  const modules = join(root, 'node_modules');
  return existsSync(modules) ? join(modules, '.cache', 'kubescaffold', `${name}.json`) : undefined;
}

/** A digest of every source file the default paths select, plus `extra` (options, versions, other inputs). */
export function inputKey(root: string, extra: unknown): string {
  const h = createHash('sha256').update(JSON.stringify(extra));
  for (const dir of expandPaths(root, ['./...'])) {
    for (const file of listSourceFiles(dir)) {
      if (/(^|\/)zz_generated\.[^/]*$/.test(file)) continue; // our own output, written after the key is taken
      h.update(`\0${file}\0`).update(readFileSync(file));
    }
  }
  return h.digest('hex');
}

/** Whether the last run had the same inputs and its outputs are still as it left them. */
export function upToDate(root: string, name: string, key: string): boolean {
  const path = stampPath(root, name);
  if (!path) return false;
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(path, 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.key !== key) return false;
  for (const [file, was] of Object.entries(stamp.outputs)) {
    try {
      const st = statSync(file);
      if (st.size !== was.size || st.mtimeMs !== was.mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Records a successful run: its input key and the state of every file it produced. */
export function recordRun(root: string, name: string, key: string, outputs: readonly string[]): void {
  const path = stampPath(root, name);
  if (!path) return;
  const stamp: Stamp = { key, outputs: {} };
  for (const file of outputs) {
    const st = statSync(file);
    stamp.outputs[file] = { size: st.size, mtimeMs: st.mtimeMs };
  }
  try {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify(stamp));
  } catch {
    // a read-only node_modules only costs the shortcut
  }
}
