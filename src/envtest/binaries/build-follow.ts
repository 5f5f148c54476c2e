/**
 * Following another process's build from its log, for a process that waits on it: the builder writes each of its
 * progress lines into its log as `### <line>` (build.ts), and the waiter shows them as they come, so that a wait of
 * twenty minutes shows the same steps as the build itself.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The prefix of the builder's progress lines in its log (the go commands' own output has none). */
export const PROGRESS_PREFIX = '### ';

/**
 * The log of the build that holds `lockPath`: the second line of the lock file, or, for a builder that names none
 * (an older kubescaffold), the newest build-<version>-*.log in `logDir` written since the lock was taken.
 */
export function builderLogOf(lockPath: string, logDir: string, version: string): string | undefined {
  let lock;
  try {
    lock = { text: readFileSync(lockPath, 'utf8'), mtimeMs: statSync(lockPath).mtimeMs };
  } catch {
    return undefined;
  }
  const named = lock.text.split('\n')[1]?.trim();
  if (named) return named;
  const logs = safeReaddir(logDir)
    .filter((name) => name.startsWith(`build-${version}-`) && name.endsWith('.log'))
    .sort(); // the names carry the start time, so the last one is the newest
  const newest = logs.at(-1);
  if (newest === undefined) return undefined;
  const path = join(logDir, newest);
  // A log last written before the lock was taken belongs to an earlier build, not to this one.
  return safeMtime(path) >= lock.mtimeMs - 1000 ? path : undefined;
}

/** A step's first line, "[4/6] Compiling kube-apiserver …". */
const STEP_LINE = /^\[\d+\/\d+\] /;

/** Reads the progress lines that a log gains, from where the last call stopped. */
export class BuildLogFollower {
  private offset = 0;
  private partial = '';

  constructor(readonly path: string) {}

  /**
   * The progress lines written since the last call (without their prefix). The first call returns only the line of
   * the step the build is at and the latest line (its heartbeat, say); the lines before them are history.
   */
  read(): string[] {
    const first = this.offset === 0;
    const lines = this.readNewLines()
      .filter((l) => l.startsWith(PROGRESS_PREFIX))
      .map((l) => l.slice(PROGRESS_PREFIX.length));
    if (!first) return lines;
    const step = [...lines].reverse().find((l) => STEP_LINE.test(l));
    const latest = lines.at(-1);
    return [...new Set([step, latest].filter((l) => l !== undefined))];
  }

  private readNewLines(): string[] {
    let fd;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return []; // not created yet, or removed: nothing to show
    }
    try {
      const chunks: Buffer[] = [];
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n === 0) break;
        chunks.push(Buffer.from(buf.subarray(0, n)));
        this.offset += n;
      }
      const lines = (this.partial + Buffer.concat(chunks).toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      return lines;
    } finally {
      closeSync(fd);
    }
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
