import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeConfigToYaml } from '@kubescaffold/runtime/clientcmd';
import { loadConfig } from './connect.js';
import { ClusterError } from './errors.js';

export interface RunOptions {
  kubeconfig?: string;
  context?: string;
  /** Skip `npm run build` (the project is built already). */
  skipBuild?: boolean;
  /** Arguments for the manager, after its entry point. */
  args?: string[];
  /** The manager's entry point, relative to the project. Default dist/cmd/main.js. */
  entry?: string;
  /** Where signals come from; tests pass their own emitter. Default process. */
  signals?: NodeJS.EventEmitter;
  /**
   * Receives what the build and the manager print; default: they print to this process's stdout and stderr, as a
   * user of `scaffold run` wants. Tests pass their own, so that a passing run prints nothing.
   */
  output?: (text: string) => void;
}

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function npmCommand(): string {
  return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

/** Builds the project with its own `npm run build`, or explains what is missing. */
export function buildProject(root: string, output?: (text: string) => void): void {
  const pkgFile = join(root, 'package.json');
  if (!existsSync(pkgFile))
    throw new ClusterError(`no package.json in ${root}; run \`scaffold run\` in the project's root directory`);
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { scripts?: Record<string, string> };
  if (!pkg.scripts?.build)
    throw new ClusterError(
      `${pkgFile} has no "build" script; add one that compiles the manager (e.g. "tsc -p tsconfig.json")`,
    );
  if (!existsSync(join(root, 'node_modules')))
    throw new ClusterError(`the project's dependencies are not installed; run \`npm install\` in ${root} first`);
  const r = output
    ? spawnSync(npmCommand(), ['run', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
    : spawnSync(npmCommand(), ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (output) output(`${r.stdout ?? ''}${r.stderr ?? ''}`);
  if (r.error) throw new ClusterError(`cannot run npm run build: ${r.error.message}`);
  if (r.status !== 0)
    throw new ClusterError(`npm run build failed (exit ${r.status ?? r.signal}); fix the errors above and run again`);
}

/**
 * The kubeconfig the manager should load: the user's own when nothing is chosen, else a temporary file holding the
 * chosen file and context (the manager's loadKubeConfig reads $KUBECONFIG and the current-context).
 */
function kubeconfigEnv(opts: RunOptions): { env: Record<string, string>; cleanup: () => void } {
  const kc = loadConfig(opts);
  if (!opts.kubeconfig && !opts.context) return { env: {}, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'kubescaffold-run-'));
  const file = join(dir, 'kubeconfig');
  // One cluster, user and context: the chosen ones, with absolute paths and the chosen context current.
  writeFileSync(file, kubeConfigToYaml(kc), { mode: 0o600 });
  return { env: { KUBECONFIG: file }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Builds the project and runs its manager against the chosen cluster until it exits. The manager runs in its own
 * process group so that Ctrl-C reaches it once, through us; a second Ctrl-C is forwarded too (the runtime then exits
 * at once). Resolves with the manager's exit code.
 */
export async function runManager(root: string, opts: RunOptions = {}): Promise<number> {
  // The kubeconfig first: a missing or broken one is said at once, not after a build of several seconds.
  const { env, cleanup } = kubeconfigEnv(opts);
  const signals = opts.signals ?? process;
  try {
    if (!opts.skipBuild) buildProject(root, opts.output);
    const entry = opts.entry ?? join('dist', 'cmd', 'main.js');
    if (!existsSync(join(root, entry)))
      throw new ClusterError(
        `${entry} does not exist after the build; check that tsconfig.json compiles cmd/main.ts into dist/`,
      );
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [entry, ...(opts.args ?? [])], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: opts.output ? ['ignore', 'pipe', 'pipe'] : 'inherit',
        detached: process.platform !== 'win32',
      });
      const output = opts.output;
      if (output) for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', output);
      const forward = (signal: NodeJS.Signals) => () => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      };
      const handlers = FORWARDED.map((s) => [s, forward(s)] as const);
      for (const [s, h] of handlers) signals.on(s, h);
      // If we exit first (an error), do not leave the manager running.
      const killOnExit = () => child.kill('SIGTERM');
      process.once('exit', killOnExit);
      const done = () => {
        for (const [s, h] of handlers) signals.off(s, h);
        process.off('exit', killOnExit);
      };
      child.once('error', (e) => {
        done();
        reject(new ClusterError(`cannot start the manager: ${e.message}`));
      });
      child.once('exit', (code, signal) => {
        done();
        resolve(
          code ??
            (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGKILL: 9 } as Record<string, number>)[signal]! : 1),
        );
      });
    });
  } finally {
    cleanup();
  }
}
