/**
 * A memory cgroup for running a process under a container's memory limit, as the kubelet runs it: memory.max on
 * cgroup v2, memory.limit_in_bytes on the v1 memory hierarchy. Needs root (or a delegated cgroup tree).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.js';

const ROOT = '/sys/fs/cgroup';

/** Why no memory cgroup could be made here, with what was tried. */
export class CgroupUnavailableError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'CgroupUnavailableError';
  }
}

/** A cgroup with a memory limit, and what the kernel recorded about the processes run in it. */
export interface MemoryCgroup {
  /** The cgroup's directory. */
  readonly path: string;
  readonly version: 1 | 2;
  /** The limit set, in bytes. */
  readonly limitBytes: number;
  /** A command line that runs `command args` inside this cgroup (a shell joins it, then execs the command). */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /** The largest memory use of the cgroup so far (memory.peak / memory.max_usage_in_bytes), in bytes. */
  peakBytes(): number | undefined;
  /** How many processes the kernel's OOM killer killed in this cgroup. */
  oomKills(): number;
  /** Removes the cgroup; its processes must have exited. */
  remove(): void;
}

const read = (file: string): string => readFileSync(file, 'utf8');

function readNumber(file: string): number | undefined {
  try {
    const n = Number(read(file).trim());
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

function statField(file: string, key: string): number {
  try {
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(read(file));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Creates a cgroup named `name` with a memory limit of `limitBytes` (swap disabled where the kernel allows it).
 * Throws CgroupUnavailableError, naming what it tried, when the machine does not allow one.
 */
export function createMemoryCgroup(name: string, limitBytes: number): MemoryCgroup {
  if (existsSync(join(ROOT, 'cgroup.controllers'))) return createV2(name, limitBytes);
  if (existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes'))) return createV1(name, limitBytes);
  throw new CgroupUnavailableError(
    `no cgroup memory controller is mounted at ${ROOT} (neither cgroup v2 nor the v1 memory hierarchy)`,
  );
}

/** A command line that joins the cgroup whose cgroup.procs file is `procs`, then runs `command args` (for any controller). */
export function cgroupCommand(procs: string): MemoryCgroup['wrap'] {
  // The shell writes its own pid into the cgroup, then becomes the command: the command starts inside the limit.
  return (command, args) => ({
    command: '/bin/sh',
    args: ['-c', `echo $$ > '${procs}' && exec "$0" "$@"`, command, ...args],
  });
}

function createV2(name: string, limitBytes: number): MemoryCgroup {
  const available = read(join(ROOT, 'cgroup.controllers')).split(/\s+/);
  if (!available.includes('memory'))
    throw new CgroupUnavailableError(
      `cgroup v2 at ${ROOT} offers no memory controller (cgroup.controllers: ${available.join(' ')})`,
    );
  const control = join(ROOT, 'cgroup.subtree_control');
  if (!read(control).split(/\s+/).includes('memory')) {
    try {
      writeFileSync(control, '+memory');
    } catch (e) {
      throw new CgroupUnavailableError(
        `cannot enable the memory controller for children of ${ROOT} (writing +memory to ${control}: ${(e as Error).message}); ` +
          'run as root, and inside a container move its processes into a child cgroup first, as docker-in-docker does',
      );
    }
  }
  const path = join(ROOT, name);
  try {
    mkdirSync(path);
    writeFileSync(join(path, 'memory.max'), String(limitBytes));
    if (existsSync(join(path, 'memory.swap.max'))) writeFileSync(join(path, 'memory.swap.max'), '0');
  } catch (e) {
    throw new CgroupUnavailableError(
      `cannot create the cgroup ${path} with memory.max ${limitBytes}: ${(e as Error).message}; run as root`,
    );
  }
  return {
    path,
    version: 2,
    limitBytes,
    wrap: cgroupCommand(join(path, 'cgroup.procs')),
    peakBytes: () => readNumber(join(path, 'memory.peak')),
    oomKills: () => statField(join(path, 'memory.events'), 'oom_kill'),
    remove: () => rmdirSync(path),
  };
}

function createV1(name: string, limitBytes: number): MemoryCgroup {
  const path = join(ROOT, 'memory', name);
  try {
    mkdirSync(path);
    writeFileSync(join(path, 'memory.limit_in_bytes'), String(limitBytes));
    // Memory plus swap capped at the same figure: no swap, as in a pod.
    if (existsSync(join(path, 'memory.memsw.limit_in_bytes')))
      writeFileSync(join(path, 'memory.memsw.limit_in_bytes'), String(limitBytes));
  } catch (e) {
    throw new CgroupUnavailableError(
      `cannot create the cgroup ${path} with memory.limit_in_bytes ${limitBytes}: ${(e as Error).message}; run as root`,
    );
  }
  return {
    path,
    version: 1,
    limitBytes,
    wrap: cgroupCommand(join(path, 'cgroup.procs')),
    peakBytes: () => readNumber(join(path, 'memory.max_usage_in_bytes')),
    oomKills: () => statField(join(path, 'memory.oom_control'), 'oom_kill'),
    remove: () => rmdirSync(path),
  };
}
