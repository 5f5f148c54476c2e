/**
 * A lock file holding the owner's pid, so that concurrent `scaffold envtest use` runs (say, two
 * `npm test`s) build a version once: the second waits, then finds the cache filled. A lock whose
 * owner is gone is taken over.
 */
import { readFileSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LockOptions {
  signal?: AbortSignal;
  /** Called once when another live process holds the lock. */
  onWait?: (ownerPid: number) => void;
  /** Called every `reportMs` while we wait, so that a wait of minutes is not silent. */
  onStillWaiting?: (ownerPid: number, waitedMs: number) => void;
  /** Called when the owner we waited for died without releasing the lock, just before we take it over. */
  onOwnerGone?: (ownerPid: number) => void;
  pollMs?: number;
  /** Milliseconds between onStillWaiting calls; default 30 s. */
  reportMs?: number;
  /** The clock of onStillWaiting; default Date.now. */
  now?: () => number;
  /** A second line of the lock file after the owner's pid, for those who wait (the build names its log there). */
  note?: string;
}

/**
 * Whether `pid` runs. A zombie (dead, not yet reaped: its parent was killed too, and a container's pid 1 may never
 * reap it) answers signal 0 as if alive, so /proc decides where there is one.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS): signal 0 is all we know
  }
}

async function readOwner(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Waits for and takes the lock; resolves to its release function. */
export async function acquireLock(path: string, opts: LockOptions = {}): Promise<() => Promise<void>> {
  const now = opts.now ?? Date.now;
  const reportMs = opts.reportMs ?? 30_000;
  let waitedFor: { pid: number; since: number; reported: number } | undefined;
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      const fh = await open(path, 'wx');
      await fh.writeFile(opts.note === undefined ? String(process.pid) : `${process.pid}\n${opts.note}\n`);
      await fh.close();
      return async () => {
        if ((await readOwner(path)) === process.pid) await unlink(path).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await readOwner(path);
    if (owner === undefined || !isAlive(owner)) {
      // The owner died (or had not yet written its pid: give it a moment before judging).
      if (owner === undefined) await sleep(200);
      if ((await readOwner(path)) === owner) {
        if (owner !== undefined && waitedFor?.pid === owner) opts.onOwnerGone?.(owner);
        await unlink(path).catch(() => undefined);
      }
      continue;
    }
    if (waitedFor?.pid !== owner) {
      waitedFor = { pid: owner, since: now(), reported: now() };
      opts.onWait?.(owner);
    } else if (now() - waitedFor.reported >= reportMs) {
      waitedFor.reported = now();
      opts.onStillWaiting?.(owner, now() - waitedFor.since);
    }
    try {
      await sleep(opts.pollMs ?? 1000, undefined, { signal: opts.signal });
    } catch (err) {
      opts.signal?.throwIfAborted(); // rethrow the caller's reason rather than a generic AbortError
      throw err;
    }
  }
}
