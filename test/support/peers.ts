/**
 * Comparisons with the real tools (controller-gen, kubectl, the controller-runtime peer) run when the tool is here.
 * Locally, a missing tool skips its comparison with a warning; under REQUIRE_PARITY=1 (CI) it fails instead, naming
 * what is missing, so a green run cannot hide that a comparison never ran.
 */
import { spawnSync } from 'node:child_process';

/** Whether the comparison `what` can run: true when `missing` is undefined; else warns, or throws under REQUIRE_PARITY=1. */
export function peerAvailable(what: string, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  const message = `${what} cannot run: ${missing}`;
  if (process.env.REQUIRE_PARITY === '1')
    throw new Error(
      `${message} (REQUIRE_PARITY=1 is set, as in CI: install it, or unset REQUIRE_PARITY to skip locally)`,
    );
  console.warn(`SKIPPED: ${message}`);
  return false;
}

/** The path of `command` on PATH, or undefined. */
export function onPath(command: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : undefined;
}

/**
 * The peer tool `find` returns (a path, say). When `find` throws, the peer is reported missing as peerAvailable
 * reports it (a failure naming it under REQUIRE_PARITY=1, a loud skip line otherwise) and the error is thrown on, so
 * the suite's setup stops there.
 */
export async function requirePeer<T>(what: string, find: () => T | Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (err) {
    peerAvailable(what, (err as Error).message);
    throw err;
  }
}
