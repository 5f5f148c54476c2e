/**
 * A CPU cgroup for running a process under a container's CPU limit, as the kubelet sets it: a CFS quota per 100 ms
 * period (cpu.max on cgroup v2, cpu.cfs_quota_us on the v1 cpu hierarchy). Needs root (or a delegated cgroup tree).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CgroupUnavailableError, cgroupCommand } from './cgroup.js';

const ROOT = '/sys/fs/cgroup';
/** The kubelet's CFS period: 100 ms. */
const PERIOD_US = 100_000;
/** The kernel's smallest quota (1 ms), which the kubelet also applies to tiny limits. */
const MIN_QUOTA_US = 1000;

/** A cgroup with a CPU quota. */
export interface CpuCgroup {
  readonly path: string;
  /** The quota per period, in microseconds. */
  readonly quotaUs: number;
  /** A command line that runs `command args` inside this cgroup (a shell joins it, then execs the command). */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /** How many periods the kernel throttled the cgroup's processes in (cpu.stat nr_throttled). */
  throttledPeriods(): number;
  /** Removes the cgroup; its processes must have exited. */
  remove(): void;
}

/** The CFS quota the kubelet sets for a CPU limit of `cores` (0.5 for "500m"). */
export function quotaFor(cores: number): number {
  return Math.max(Math.round(cores * PERIOD_US), MIN_QUOTA_US);
}

function throttled(stat: string): number {
  try {
    const m = /^nr_throttled (\d+)$/m.exec(readFileSync(stat, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Creates a cgroup named `name` limited to `cores` CPUs; throws CgroupUnavailableError, saying why, where it cannot.
 * On cgroup v2 a process belongs to one cgroup only, so `sharedV2Path` (the memory cgroup's) gets the quota instead:
 * its wrap() then adds nothing and remove() leaves the directory to its owner.
 */
export function createCpuCgroup(name: string, cores: number, sharedV2Path?: string): CpuCgroup {
  const quotaUs = quotaFor(cores);
  if (existsSync(join(ROOT, 'cgroup.controllers'))) {
    const available = readFileSync(join(ROOT, 'cgroup.controllers'), 'utf8').split(/\s+/);
    if (!available.includes('cpu'))
      throw new CgroupUnavailableError(
        `cgroup v2 at ${ROOT} offers no cpu controller (cgroup.controllers: ${available.join(' ')})`,
      );
    const control = join(ROOT, 'cgroup.subtree_control');
    const path = sharedV2Path ?? join(ROOT, name);
    try {
      if (!readFileSync(control, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(control, '+cpu');
      if (!sharedV2Path) mkdirSync(path);
      writeFileSync(join(path, 'cpu.max'), `${quotaUs} ${PERIOD_US}`);
    } catch (e) {
      throw new CgroupUnavailableError(
        `cannot set cpu.max ${quotaUs} ${PERIOD_US} on the cgroup ${path}: ${(e as Error).message}; run as root`,
      );
    }
    const stat = () => throttled(join(path, 'cpu.stat'));
    if (sharedV2Path)
      return {
        path,
        quotaUs,
        wrap: (command, args) => ({ command, args: [...args] }),
        throttledPeriods: stat,
        remove: () => undefined,
      };
    return {
      path,
      quotaUs,
      wrap: cgroupCommand(join(path, 'cgroup.procs')),
      throttledPeriods: stat,
      remove: () => rmdirSync(path),
    };
  }
  const hierarchy = join(ROOT, 'cpu');
  if (!existsSync(join(hierarchy, 'cpu.cfs_quota_us')))
    throw new CgroupUnavailableError(
      `no cgroup cpu controller is mounted at ${ROOT} (neither cgroup v2 nor the v1 cpu hierarchy with CFS quotas)`,
    );
  const path = join(hierarchy, name);
  try {
    mkdirSync(path);
    writeFileSync(join(path, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(path, 'cpu.cfs_quota_us'), String(quotaUs));
  } catch (e) {
    throw new CgroupUnavailableError(
      `cannot create the cgroup ${path} with cpu.cfs_quota_us ${quotaUs}: ${(e as Error).message}; run as root`,
    );
  }
  return {
    path,
    quotaUs,
    wrap: cgroupCommand(join(path, 'cgroup.procs')),
    throttledPeriods: () => throttled(join(path, 'cpu.stat')),
    remove: () => rmdirSync(path),
  };
}
