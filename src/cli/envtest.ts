/**
 * `scaffold envtest use` (find or build kube-apiserver + etcd, like kubebuilder's setup-envtest) and
 * `scaffold envtest start` (run a local control plane until interrupted). The envtest modules are
 * loaded inside the actions so that `scaffold --version` stays fast.
 */
import type { Command } from 'commander';
import type { TestEnvironment } from '../envtest/index.js';
import { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION } from '../envtest/versions.js'; // tiny, no dependencies
import { CliError } from './errors.js';

interface UseOptions {
  binDir?: string;
  print: string;
  etcdVersion?: string;
}

export interface StartOptions {
  kubeconfigOut?: string;
  binDir?: string;
  k8sVersion?: string;
  crdDir?: string[];
}

const PRINT_FORMATS = ['overview', 'path', 'env'];

export function registerEnvtestCommand(program: Command): void {
  const envtest = program
    .command('envtest')
    .description('Obtain and run a local test control plane (kube-apiserver + etcd)');

  envtest
    .command('use')
    .description('Find kube-apiserver and etcd (KUBEBUILDER_ASSETS, then the cache), building them from the Go module proxy if needed')
    .argument('[k8s-version]', `Kubernetes version, e.g. ${DEFAULT_KUBERNETES_VERSION} (default), or MAJOR.MINOR for the newest cached/published patch`)
    .option('--bin-dir <dir>', 'cache root holding one directory per version (default: ~/.cache/kubescaffold/envtest)')
    .option('-p, --print <format>', `what to print: ${PRINT_FORMATS.join(', ')}`, 'overview')
    .option('--etcd-version <version>', `etcd version to build alongside (default: ${DEFAULT_ETCD_VERSION})`)
    .action(async (version: string | undefined, opts: UseOptions) => {
      if (!PRINT_FORMATS.includes(opts.print)) throw new CliError(`--print must be one of ${PRINT_FORMATS.join(', ')}, not "${opts.print}"`);
      await runUse(version, opts);
    });

  envtest
    .command('start')
    .description('Run a local kube-apiserver + etcd until Ctrl-C, and write an admin kubeconfig for it')
    .option('--kubeconfig-out <file>', 'where to write the kubeconfig (default: a file in the temporary directory removed on exit)')
    .option('--bin-dir <dir>', 'cache root to look for binaries in (default: ~/.cache/kubescaffold/envtest)')
    .option('--k8s-version <version>', `Kubernetes version to run (default: ${DEFAULT_KUBERNETES_VERSION} if cached, else the newest cached)`)
    .option('--crd-dir <dir>', 'install the CustomResourceDefinitions found in this directory (repeatable)', collect, [])
    .action(async (opts: StartOptions) => {
      const interrupt = interruptSignal();
      try {
        await runEnvtestStart(opts, interrupt.signal);
      } finally {
        interrupt.dispose();
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Runs until the first SIGINT/SIGTERM; a second one exits at once. */
function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort(new Error(`interrupted (${sig})`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

async function runUse(version: string | undefined, opts: UseOptions): Promise<void> {
  // Not the envtest index: that loads @kubernetes/client-node, which `use` doesn't need.
  const { ensureBinaries } = await import('../envtest/ensure.js');
  const { BinariesNotFoundError } = await import('../envtest/binaries.js');
  const { resolve } = await import('node:path');
  const interrupt = interruptSignal();
  try {
    const bins = await ensureBinaries({
      version,
      cacheRoot: opts.binDir ? resolve(opts.binDir) : undefined,
      etcdVersion: opts.etcdVersion,
      signal: interrupt.signal,
    });
    if (opts.print === 'path') process.stdout.write(`${bins.dir}\n`);
    else if (opts.print === 'env') process.stdout.write(`export KUBEBUILDER_ASSETS='${bins.dir.replace(/'/g, `'\\''`)}'\n`);
    else process.stdout.write(`Version: ${bins.version}\nSource:  ${bins.source}${bins.built ? ' (just built)' : ''}\nPath:    ${bins.dir}\n`);
  } catch (err) {
    if (interrupt.signal.aborted) throw new CliError('interrupted: the partial build was removed', 130);
    if (err instanceof BinariesNotFoundError) throw new CliError(err.message);
    throw err;
  } finally {
    interrupt.dispose();
  }
}

/**
 * `scaffold envtest start`: runs the control plane until `signal` aborts, then stops it.
 * Exported so tests can drive it without sending signals to the test process.
 */
export async function runEnvtestStart(opts: StartOptions, signal: AbortSignal): Promise<void> {
  const { TestEnvironment: Env, findBinaries, BinariesNotFoundError } = await import('../envtest/index.js');
  const { checkKubeconfigTarget, writeKubeconfigFile } = await import('../envtest/kubeconfig.js');
  const { resolve, join } = await import('node:path');

  let env: TestEnvironment | undefined;
  let kubeconfigPath = opts.kubeconfigOut ? resolve(opts.kubeconfigOut) : undefined;
  const userError = (err: unknown) => new CliError(err instanceof Error ? err.message : String(err));
  try {
    if (kubeconfigPath) await checkKubeconfigTarget(kubeconfigPath).catch((err: unknown) => Promise.reject(userError(err)));
    const bins = await findBinaries({ version: opts.k8sVersion, cacheRoot: opts.binDir ? resolve(opts.binDir) : undefined }).catch((err: unknown) => {
      throw err instanceof BinariesNotFoundError ? new CliError(err.message) : err;
    });
    process.stderr.write(`Starting etcd and kube-apiserver ${bins.version} from ${bins.dir} …\n`);
    const t0 = Date.now();
    env = await Env.start({
      binaryAssetsDirectory: bins.dir,
      crdDirectoryPaths: (opts.crdDir ?? []).map((d) => resolve(d)),
      errorIfCRDPathMissing: true,
    });
    if (signal.aborted) return;
    // By default the kubeconfig lives in the environment's temp dir, so it goes wherever that goes.
    kubeconfigPath ??= join(env.tempDir, 'kubeconfig');
    await writeKubeconfigFile(kubeconfigPath, env.kubeconfigYaml()).catch((err: unknown) => Promise.reject(userError(err)));
    process.stdout.write(
      `Control plane ready in ${((Date.now() - t0) / 1000).toFixed(1)}s (Kubernetes ${bins.version}).\n` +
        `  server:     ${env.server}\n` +
        `  kubeconfig: ${kubeconfigPath}\n` +
        `Use it from another shell:\n` +
        `  export KUBECONFIG=${kubeconfigPath}\n` +
        `Press Ctrl-C to stop; etcd's data is discarded on exit.\n`,
    );
    // Signal handlers don't keep Node's event loop alive, and the control plane's handles are unref'd.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    await new Promise<void>((done) => {
      if (signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
    });
    clearInterval(keepAlive);
    process.stderr.write('Stopping the control plane …\n');
  } finally {
    await env?.stop();
  }
}
