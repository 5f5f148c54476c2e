/**
 * `scaffold envtest use` (find, download or build kube-apiserver + etcd, like kubebuilder's setup-envtest),
 * `scaffold envtest list` (what is cached and what the release index offers), `scaffold envtest start`
 * (run a local control plane until interrupted, or in the background) and `scaffold envtest stop`. Only flags and printing live here; src/envtest decides. The envtest modules are
 * loaded inside the actions so that `scaffold --version` stays fast.
 */
import type { Command } from 'commander';
import type { TestEnvironment } from '@kubescaffold/envtest';
import type { Binaries } from '@kubescaffold/envtest/setup';
import { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION } from '@kubescaffold/envtest/versions'; // tiny, no dependencies
import { CliError } from './errors.js';

/** Flags shared by `use`, `list` and `start` that decide where binaries come from. */
interface SourceOptions {
  binDir?: string;
  installedOnly?: boolean;
  index?: string;
  build?: boolean;
}

interface UseOptions extends SourceOptions {
  print: string;
  etcdVersion?: string;
}

export interface StartOptions extends SourceOptions {
  kubeconfigOut?: string;
  k8sVersion?: string;
  crdDir?: string[];
  /** --apiserver-arg, as given: key=value each. */
  apiserverArg?: string[];
}

const PRINT_FORMATS = ['overview', 'path', 'env'];
const VERSION_HELP = `Kubernetes version: ${DEFAULT_KUBERNETES_VERSION} (default if cached, else the newest), MAJOR.MINOR for the newest patch, or latest`;

/** The options `use` and `start` share, as setup-envtest names them where it has them. */
function addSourceOptions(cmd: Command, withBuild: boolean): Command {
  cmd
    .option('--bin-dir <dir>', 'cache root holding one directory per version (default: ~/.cache/kubescaffold/envtest)')
    .option(
      '-i, --installed-only',
      'use only KUBEBUILDER_ASSETS, TEST_ASSET_* and the cache: never download or build (default: set when ENVTEST_INSTALLED_ONLY is)',
    )
    .option(
      '--index <url>',
      "envtest release index to download from, e.g. a mirror; https://, http:// or file:// (default: $KUBESCAFFOLD_ENVTEST_INDEX, else controller-tools' envtest-releases.yaml)",
    );
  if (withBuild)
    cmd.option(
      '--build',
      'build from the Go module proxy instead of downloading (needs Go; about 20 minutes on 2 cores)',
    );
  return cmd;
}

