/**
 * Finding kube-apiserver and etcd on this machine, without network. Order:
 *   1. KUBEBUILDER_ASSETS (a directory, as controller-runtime's envtest and setup-envtest read it);
 *   2. TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD (a path to each binary, as envtest reads them);
 *   3. an explicit directory (TestEnvironment's binaryAssetsDirectory);
 *   4. the cache: one directory per Kubernetes version.
 * Downloading and building (ensure.ts) come after these.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { EnvtestError } from '../errors.js';
import { defaultCacheRoot, ETCD, KUBE_APISERVER } from './paths.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  describeRequest,
  newestMatching,
  parseApiserverVersionOutput,
  parseVersion,
  parseVersionRequest,
  type VersionRequest,
} from '../versions.js';

/** Where the binaries came from. */
export type BinariesSource =
  'KUBEBUILDER_ASSETS' | 'TEST_ASSET' | 'binaryAssetsDirectory' | 'cache' | 'download' | 'build';

/** kube-apiserver and etcd found or obtained, with their version and where they came from. */
export interface Binaries {
  /**
   * The directory holding both binaries (usable as KUBEBUILDER_ASSETS); undefined only when
   * TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD name files in two different directories.
   */
  dir: string | undefined;
  /** Path of the kube-apiserver binary. */
  kubeApiserver: string;
  /** Path of the etcd binary. */
  etcd: string;
  /** Kubernetes version of kube-apiserver, e.g. "1.37.1". */
  version: string;
  /** Where they came from. */
  source: BinariesSource;
}

