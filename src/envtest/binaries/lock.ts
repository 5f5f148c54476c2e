/**
 * A lock file holding the owner's pid, so that concurrent `scaffold envtest use` runs (say, two
 * `npm test`s) build a version once: the second waits, then finds the cache filled. A lock whose
 * owner is gone is taken over.
 */
import { open, readFile, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LockOptions {
  signal?: AbortSignal;
  /** Called once when another live process holds the lock. */
  onWait?: (ownerPid: number) => void;
  pollMs?: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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
  let warned = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      const fh = await open(path, 'wx');
      await fh.writeFile(String(process.pid));
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
      if ((await readOwner(path)) === owner) await unlink(path).catch(() => undefined);
      continue;
    }
    if (!warned) {
      opts.onWait?.(owner);
      warned = true;
    }
    try {
      await sleep(opts.pollMs ?? 1000, undefined, { signal: opts.signal });
    } catch (err) {
      opts.signal?.throwIfAborted(); // rethrow the caller's reason rather than a generic AbortError
      throw err;
    }
  }
}
