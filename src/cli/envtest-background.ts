/**
 * `scaffold envtest start --background` and `scaffold envtest stop`: a local control plane that outlives the command,
 * for the Makefile's setup-test-e2e and cleanup-test-e2e (kubebuilder's create and delete a Kind cluster there).
 * The control plane is an ordinary `scaffold envtest start` in a process of its own; its state is two files beside
 * the kubeconfig: <kubeconfig>.pid and <kubeconfig>.log.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from './errors.js';

/** The flags of `envtest start` that are passed on to the background process. */
export interface BackgroundStartOptions {
  kubeconfigOut: string;
  k8sVersion?: string;
  crdDir?: string[];
  apiserverArg?: string[];
  binDir?: string;
  installedOnly?: boolean;
  index?: string;
  build?: boolean;
}

const READY_LINE = 'Control plane ready';
const POLL_MS = 100;
const STOP_TIMEOUT_MS = 60_000;

const pidFile = (kubeconfig: string) => `${kubeconfig}.pid`;
const logFile = (kubeconfig: string) => `${kubeconfig}.log`;

/** The pid recorded for `kubeconfig` if that process still runs (a pid file left by a killed machine is stale). */
function runningPid(kubeconfig: string): number | undefined {
  if (!existsSync(pidFile(kubeconfig))) return undefined;
  const pid = Number(readFileSync(pidFile(kubeconfig), 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  // Pids are reused: on Linux, make sure it is still our control plane.
  const cmdline = `/proc/${pid}/cmdline`;
  if (existsSync(cmdline) && !readFileSync(cmdline, 'utf8').includes('envtest')) return undefined;
  return pid;
}

function startArgs(o: BackgroundStartOptions): string[] {
  return [
    'envtest',
    'start',
    '--kubeconfig-out',
    o.kubeconfigOut,
    ...(o.k8sVersion ? ['--k8s-version', o.k8sVersion] : []),
    ...(o.crdDir ?? []).flatMap((d) => ['--crd-dir', resolve(d)]),
    ...(o.apiserverArg ?? []).flatMap((a) => ['--apiserver-arg', a]),
    ...(o.binDir ? ['--bin-dir', resolve(o.binDir)] : []),
    ...(o.installedOnly ? ['--installed-only'] : []),
    ...(o.index ? ['--index', o.index] : []),
    ...(o.build ? ['--build'] : []),
  ];
}

/**
 * Starts the control plane in a process of its own and returns once it is ready (or says it already runs). Obtaining
 * the binaries may download or build them first, so there is no time limit; `signal` (Ctrl-C) stops the start.
 */
export async function startInBackground(opts: BackgroundStartOptions, signal: AbortSignal): Promise<void> {
  const kubeconfig = resolve(opts.kubeconfigOut);
  const running = runningPid(kubeconfig);
  if (running !== undefined && existsSync(kubeconfig)) {
    process.stdout.write(
      `A control plane started with --background already runs (pid ${running}).\n  kubeconfig: ${kubeconfig}\n`,
    );
    return;
  }
  // The kubeconfig's folder may not exist yet (bin/ in a fresh project), as for any output file.
  mkdirSync(dirname(kubeconfig), { recursive: true });
  const log = openSync(logFile(kubeconfig), 'w');
  const script = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
  const child = spawn(process.execPath, [script, ...startArgs({ ...opts, kubeconfigOut: kubeconfig })], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  writeFileSync(pidFile(kubeconfig), `${child.pid}\n`);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    await waitForReady(kubeconfig, exited, signal);
  } catch (err) {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(pidFile(kubeconfig), { force: true });
    throw err;
  }
  child.unref();
  process.stdout.write(
    `Control plane running in the background (pid ${child.pid}).\n` +
      `  kubeconfig: ${kubeconfig}\n` +
      `  log:        ${logFile(kubeconfig)}\n` +
      `Use it with:  export KUBECONFIG=${kubeconfig}\n` +
      `Stop it with: npx scaffold envtest stop --kubeconfig-out ${opts.kubeconfigOut}\n`,
  );
}

async function waitForReady(kubeconfig: string, exited: Promise<number | null>, signal: AbortSignal): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  // The log is the background process's only channel; it is read until the ready line appears.
  while (!readFileSync(logFile(kubeconfig), 'utf8').includes(READY_LINE)) {
    if (exitCode !== undefined) {
      const tail = readFileSync(logFile(kubeconfig), 'utf8').trim().split('\n').slice(-20).join('\n');
      throw new CliError(
        `the control plane did not start (exit code ${exitCode}); ${logFile(kubeconfig)} ends with:\n${tail}`,
      );
    }
    if (signal.aborted) throw new CliError('interrupted while the control plane was starting; it has been stopped');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * Why the background process stopped without being asked to: its log from the error it ended with (or its last
 * lines, when it ended without one), at most 12 lines.
 */
function stoppedReason(kubeconfig: string): string | undefined {
  if (!existsSync(logFile(kubeconfig))) return undefined;
  const lines = readFileSync(logFile(kubeconfig), 'utf8').trimEnd().split('\n');
  const error = lines.findLastIndex((l) => l.startsWith('Error: '));
  return (error >= 0 ? lines.slice(error, error + 12) : lines.slice(-12)).join('\n');
}

/** Stops a control plane started with --background for `kubeconfigOut` (as Ctrl-C would) and removes its files. */
export async function stopBackground(kubeconfigOut: string): Promise<void> {
  const kubeconfig = resolve(kubeconfigOut);
  const pid = runningPid(kubeconfig);
  if (pid === undefined) {
    const stale = existsSync(pidFile(kubeconfig));
    // A control plane that stopped on its own (its etcd or kube-apiserver died) said why in its log: show it.
    const why = stale ? stoppedReason(kubeconfig) : undefined;
    rmSync(pidFile(kubeconfig), { force: true });
    process.stdout.write(
      `No control plane started with --background runs for ${kubeconfig}${stale ? ' (removed a stale pid file)' : ''}.\n` +
        (why !== undefined ? `It had stopped on its own; ${logFile(kubeconfig)} ends with:\n${why}\n` : ''),
    );
    return;
  }
  process.kill(pid, 'SIGTERM');
  // Not our child, so there is no exit event to wait on: poll until the pid is gone.
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (runningPid(kubeconfig) !== undefined) {
    if (Date.now() > deadline)
      throw new CliError(
        `the control plane (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s; see ${logFile(kubeconfig)}`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  for (const f of [pidFile(kubeconfig), logFile(kubeconfig), kubeconfig]) rmSync(f, { force: true });
  process.stdout.write(`Stopped the control plane (pid ${pid}) and removed ${kubeconfig}.\n`);
}