export function registerEnvtestCommand(program: Command): void {
  const envtest = program
    .command('envtest')
    .description('Obtain and run a local test control plane (kube-apiserver + etcd)');

  addSourceOptions(
    envtest
      .command('use')
      .description(
        'Find kube-apiserver and etcd (KUBEBUILDER_ASSETS, TEST_ASSET_*, the cache), else download them from the envtest release index, ' +
          'else build them from the Go module proxy',
      )
      .argument('[k8s-version]', VERSION_HELP),
    true,
  )
    .option('-p, --print <format>', `what to print: ${PRINT_FORMATS.join(', ')}`, 'overview')
    .option('--etcd-version <version>', `etcd version to build alongside (default: ${DEFAULT_ETCD_VERSION})`)
    .action(async (version: string | undefined, opts: UseOptions) => {
      if (!PRINT_FORMATS.includes(opts.print))
        throw new CliError(`--print must be one of ${PRINT_FORMATS.join(', ')}, not "${opts.print}"`);
      await runUse(version, opts);
    });

  envtest
    .command('list')
    .description('List the cached versions and those the envtest release index offers for this machine')
    .argument('[k8s-version]', 'only versions matching MAJOR.MINOR or MAJOR.MINOR.PATCH')
    .option('--bin-dir <dir>', 'cache root holding one directory per version (default: ~/.cache/kubescaffold/envtest)')
    .option('-i, --installed-only', 'list only what is cached; do not read the index')
    .option(
      '--index <url>',
      "envtest release index to read (default: $KUBESCAFFOLD_ENVTEST_INDEX, else controller-tools' envtest-releases.yaml)",
    )
    .action(async (version: string | undefined, opts: SourceOptions) => {
      await runList(version, opts);
    });

  addSourceOptions(
    envtest
      .command('start')
      .description('Run a local kube-apiserver + etcd until Ctrl-C, and write an admin kubeconfig for it')
      .option(
        '--kubeconfig-out <file>',
        'where to write the kubeconfig (default: a file in the temporary directory removed on exit)',
      )
      .option('--k8s-version <version>', VERSION_HELP)
      .option(
        '--crd-dir <dir>',
        'install the CustomResourceDefinitions found in this directory (repeatable)',
        collect,
        [],
      )
      .option(
        '--apiserver-arg <key=value>',
        "a kube-apiserver flag without its dashes, e.g. feature-gates=ShardedListAndWatch=true, overriding envtest's default for it (repeatable)",
        collect,
        [],
      )
      .option(
        '--background',
        'run it in a process of its own and return once it is ready (needs --kubeconfig-out; stop it with `envtest stop`)',
      ),
    true,
  ).action(async (opts: StartOptions & { background?: boolean }) => {
    // Bad flags for the API server are refused here, before anything is obtained or started, in either mode.
    await apiServerFlagsOf(opts.apiserverArg);
    const interrupt = interruptSignal();
    try {
      if (opts.background) {
        const { kubeconfigOut } = opts;
        if (!kubeconfigOut)
          throw new CliError(
            '--background needs --kubeconfig-out <file>: the kubeconfig is how you reach the control plane, and how `envtest stop` finds it',
          );
        const { startInBackground } = await import('./envtest-background.js');
        await startInBackground({ ...opts, kubeconfigOut }, interrupt.signal);
      } else {
        await runEnvtestStart(opts, interrupt.signal);
      }
    } finally {
      interrupt.dispose();
    }
  });

  envtest
    .command('stop')
    .description('Stop a control plane started with `envtest start --background`, and remove its kubeconfig')
    .requiredOption('--kubeconfig-out <file>', 'the kubeconfig it was started with')
    .action(async (opts: { kubeconfigOut: string }) => {
      const { stopBackground } = await import('./envtest-background.js');
      await stopBackground(opts.kubeconfigOut);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const APISERVER_ARG_EXAMPLE = 'feature-gates=ShardedListAndWatch=true';

/**
 * The kube-apiserver flags of --apiserver-arg key=value (split at the first '=': a value may hold more), as
 * TestEnvironment's apiServerFlags. A malformed or repeated one, or one envtest sets itself, is a CliError naming it.
 */
export async function apiServerFlagsOf(args: readonly string[] = []): Promise<Record<string, string>> {
  const { checkAPIServerFlags, EnvtestError } = await import('@kubescaffold/envtest');
  const flags = new Map<string, string>();
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0)
      throw new CliError(
        `--apiserver-arg takes key=value, a kube-apiserver flag without its dashes (e.g. ${APISERVER_ARG_EXAMPLE}), not "${arg}"`,
      );
    const key = arg.slice(0, eq);
    const value = arg.slice(eq + 1);
    const earlier = flags.get(key);
    if (earlier !== undefined)
      throw new CliError(
        `--apiserver-arg gives ${key} twice ("${earlier}", "${value}"): give it once; a list such as feature-gates takes comma-separated values (feature-gates=A=true,B=true)`,
      );
    try {
      checkAPIServerFlags({ [key]: value });
    } catch (err) {
      if (err instanceof EnvtestError) throw new CliError(`--apiserver-arg ${arg}: ${err.message}`);
      throw err;
    }
    flags.set(key, value);
  }
  return Object.fromEntries(flags);
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

/** Obtains the binaries as the flags say; envtest errors become CliErrors (their messages name the file or URL). */
async function obtainBinaries(
  version: string | undefined,
  opts: SourceOptions & { etcdVersion?: string },
  signal: AbortSignal,
): Promise<Binaries> {
  // Not the envtest index: that loads the control plane and the runtime's client, which obtaining binaries doesn't need.
  const { ensureBinaries } = await import('@kubescaffold/envtest/setup');
  const { resolve } = await import('node:path');
  try {
    return await ensureBinaries({
      version,
      cacheRoot: opts.binDir ? resolve(opts.binDir) : undefined,
      installedOnly: opts.installedOnly,
      index: opts.index,
      build: opts.build ? 'prefer' : 'fallback',
      etcdVersion: opts.etcdVersion,
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw new CliError('interrupted: nothing was added to the cache', 130);
    throw await asCliError(err);
  }
}

/** envtest's expected failures (bad input, network, archive, missing binaries) as CliErrors; anything else stays a bug. */
async function asCliError(err: unknown): Promise<unknown> {
  const { EnvtestError } = await import('@kubescaffold/envtest/setup');
  if (err instanceof EnvtestError) return new CliError(err.message, err.exitCode);
  if (err instanceof Error && /^invalid version /.test(err.message)) return new CliError(err.message);
  return err;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

async function runUse(version: string | undefined, opts: UseOptions): Promise<void> {
  const { describeSource } = await import('@kubescaffold/envtest/setup');
  const interrupt = interruptSignal();
  try {
    const bins = await obtainBinaries(version, opts, interrupt.signal);
    const where = bins.dir ?? `${bins.kubeApiserver} and ${bins.etcd}`;
    if (opts.print !== 'overview')
      process.stderr.write(`kube-apiserver and etcd ${bins.version} from ${describeSource(bins.source)}: ${where}\n`);
    if (opts.print === 'overview') {
      process.stdout.write(`Version: ${bins.version}\nSource:  ${describeSource(bins.source)}\nPath:    ${where}\n`);
    } else if (bins.dir === undefined) {
      // TEST_ASSET_* naming binaries in two directories: no single KUBEBUILDER_ASSETS directory exists.
      if (opts.print === 'path') {
        throw new CliError(
          'TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD name files in different directories, so there is no one path to print; use -p env',
        );
      }
      process.stdout.write(
        `export TEST_ASSET_KUBE_APISERVER=${shellQuote(bins.kubeApiserver)}\nexport TEST_ASSET_ETCD=${shellQuote(bins.etcd)}\n`,
      );
    } else if (opts.print === 'path') {
      process.stdout.write(`${bins.dir}\n`);
    } else {
      process.stdout.write(`export KUBEBUILDER_ASSETS=${shellQuote(bins.dir)}\n`);
    }
  } finally {
    interrupt.dispose();
  }
}

async function runList(version: string | undefined, opts: SourceOptions): Promise<void> {
  const { formatPlatform, hostPlatform, listVersions, parseVersion } = await import('@kubescaffold/envtest/setup');
  const { resolve } = await import('node:path');
  let selector;
  try {
    selector = version ? parseVersion(version) : undefined;
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const platform = formatPlatform(hostPlatform());
  const origins = { download: 'downloaded', build: 'built from source', unknown: 'added by hand' } as const;
  let listing;
  try {
    listing = await listVersions({
      cacheRoot: opts.binDir ? resolve(opts.binDir) : undefined,
      selector,
      installedOnly: opts.installedOnly,
      index: opts.index,
    });
  } catch (err) {
    // The index failed: still show what is installed, then fail with the index's message.
    const installed = await listVersions({
      cacheRoot: opts.binDir ? resolve(opts.binDir) : undefined,
      selector,
      installedOnly: true,
    });
    for (const i of installed.installed)
      process.stdout.write(`(installed)  v${i.version}  ${platform}  ${i.dir}  (${origins[i.origin]})\n`);
    const cli = await asCliError(err);
    throw cli instanceof CliError
      ? new CliError(`${cli.message}\n(-i lists only what is installed, without the index)`)
      : cli;
  }
  for (const i of listing.installed)
    process.stdout.write(`(installed)  v${i.version}  ${platform}  ${i.dir}  (${origins[i.origin]})\n`);
  if (listing.installed.length === 0) process.stderr.write(`Nothing is installed in ${listing.cacheRoot}.\n`);
  if (!listing.available) return;
  for (const r of listing.available) process.stdout.write(`(available)  v${r.version}  ${platform}\n`);
  if (listing.available.length === 0)
    process.stderr.write(
      `The index ${listing.indexUrl} offers nothing${selector ? ' matching' : ''} for ${platform}.\n`,
    );
}

/**
 * `scaffold envtest start`: runs the control plane until `signal` aborts, then stops it.
 * Exported so tests can drive it without sending signals to the test process.
 */
export async function runEnvtestStart(opts: StartOptions, signal: AbortSignal): Promise<void> {
  const {
    TestEnvironment: Env,
    describeSource,
    checkKubeconfigTarget,
    writeKubeconfigFile,
  } = await import('@kubescaffold/envtest');
  const { resolve, join } = await import('node:path');

  const apiServerFlags = await apiServerFlagsOf(opts.apiserverArg);
  let env: TestEnvironment | undefined;
  let kubeconfigPath = opts.kubeconfigOut ? resolve(opts.kubeconfigOut) : undefined;
  const userError = (err: unknown) => new CliError(err instanceof Error ? err.message : String(err));
  let keepAlive: NodeJS.Timeout | undefined;
  try {
    if (kubeconfigPath)
      await checkKubeconfigTarget(kubeconfigPath).catch((err: unknown) => Promise.reject(userError(err)));
    const bins = await obtainBinaries(opts.k8sVersion, opts, signal);
    process.stderr.write(
      `Starting etcd and kube-apiserver ${bins.version} from ${describeSource(bins.source)} (${bins.dir ?? bins.kubeApiserver}) …\n`,
    );
    const t0 = Date.now();
    env = await Env.start({
      // KUBEBUILDER_ASSETS and TEST_ASSET_* are read again by TestEnvironment itself; a cache entry is passed on.
      binaryAssetsDirectory: ['cache', 'download', 'build'].includes(bins.source) ? bins.dir : undefined,
      crdDirectoryPaths: (opts.crdDir ?? []).map((d) => resolve(d)),
      errorIfCRDPathMissing: true,
      apiServerFlags,
    });
    if (signal.aborted) return;
    // By default the kubeconfig lives in the environment's temp dir, so it goes wherever that goes.
    kubeconfigPath ??= join(env.tempDir, 'kubeconfig');
    await writeKubeconfigFile(kubeconfigPath, env.kubeconfigYaml()).catch((err: unknown) =>
      Promise.reject(userError(err)),
    );
    process.stdout.write(
      `Control plane ready in ${((Date.now() - t0) / 1000).toFixed(1)}s (Kubernetes ${bins.version}).\n` +
        `  server:     ${env.server}\n` +
        `  kubeconfig: ${kubeconfigPath}\n` +
        Object.entries(apiServerFlags)
          .map(([k, v]) => `  apiserver:  --${k}=${v}\n`)
          .join('') +
        `Use it from another shell:\n` +
        `  export KUBECONFIG=${kubeconfigPath}\n` +
        `Press Ctrl-C to stop; etcd's data is discarded on exit.\n`,
    );
    // Signal handlers don't keep Node's event loop alive, and the control plane's handles are unref'd: without this
    // the process would end in the middle of stopping it, before saying why.
    keepAlive = setInterval(() => undefined, 1 << 30);
    const stopped = new Promise<undefined>((done) => {
      if (signal.aborted) done(undefined);
      else signal.addEventListener('abort', () => done(undefined), { once: true });
    });
    // A control plane whose etcd or kube-apiserver died is said at once, and the other one is stopped.
    const died = await Promise.race([stopped, env.whenProcessExits()]);
    if (died !== undefined) {
      const other = died.component === 'etcd' ? 'kube-apiserver' : 'etcd';
      process.stderr.write(`Stopping ${other}: ${died.how} while the control plane ran.\n`);
      throw new CliError(
        `the control plane stopped: ${died.how}. ${
          died.lastLines.length > 0
            ? `Its last lines:\n${died.lastLines
                .slice(-10)
                .map((l) => `  ${l}`)
                .join('\n')}`
            : 'It wrote nothing.'
        }`,
      );
    }
    process.stderr.write('Stopping the control plane …\n');
  } finally {
    await env?.stop();
    clearInterval(keepAlive);
  }
}
