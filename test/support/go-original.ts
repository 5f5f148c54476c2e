/**
 * A public Go operator, the original of a port in examples/: built once from the Go module proxy into
 * ~/.cache/kubescaffold/go-originals/<module>@<version>-<go version>/, and run as a process against a control plane's
 * kubeconfig, as its Deployment would run it in a cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runCommandAsync } from './commands.js';
import { tempDir } from './files.js';
import { goEnv } from './kubebuilder.js';
import { GO_BUILD_MS } from './limits.js';

/** Which operator to build, and how. */
export interface GoOriginal {
  /** The module path, as the module proxy serves it: `github.com/stakater/Reloader`. */
  module: string;
  /** A version the proxy serves (`go list -m -versions <module>`). */
  version: string;
  /** The main package, relative to the module's root. Default `.`. */
  mainPackage?: string;
  /**
   * `replace` directives added to the module's go.mod, each with why: a dependency pinned at a pseudo-version the
   * proxy refuses (403) is replaced by one it serves.
   */
  replaces?: { from: string; to: string; why: string }[];
  /** The binary's file name in the cache. */
  binary: string;
}

/** The Go toolchain's version (`go1.26.8`); throws when Go is not installed. */
async function goVersion(): Promise<string> {
  const r = await runCommandAsync(process.cwd(), 'go', ['env', 'GOVERSION'], { env: goEnv() }).catch(() => undefined);
  const version = r?.output.trim();
  if (r?.status !== 0 || !version) throw new Error('Go is not installed (go env GOVERSION failed)');
  return version;
}

async function go(cwd: string, args: string[], env: NodeJS.ProcessEnv = goEnv()): Promise<string> {
  const r = await runCommandAsync(cwd, 'go', args, { env, timeout: GO_BUILD_MS });
  if (r.status !== 0) throw new Error(`go ${args.join(' ')} failed in ${cwd}:\n${r.output.slice(-4000)}`);
  return r.output;
}

/**
 * The path of the original's binary, built when the cache has none: the module's source from the proxy (`go mod
 * download`), copied to a scratch folder with the replaces added, built with CGO off. Throws saying why it cannot.
 */
export async function buildGoOriginal(spec: GoOriginal): Promise<string> {
  const version = await goVersion();
  const dir = join(homedir(), '.cache', 'kubescaffold', 'go-originals', `${spec.module}@${spec.version}-${version}`);
  const binary = join(dir, spec.binary);
  if (existsSync(binary)) return binary;
  const work = tempDir('ks-go-original-');
  try {
    // go mod download needs a module to run in, and must not pick up one around the checkout.
    writeFileSync(join(work.path, 'go.mod'), 'module example.com/go-original-fetch\n\ngo 1.24\n');
    const download = JSON.parse(
      await go(work.path, ['mod', 'download', '-json', `${spec.module}@${spec.version}`]),
    ) as { Dir?: string; Error?: string };
    if (!download.Dir) throw new Error(`go mod download ${spec.module}@${spec.version}: ${download.Error ?? 'no Dir'}`);
    const src = join(work.path, 'src');
    cpSync(download.Dir, src, { recursive: true });
    // The module cache is read-only; the copy's go.mod and go.sum are edited, and the copy is removed after.
    makeWritable(src);
    for (const r of spec.replaces ?? []) await go(src, ['mod', 'edit', `-replace=${r.from}=${r.to}`]);
    const built = join(work.path, spec.binary);
    await go(src, ['build', '-trimpath', '-o', built, `./${spec.mainPackage ?? '.'}`], {
      ...goEnv(),
      CGO_ENABLED: '0',
    });
    mkdirSync(dir, { recursive: true });
    renameSync(built, binary);
    return binary;
  } finally {
    work.remove();
  }
}

function makeWritable(path: string): void {
  const stat = statSync(path);
  chmodSync(path, stat.mode | 0o200);
  if (stat.isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

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
