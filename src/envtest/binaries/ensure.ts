/**
 * Obtaining kube-apiserver and etcd, for `scaffold envtest use|start`, the quickstart and
 * TestEnvironment. Sources, in order:
 *   KUBEBUILDER_ASSETS → TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD → binaryAssetsDirectory → the cache
 *   → a download from the envtest release index → a build from the Go module proxy.
 * The build comes last: only when asked for (`build: 'prefer'`), or when the index has no matching
 * release or cannot be reached; on a terminal it asks first.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import {
  BinariesNotFoundError,
  cacheEntry,
  cachedVersions,
  fsProbe,
  pickCached,
  resolveExplicit,
  withVersion,
  type Binaries,
  type FindBinariesOptions,
} from './find.js';
import { buildBinaries, goEnv } from './build.js';
import { confirmOnTerminal, QuestionInterrupted } from './confirm.js';
import { EnvtestError } from '../errors.js';
import { DownloadError } from './download-error.js';
import { fetchText, type DownloadNetworkOptions } from './download.js';
import { installRelease } from './install.js';
import { defaultCacheRoot } from './paths.js';
import { formatPlatform, hostPlatform, type Platform } from './platform.js';
import type { ProgressOutput } from './progress.js';
import {
  DEFAULT_INDEX_URL,
  INDEX_ENV,
  noReleaseReason,
  parseReleaseIndex,
  ReleaseIndexError,
  selectRelease,
  type EnvtestRelease,
} from './release-index.js';
import {
  compareVersions,
  DEFAULT_KUBERNETES_VERSION,
  describeRequest,
  formatVersion,
  isExact,
  parseVersion,
  parseVersionRequest,
  type VersionRequest,
} from '../versions.js';

/** How long a build from source takes with a cold Go cache and module cache: 19 minutes measured on 2 cores. */
const BUILD_DURATION = 'about 20 minutes on 2 cores';

/** Set to any value, it makes installedOnly the default, as for setup-envtest. */
export const INSTALLED_ONLY_ENV = 'ENVTEST_INSTALLED_ONLY';

/** How ensureBinaries may obtain the binaries: which version, which sources, and how it reports and asks. */
export interface EnsureBinariesOptions extends FindBinariesOptions {
  /** Only KUBEBUILDER_ASSETS, TEST_ASSET_* and the cache: never download or build. Default: ENVTEST_INSTALLED_ONLY is set. */
  installedOnly?: boolean;
  /**
   * 'fallback' (default): build from source only when the index has no matching release or cannot be
   * reached, asking first on a terminal. 'prefer': build instead of downloading, without asking.
   * 'never': fail rather than build (TestEnvironment: a build takes minutes).
   */
  build?: 'fallback' | 'prefer' | 'never';
  /** The envtest release index (http(s):// or file://). Default: $KUBESCAFFOLD_ENVTEST_INDEX, else controller-tools' published one. */
  index?: string;
  /** etcd version for a build from source. */
  etcdVersion?: string;
  /** Aborts a download or build in progress. */
  signal?: AbortSignal;
  /** Receives progress lines; default: stderr. */
  progress?: (line: string) => void;
  /** Where a download redraws its progress bar; default: stderr when it is a terminal and `progress` is not given. */
  terminal?: ProgressOutput['terminal'];
  /** Asked before a build the caller did not request; default: a [Y/n] question on a terminal, yes otherwise. */
  confirmBuild?: (question: string) => Promise<boolean>;
  /** Timeouts and retries of the index and archive requests. */
  network?: Pick<DownloadNetworkOptions, 'timeoutMs' | 'attempts' | 'retryDelayMs'>;
  /** The platform to download for; default this machine's (the binaries must run here). */
  platform?: Platform;
  /** Clock of the progress display. */
  now?: () => number;
}

