/**
 * Starting etcd and kube-apiserver so that they cannot outlive us. Each binary runs under a tiny
 * Node supervisor in its own process group (detached). The supervisor holds an IPC channel to this
 * process; when that closes (we exited or crashed, even by SIGKILL) it terminates the binary. stop()
 * signals the whole group: SIGTERM, then SIGKILL after a timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { onProcessExit } from './cleanup.js';

/**
 * The supervisor, run with `node -e`: argv = [node, binary, ...args]. CommonJS, since -e is.
 * KUBESCAFFOLD_REMOVE_ON_ORPHAN names a path to delete once the binary has exited after we died.
 */
export const SUPERVISOR_SCRIPT = `
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const [cmd, ...args] = process.argv.slice(1);
const orphanCleanup = process.env.KUBESCAFFOLD_REMOVE_ON_ORPHAN;
delete process.env.KUBESCAFFOLD_REMOVE_ON_ORPHAN;
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let ending = false;
let orphaned = false;
const end = () => {
  if (ending) return;
  ending = true;
  try { child.kill('SIGTERM'); } catch {}
  setTimeout(() => { try { child.kill('SIGKILL'); } catch {} }, 10000).unref();
};
process.on('disconnect', () => { orphaned = true; end(); });
// The parent signals the whole group, so the child already has its SIGTERM: just outlive it.
process.on('SIGTERM', () => {});
process.on('SIGINT', () => {});
child.on('error', (e) => { process.stderr.write(String(e) + '\\n'); process.exit(127); });
child.on('exit', (code, sig) => {
  if (orphaned && orphanCleanup) try { require('node:fs').rmSync(orphanCleanup, { recursive: true, force: true }); } catch {}
  process.exit(code ?? 128 + (constants.signals[sig] || 0));
});
`;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SuperviseOptions {
  /** Used in error messages: "etcd", "kube-apiserver". */
  name: string;
  command: string;
  args: string[];
  /** Copy the binary's output to our stderr as it comes. */
  attachOutput?: boolean;
  /** A path the supervisor removes after the binary exits if we died first (our temp dir). */
  removeOnOrphan?: string;
}

const OUTPUT_LIMIT = 64 * 1024;

export class SupervisedProcess {
  readonly name: string;
  /** Resolves when the supervisor (and with it the binary) has exited. */
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private output = '';
  private readonly deregister: () => void;

  private constructor(
    private readonly child: ChildProcess,
    opts: SuperviseOptions,
  ) {
    this.name = opts.name;
    const collect = (b: Buffer) => {
      if (opts.attachOutput) process.stderr.write(b);
      this.output = (this.output + b.toString('utf8')).slice(-OUTPUT_LIMIT);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    // A channel error (EPIPE after the supervisor died) must not become an uncaught exception.
    child.on('error', (err) => collect(Buffer.from(`\n[supervisor error: ${err.message}]\n`)));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    this.deregister = onProcessExit(() => this.signalGroup('SIGKILL'));
    void this.exited.then(() => this.deregister());
  }

  /** Spawns `command args` under a supervisor in a new process group. */
  static spawn(opts: SuperviseOptions): SupervisedProcess {
    const env = { ...process.env };
    // Test runners put loaders in NODE_OPTIONS; the supervisor is plain JavaScript and needs none.
    delete env.NODE_OPTIONS;
    if (opts.removeOnOrphan) env.KUBESCAFFOLD_REMOVE_ON_ORPHAN = opts.removeOnOrphan;
    const child = spawn(process.execPath, ['-e', SUPERVISOR_SCRIPT, opts.command, ...opts.args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env,
    });
    // Neither the child nor its pipes may keep a test process alive; the exit hook kills the group.
    child.unref();
    child.channel?.unref();
    for (const s of [child.stdout, child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    return new SupervisedProcess(child, opts);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** The last 64 KiB the binary wrote, for error messages. */
  recentOutput(): string {
    return this.output;
  }

  describeExit(): string {
    const e = this.exitInfo;
    if (!e) return `${this.name} is running`;
    // The supervisor exits with 128 + n when its binary was killed by signal n, as a shell reports it.
    const killedBy = e.signal ?? (e.code !== null && e.code > 128 ? signalName(e.code - 128) : undefined);
    return `${this.name} exited (${killedBy !== undefined ? `killed by ${killedBy}` : `code ${e.code}`})`;
  }

  /** SIGTERM to the process group, SIGKILL after `timeoutMs`; resolves once it has exited. */
  async stop(timeoutMs = 20_000): Promise<void> {
    if (this.hasExited) return;
    this.signalGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first === 'timeout') {
      this.signalGroup('SIGKILL');
      await this.exited;
    }
  }

  private signalGroup(sig: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, sig);
    } catch {
      // group already gone
    }
  }
}

function signalName(n: number): string | undefined {
  return Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
}
