import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, isAlive } from '../../src/envtest/binaries/lock.js';
import { eventually } from '../support/eventually.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lock-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('acquireLock', () => {
  it('lets one holder in at a time; the next gets in after release', async () => {
    const path = join(dir, 'a.lock');
    const release = await acquireLock(path);
    expect(await readFile(path, 'utf8')).toBe(String(process.pid));
    const waits: number[] = [];
    let second = false;
    const next = acquireLock(path, { pollMs: 20, onWait: (pid) => waits.push(pid) }).then((r) => {
      second = true;
      return r;
    });
    // It has seen the lock held (onWait) and keeps waiting.
    await eventually(() => waits.length > 0, 'the second caller to find the lock held');
    expect(second).toBe(false);
    expect(waits).toEqual([process.pid]);
    await release();
    await (
      await next
    )();
    expect(second).toBe(true);
  });

  it('takes over a lock whose owner is gone', async () => {
    const path = join(dir, 'stale.lock');
    await writeFile(path, '2147483646'); // no such pid
    const release = await acquireLock(path, { pollMs: 20 });
    expect(await readFile(path, 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('stops waiting when aborted', async () => {
    const path = join(dir, 'b.lock');
    const release = await acquireLock(path);
    const ac = new AbortController();
    const waiting = acquireLock(path, { pollMs: 20, signal: ac.signal });
    ac.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
    await release();
  });

  it('says every reportMs how long it has waited for which pid, and takes over as soon as that process dies', async () => {
    const path = join(dir, 'owner-dies.lock');
    const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      await writeFile(path, String(owner.pid));
      let t = 0;
      const events: string[] = [];
      const acquired = acquireLock(path, {
        pollMs: 10,
        reportMs: 30_000,
        now: () => t,
        onWait: (pid) => events.push(`wait ${pid}`),
        onStillWaiting: (pid, ms) => events.push(`still ${pid} ${ms}`),
        onOwnerGone: (pid) => events.push(`gone ${pid}`),
      });
      await eventually(() => events.length === 1, 'the wait to be reported');
      t = 30_000;
      await eventually(() => events.length === 2, 'a report of the time waited');
      t = 45_000; // less than reportMs since the last report: nothing new
      owner.kill('SIGKILL');
      await once(owner, 'exit');
      const release = await acquired;
      expect(events).toEqual([`wait ${owner.pid}`, `still ${owner.pid} 30000`, `gone ${owner.pid}`]);
      expect(await readFile(path, 'utf8')).toBe(String(process.pid));
      await release();
    } finally {
      owner.kill('SIGKILL');
    }
  });

  it('takes over at once from a zombie owner: killed, but never reaped because its parent went too', async () => {
    // sh starts a subshell in the background and becomes `sleep 600`, which never reaps it. The subshell exits only
    // once its parent is `sleep` (/proc/<sh>/comm): one that exited before the exec would be reaped by sh itself.
    const script =
      'p=$$; (while read -r c < /proc/$p/comm && [ "$c" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 600';
    const parent: ChildProcess = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [out] = (await once(parent.stdout!, 'data')) as [Buffer];
      const zombie = Number.parseInt(out.toString(), 10);
      const state = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0];
      await eventually(() => state() === 'Z', 'the background sleep to exit and stay unreaped');
      expect(isAlive(zombie)).toBe(false);
      const path = join(dir, 'zombie.lock');
      await writeFile(path, String(zombie));
      const waits: number[] = [];
      const release = await acquireLock(path, {
        pollMs: 10,
        onWait: (pid) => waits.push(pid),
        signal: AbortSignal.timeout(10_000),
      });
      expect(waits).toEqual([]);
      expect(await readFile(path, 'utf8')).toBe(String(process.pid));
      await release();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