/** Which version to look for, and where besides the environment variables. */
export interface FindBinariesOptions {
  /**
   * "1.37.1"; "1.37" for the newest 1.37.x; "latest". Default: 1.37.1 if cached, else the newest cached
   * (and, when downloading is allowed, the newest in the release index).
   */
  version?: string;
  /** A directory holding kube-apiserver and etcd; used when KUBEBUILDER_ASSETS and TEST_ASSET_* are unset. */
  binaryAssetsDirectory?: string;
  /** Cache root (`--bin-dir`); default ~/.cache/kubescaffold/envtest. */
  cacheRoot?: string;
  /** The environment variables to read (KUBEBUILDER_ASSETS, TEST_ASSET_*, XDG_CACHE_HOME); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Where binaries came from, in words: "the cache", "KUBEBUILDER_ASSETS", ... */
export function describeSource(source: BinariesSource): string {
  switch (source) {
    case 'KUBEBUILDER_ASSETS':
      return 'KUBEBUILDER_ASSETS';
    case 'TEST_ASSET':
      return 'TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD';
    case 'binaryAssetsDirectory':
      return 'binaryAssetsDirectory';
    case 'cache':
      return 'the cache';
    case 'download':
      return 'the envtest release index (just downloaded)';
    case 'build':
      return 'a build from source (just built)';
  }
}

/** Variables naming each binary, as controller-runtime's envtest reads them. */
export const TEST_ASSET_KUBE_APISERVER = 'TEST_ASSET_KUBE_APISERVER';
/** The variable naming the etcd binary (controller-runtime's envtest reads TEST_ASSET_ETCD). */
export const TEST_ASSET_ETCD = 'TEST_ASSET_ETCD';

/** A source outside the cache, or a cache entry. */
export interface LocalBinaries {
  /** The directory holding them, when they share one. */
  dir: string | undefined;
  /** Path of the kube-apiserver binary. */
  kubeApiserver: string;
  /** Path of the etcd binary. */
  etcd: string;
  /** Where they came from. */
  source: BinariesSource;
  /** Known for cache entries (their directory name). */
  version?: string;
}

/** What local resolution decided, before any version probing. Kept pure for unit tests. */
export type Resolution =
  | { kind: 'found'; binaries: LocalBinaries; notes: string[] }
  | { kind: 'invalid'; message: string }
  | { kind: 'missing'; request: VersionRequest; cacheRoot: string };

/** What local resolution looks at: the environment, the requested version, an explicit directory and the cache root. */
export interface ResolveInput {
  /** The environment variables to read (KUBEBUILDER_ASSETS, TEST_ASSET_*). */
  env: NodeJS.ProcessEnv;
  /** The requested version, as FindBinariesOptions.version. */
  version?: string;
  /** A directory holding both binaries, used when the environment names none. */
  binaryAssetsDirectory?: string;
  /** The cache root to look in. */
  cacheRoot: string;
}

/** File system checks local resolution makes; the real file system in use, a fake in unit tests. */
export interface DirectoryProbe {
  /** True when `path` is an executable regular file. */
  isExecutable(path: string): boolean;
  /** Names of the entries directly under `dir` (empty if it does not exist). */
  list(dir: string): string[];
}

/** True when `dir` holds executable kube-apiserver and etcd. */
export function hasBinaries(probe: DirectoryProbe, dir: string): boolean {
  return probe.isExecutable(join(dir, KUBE_APISERVER)) && probe.isExecutable(join(dir, ETCD));
}

/** The sources that name binaries directly (1–3 above): found, invalid, or undefined when none is set. */
export function resolveExplicit(
  input: Omit<ResolveInput, 'version' | 'cacheRoot'>,
  probe: DirectoryProbe,
): Resolution | undefined {
  const { env } = input;
  const api = env[TEST_ASSET_KUBE_APISERVER];
  const etcd = env[TEST_ASSET_ETCD];
  if (env.KUBEBUILDER_ASSETS) {
    const dir = resolve(env.KUBEBUILDER_ASSETS);
    if (!hasBinaries(probe, dir))
      return {
        kind: 'invalid',
        message: `KUBEBUILDER_ASSETS=${dir} does not contain executable ${KUBE_APISERVER} and ${ETCD}.`,
      };
    const ignored = [api && TEST_ASSET_KUBE_APISERVER, etcd && TEST_ASSET_ETCD].filter(Boolean);
    const notes = ignored.length ? [`${ignored.join(' and ')} ignored: KUBEBUILDER_ASSETS is set and comes first`] : [];
    return {
      kind: 'found',
      binaries: { dir, kubeApiserver: join(dir, KUBE_APISERVER), etcd: join(dir, ETCD), source: 'KUBEBUILDER_ASSETS' },
      notes,
    };
  }
  if (api || etcd) {
    if (!api || !etcd) {
      const [set, unset] = api
        ? [TEST_ASSET_KUBE_APISERVER, TEST_ASSET_ETCD]
        : [TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER];
      return {
        kind: 'invalid',
        message: `${set} is set but ${unset} is not: set both, or set KUBEBUILDER_ASSETS to a directory holding both binaries.`,
      };
    }
    for (const [name, path] of [
      [TEST_ASSET_KUBE_APISERVER, api],
      [TEST_ASSET_ETCD, etcd],
    ] as const) {
      if (!probe.isExecutable(resolve(path)))
        return { kind: 'invalid', message: `${name}=${resolve(path)} is not an executable file.` };
    }
    const [a, e] = [resolve(api), resolve(etcd)];
    const dir =
      dirname(a) === dirname(e) && a === join(dirname(a), KUBE_APISERVER) && e === join(dirname(e), ETCD)
        ? dirname(a)
        : undefined;
    return { kind: 'found', binaries: { dir, kubeApiserver: a, etcd: e, source: 'TEST_ASSET' }, notes: [] };
  }
  if (input.binaryAssetsDirectory) {
    const dir = resolve(input.binaryAssetsDirectory);
    if (!hasBinaries(probe, dir))
      return {
        kind: 'invalid',
        message: `binaryAssetsDirectory ${dir} does not contain executable ${KUBE_APISERVER} and ${ETCD}.`,
      };
    return {
      kind: 'found',
      binaries: {
        dir,
        kubeApiserver: join(dir, KUBE_APISERVER),
        etcd: join(dir, ETCD),
        source: 'binaryAssetsDirectory',
      },
      notes: [],
    };
  }
  return undefined;
}

/** Complete version directories in the cache ("1.37.1", ...); build and download temp dirs never parse as versions. */
export function cachedVersions(cacheRoot: string, probe: DirectoryProbe): string[] {
  return probe.list(cacheRoot).filter((name) => {
    try {
      parseVersion(name);
    } catch {
      return false;
    }
    return hasBinaries(probe, join(cacheRoot, name));
  });
}

/**
 * The cached version `request` picks: an exact or minor selector its newest match; the default
 * DEFAULT_KUBERNETES_VERSION if cached, else the newest; "latest" the newest cached.
 */
export function pickCached(request: VersionRequest, cached: readonly string[]): string | undefined {
  if (request.kind === 'selector') return newestMatching(request.version, cached);
  if (request.kind === 'default')
    return newestMatching(parseVersion(DEFAULT_KUBERNETES_VERSION), cached) ?? newestMatching(undefined, cached);
  return newestMatching(undefined, cached);
}

/** Local resolution: the explicit sources, then the cache. */
export function resolveBinaries(input: ResolveInput, probe: DirectoryProbe): Resolution {
  const explicit = resolveExplicit(input, probe);
  if (explicit) return explicit;
  const request = parseVersionRequest(input.version);
  const pick = pickCached(request, cachedVersions(input.cacheRoot, probe));
  if (pick) return { kind: 'found', binaries: cacheEntry(input.cacheRoot, pick), notes: [] };
  return { kind: 'missing', request, cacheRoot: input.cacheRoot };
}

/** The cache directory of `version` as LocalBinaries. */
export function cacheEntry(cacheRoot: string, version: string, source: BinariesSource = 'cache'): LocalBinaries {
  const dir = join(cacheRoot, version);
  return { dir, kubeApiserver: join(dir, KUBE_APISERVER), etcd: join(dir, ETCD), source, version };
}

/** The real filesystem behind resolveBinaries. */
export const fsProbe: DirectoryProbe & { hasBinaries(dir: string): boolean } = {
  isExecutable(path) {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  },
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
  hasBinaries(dir) {
    return hasBinaries(fsProbe, dir);
  },
};

/** Thrown when no source provides the binaries; the message names the ways to get them. */
export class BinariesNotFoundError extends EnvtestError {
  constructor(detail: string) {
    super(
      `${detail}\n` +
        'Get kube-apiserver and etcd in one of these ways:\n' +
        '  1. run `scaffold envtest use` to download them from the envtest release index into the cache\n' +
        '     (~/.cache/kubescaffold/envtest/<version>); behind a proxy set HTTPS_PROXY, or point --index (or\n' +
        '     KUBESCAFFOLD_ENVTEST_INDEX) at a mirror of envtest-releases.yaml;\n' +
        "  2. set KUBEBUILDER_ASSETS to a directory that holds them (for example from kubebuilder's setup-envtest:\n" +
        '     export KUBEBUILDER_ASSETS="$(setup-envtest use -p path)"), or TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD;\n' +
        '  3. install Go (https://go.dev/dl/, 1.26 or newer for Kubernetes ' +
        DEFAULT_KUBERNETES_VERSION +
        ') and run\n' +
        '     `scaffold envtest use --build` to build them from the Go module proxy (about 20 minutes on 2 cores).',
    );
    this.name = 'BinariesNotFoundError';
  }
}

const execFileAsync = promisify(execFile);

/** Asks kube-apiserver for its version ("1.37.1"). */
export async function probeApiserverVersion(binary: string): Promise<string> {
  const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 30_000 });
  const v = parseApiserverVersionOutput(stdout);
  if (!v) throw new Error(`${binary} --version printed no Kubernetes version: ${stdout.trim()}`);
  return v;
}

/** Completes LocalBinaries with the version kube-apiserver reports (cache entries are named by it). */
export async function withVersion(local: LocalBinaries): Promise<Binaries> {
  const version = local.version ?? (await probeApiserverVersion(local.kubeApiserver));
  return { dir: local.dir, kubeApiserver: local.kubeApiserver, etcd: local.etcd, version, source: local.source };
}

/** Finds kube-apiserver and etcd on this machine, without network or building; throws BinariesNotFoundError. */
export async function findBinaries(opts: FindBinariesOptions = {}): Promise<Binaries> {
  const cacheRoot = opts.cacheRoot ?? defaultCacheRoot(opts.env);
  const r = resolveBinaries(
    {
      env: opts.env ?? process.env,
      version: opts.version,
      binaryAssetsDirectory: opts.binaryAssetsDirectory,
      cacheRoot,
    },
    fsProbe,
  );
  if (r.kind === 'invalid') throw new BinariesNotFoundError(r.message);
  if (r.kind === 'missing') {
    throw new BinariesNotFoundError(
      `No kube-apiserver/etcd for Kubernetes ${describeRequest(r.request)} in ${r.cacheRoot}, and KUBEBUILDER_ASSETS is not set.`,
    );
  }
  return withVersion(r.binaries);
}
