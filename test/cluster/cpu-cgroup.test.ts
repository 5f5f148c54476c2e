import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createCpuCgroup, quotaFor } from '../../src/cluster/cpu-cgroup.js';

describe('CPU cgroup', () => {
  it("sets the kubelet's CFS quota for a CPU limit", () => {
    expect(quotaFor(0.5)).toBe(50_000);
    expect(quotaFor(2)).toBe(200_000);
    // The kernel's floor, which the kubelet applies to limits under 10m.
    expect(quotaFor(0.001)).toBe(1000);
  });

  it('throttles a busy process to its quota', () => {
    let cgroup;
    try {
      cgroup = createCpuCgroup(`kubescaffold-test-${process.pid}`, 0.05);
    } catch (e) {
      throw new Error(
        `this test runs a process under a CPU quota and needs a cpu cgroup (the test machines run as root), which cannot be made here: ${(e as Error).message}`,
      );
    }
    try {
      // 300 ms of wall time spinning: at 5 ms of CPU per 100 ms period it is throttled in most periods.
      const cmd = cgroup.wrap(process.execPath, ['-e', 'const t = Date.now(); while (Date.now() - t < 300);']);
      expect(spawnSync(cmd.command, cmd.args).status).toBe(0);
      expect(cgroup.throttledPeriods()).toBeGreaterThan(0);
    } finally {
      cgroup.remove();
    }
  });
});
