/**
 * The node flags of the image's ENTRYPOINT (a project's Dockerfile): V8 flags that NODE_OPTIONS does not accept
 * live there, before the script. A local run passes the ones this Node knows, and says which it cannot.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** The flags between the node binary and the script in a Dockerfile's exec-form ENTRYPOINT ([] without one). */
export function entrypointNodeFlags(file: string): string[] {
  if (!existsSync(file)) return [];
  const m = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(readFileSync(file, 'utf8'));
  if (!m) return [];
  try {
    const argv = JSON.parse(m[1]!) as unknown;
    if (!Array.isArray(argv)) return [];
    return argv.slice(1).filter((a): a is string => typeof a === 'string' && a.startsWith('--'));
  } catch {
    return [];
  }
}

/** `flags` split into those `node` accepts and those it refuses (an older Node, an unknown V8 flag). */
export function supportedNodeFlags(node: string, flags: string[]): { supported: string[]; unsupported: string[] } {
  const supported: string[] = [];
  const unsupported: string[] = [];
  for (const flag of flags)
    (spawnSync(node, [flag, '-e', '0'], { stdio: 'ignore' }).status === 0 ? supported : unsupported).push(flag);
  return { supported, unsupported };
}
