import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/envtest/binaries/lock.js';
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
});
