/**
 * A public Go operator, the original of a port in examples/: built once from the Go module proxy into
 * ~/.cache/kubescaffold/go-originals/<module>@<version>-<go version>/ (scripts/lib/go-original.js, plain JavaScript,
 * because the benchmarks beside the originals build them too), and run as a process against a control plane's
 * kubeconfig, as its Deployment would run it in a cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export {
  buildGoOriginal,
  reloaderOriginal,
  trustManagerOriginal,
  type GoOriginal,
} from '../../scripts/lib/go-original.js';

/** A running original: its output so far, and a stop that waits for it to exit. */
export interface RunningOriginal {
  readonly process: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs` if it has not exited; resolves once it has. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `binary` with `args`, with KUBECONFIG pointing at `kubeconfigPath` and HOME at a scratch folder (so that no
 * ~/.kube/config of the machine is read), plus `env`.
 */
export function runGoOriginal(
  binary: string,
  args: string[],
  opts: { kubeconfigPath: string; env?: NodeJS.ProcessEnv; home: string },
): RunningOriginal {
  return startProcess(binary, args, {
    env: { PATH: process.env.PATH, HOME: opts.home, KUBECONFIG: opts.kubeconfigPath, ...opts.env },
  });
}

/** Starts a process with its output captured; stop() ends it and waits for its exit. */
export function startProcess(command: string, args: string[], opts: { env: NodeJS.ProcessEnv }): RunningOriginal {
  const child = spawn(command, args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = once(child, 'exit');
  return {
    process: child,
    output: () => output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