/** Finds the binaries, or downloads or builds them into the cache; throws BinariesNotFoundError when none of that can. */
export async function ensureBinaries(opts: EnsureBinariesOptions = {}): Promise<Binaries> {
  const env = opts.env ?? process.env;
  const say = opts.progress ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const explicit = resolveExplicit({ env, binaryAssetsDirectory: opts.binaryAssetsDirectory }, fsProbe);
  if (explicit?.kind === 'invalid') throw new BinariesNotFoundError(explicit.message);
  if (explicit?.kind === 'found') {
    explicit.notes.forEach(say);
    return withVersion(explicit.binaries);
  }

  const cacheRoot = opts.cacheRoot ?? defaultCacheRoot(env);
  const request = parseVersionRequest(opts.version);
  const cached = pickCached(request, cachedVersions(cacheRoot, fsProbe));
  const fromCache = (version: string) => withVersion(cacheEntry(cacheRoot, version));
  // "latest" and "1.36!" ask the index whether something newer exists; everything else is content with the cache.
  const wantsIndex = request.kind === 'latest' || (request.kind === 'selector' && request.checkIndex);
  const installedOnly = opts.installedOnly ?? Boolean(env[INSTALLED_ONLY_ENV]);
  if (cached && (!wantsIndex || installedOnly)) return fromCache(cached);
  const wanted = `Kubernetes ${describeRequest(request)}`;
  if (installedOnly) {
    throw new BinariesNotFoundError(
      `No kube-apiserver/etcd for ${wanted} in ${cacheRoot}, and --installed-only (-i, or ${INSTALLED_ONLY_ENV}) allows neither ` +
        'downloading nor building. `scaffold envtest list` shows what is installed and what the index offers.',
    );
  }

  const build = opts.build ?? 'fallback';
  let buildReason = 'a build from source was asked for (--build)';
  if (build !== 'prefer') {
    const indexUrl = opts.index || env[INDEX_ENV] || DEFAULT_INDEX_URL;
    const chosenIndex = Boolean(opts.index || env[INDEX_ENV]);
    const net = { ...opts.network, env, signal: opts.signal };
    let releases: EnvtestRelease[] | undefined;
    try {
      releases = parseReleaseIndex(await fetchText(indexUrl, net), indexUrl);
    } catch (err) {
      if (opts.signal?.aborted || !(err instanceof DownloadError || err instanceof ReleaseIndexError)) throw err;
      const problem =
        err instanceof DownloadError ? `the envtest release index could not be read: ${err.message}` : err.message;
      // An index the user chose must work; the default one may simply be out of reach (CI without internet).
      if (chosenIndex) throw err;
      if (cached) {
        say(`${problem}; using the cached Kubernetes ${cached}`);
        return fromCache(cached);
      }
      if (build === 'never')
        throw new BinariesNotFoundError(`No kube-apiserver/etcd for ${wanted} in ${cacheRoot}, and ${problem}`);
      buildReason = problem;
    }
    if (releases) {
      const platform = opts.platform ?? hostPlatform();
      const release = pickRelease(releases, request, platform);
      if (release && cached && compareVersions(parseVersion(cached), parseVersion(release.version)) >= 0)
        return fromCache(cached);
      if (release) {
        say(
          `Kubernetes ${release.version} (${formatPlatform(platform)}) is not in the cache ${cacheRoot}: downloading it from the envtest release index ${indexUrl}`,
        );
        const terminal = opts.terminal ?? (opts.progress || !process.stderr.isTTY ? undefined : process.stderr);
        const { dir } = await installRelease(release, {
          ...net,
          cacheRoot,
          indexUrl,
          output: { line: say, terminal },
          now: opts.now,
        });
        say(`Kubernetes ${release.version} control plane binaries are in ${dir}`);
        return withVersion(cacheEntry(cacheRoot, release.version, 'download'));
      }
      if (cached) return fromCache(cached);
      buildReason = noReleaseReason(
        releases,
        request.kind === 'selector' ? request.version : undefined,
        platform,
        indexUrl,
      );
      if (build === 'never')
        throw new BinariesNotFoundError(`No kube-apiserver/etcd for ${wanted} in ${cacheRoot}, and ${buildReason}.`);
    }
  }

  if (!lookPath('go', env))
    throw new BinariesNotFoundError(
      `No kube-apiserver/etcd for ${wanted} in ${cacheRoot}: ${buildReason}, and there is no \`go\` on PATH to build them from source.`,
    );
  const version = await buildVersion(request, env);
  if (build !== 'prefer') {
    const confirm = opts.confirmBuild ?? ((q: string) => confirmOnTerminal(q, opts.signal));
    say(`${capitalize(buildReason)}.`);
    const question = `Build kube-apiserver ${version} and etcd from the Go module proxy instead? It takes ${BUILD_DURATION}.`;
    let yes: boolean;
    try {
      yes = await confirm(question);
    } catch (err) {
      // Ctrl-C is an answer too: one line and the shell's exit code for it, with nothing added to the cache.
      if (err instanceof QuestionInterrupted)
        throw new EnvtestError(`Not building Kubernetes ${version} from source: ${err.message}.`, { exitCode: 130 });
      throw err;
    }
    if (!yes) throw new BinariesNotFoundError(`Not building Kubernetes ${version} from source: declined.`);
  }
  const result = await buildBinaries({
    kubernetesVersion: version,
    etcdVersion: opts.etcdVersion,
    cacheRoot,
    signal: opts.signal,
    progress: say,
    env,
  });
  return withVersion({ ...cacheEntry(cacheRoot, version, 'build'), dir: result.dir });
}

/** The default request takes DEFAULT_KUBERNETES_VERSION when the index has it, else the newest release. */
function pickRelease(
  releases: readonly EnvtestRelease[],
  request: VersionRequest,
  platform: Platform,
): EnvtestRelease | undefined {
  if (request.kind === 'selector') return selectRelease(releases, request.version, platform);
  if (request.kind === 'default')
    return (
      selectRelease(releases, parseVersion(DEFAULT_KUBERNETES_VERSION), platform) ??
      selectRelease(releases, undefined, platform)
    );
  return selectRelease(releases, undefined, platform);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const execFileAsync = promisify(execFile);

/** The exact version to build: "1.37.1" stays; "1.36" is the newest 1.36.x the module proxy knows; default and latest are DEFAULT_KUBERNETES_VERSION. */
async function buildVersion(request: VersionRequest, env: NodeJS.ProcessEnv): Promise<string> {
  if (request.kind !== 'selector') return DEFAULT_KUBERNETES_VERSION;
  const v = request.version;
  if (isExact(v)) return formatVersion(v);
  const query = `k8s.io/kubernetes@v${v.major}.${v.minor}`;
  try {
    const { stdout } = await execFileAsync('go', ['list', '-m', '-json', query], { env: goEnv(env), timeout: 120_000 });
    const found = (JSON.parse(stdout) as { Version?: string }).Version;
    if (found) return found.replace(/^v/, '');
  } catch {
    // k8s.io/kubernetes' proxy version list can lag its tags: fall back to the default below
  }
  const fallback = parseVersion(DEFAULT_KUBERNETES_VERSION);
  if (fallback.major === v.major && fallback.minor === v.minor) return DEFAULT_KUBERNETES_VERSION;
  throw new Error(
    `the Go module proxy lists no release for ${query}; pass an exact version such as ${DEFAULT_KUBERNETES_VERSION}`,
  );
}

/** The path of an executable on PATH, like `which`. */
export function lookPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}
