import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SUPERVISOR_SCRIPT } from '../../src/envtest/controlplane/process.js';

/** Pids whose parent is `ppid` (Linux /proc). */
function childrenOf(ppid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        // The command may contain spaces or parentheses; the fields after the last ')' are fixed.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the control-plane supervisor', () => {
  it('ends its binary and removes the temp dir when the process that started it is killed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'supervisor-test-'));
    // A stand-in for the test process: starts a supervised `sleep` the way process.ts does, then waits.
    const parentScript = `
      const { spawn } = require('node:child_process');
      const sup = spawn(process.execPath, ['-e', process.env.SUP, 'sleep', '300'], {
        detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, KUBESCAFFOLD_REMOVE_ON_ORPHAN: process.env.DIR },
      });
      console.log(sup.pid);
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', parentScript], {
      env: { ...process.env, SUP: SUPERVISOR_SCRIPT, DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const supervisorPid = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (b: Buffer) => resolve(Number(b.toString().trim()))),
      );
      let sleeper = 0;
      // The child is listed from its fork on; its cmdline reads empty until its exec of `sleep` is done.
      await vi.waitFor(() => {
        sleeper = childrenOf(supervisorPid)[0] ?? 0;
        expect(sleeper).toBeGreaterThan(0);
        expect(readFileSync(`/proc/${sleeper}/cmdline`, 'utf8')).toContain('sleep');
      });

      parent.kill('SIGKILL');
      // The supervisor sees its IPC channel close at once, then stops the binary and removes the dir; the bound allows
      // for a busy machine.
      await vi.waitFor(() => expect(alive(sleeper) || alive(supervisorPid)).toBe(false), {
        timeout: 10_000,
        interval: 50,
      });
      expect(existsSync(dir)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
