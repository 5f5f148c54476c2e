/**
 * Runs one build command (go ...) in its own process group, appending its output to the build log,
 * so that an abort can end it together with the compilers it started.
 */
import { spawn } from 'node:child_process';
import type { WriteStream } from 'node:fs';

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: WriteStream;
  signal?: AbortSignal;
  /** Called with each line the command writes to stderr. */
  onStderrLine?: (line: string) => void;
}

/** Runs `cmd args`, resolving to its stdout; rejects with the tail of its stderr when it fails. */
export function runLogged(cmd: string, args: string[], opts: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    opts.signal?.throwIfAborted();
    opts.log.write(`\n$ (cd ${opts.cwd} && ${cmd} ${args.map(quote).join(' ')})\n`);
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const tail: string[] = [];
    let partial = '';
    child.stdout.on('data', (b: Buffer) => {
      out.push(b);
      opts.log.write(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      opts.log.write(b);
      const lines = (partial + b.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        opts.onStderrLine?.(line);
      }
    });
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 5000);
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code, sig) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (opts.signal?.aborted)
        return reject(opts.signal.reason instanceof Error ? opts.signal.reason : new Error('aborted'));
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      if (partial) tail.push(partial);
      reject(new Error(`${cmd} ${args[0] ?? ''} failed (${sig ?? `exit ${code}`}):\n${tail.join('\n')}`));
    });
  });
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // already gone
  }
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
