/**
 * Finding kube-apiserver and etcd. Order, as controller-runtime's envtest and setup-envtest:
 * KUBEBUILDER_ASSETS, then an explicit directory, then the cache (one directory per version).
 * Building is not done here (it takes minutes); `scaffold envtest use` does it, see build.ts.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { defaultCacheRoot, ETCD, KUBE_APISERVER } from './paths.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  formatVersion,
  isExact,
  newestMatching,
  parseApiserverVersionOutput,
  parseVersion,
  type Version,
} from './versions.js';

export type BinariesSource = 'KUBEBUILDER_ASSETS' | 'binaryAssetsDirectory' | 'cache';

export interface Binaries {
  /** The directory holding both binaries (usable as KUBEBUILDER_ASSETS). */
  dir: string;
  kubeApiserver: string;
  etcd: string;
  /** Kubernetes version of kube-apiserver, e.g. "1.37.1". */
  version: string;
  source: BinariesSource;
}

export interface FindBinariesOptions {
  /** "1.37.1", or "1.37" for the newest cached 1.37.x. Default: 1.37.1 if cached, else the newest cached. */
  version?: string;
  /** A directory holding kube-apiserver and etcd; used when KUBEBUILDER_ASSETS is unset. */
  binaryAssetsDirectory?: string;
  /** Cache root (`--bin-dir`); default ~/.cache/kubescaffold/envtest. */
  cacheRoot?: string;
  env?: NodeJS.ProcessEnv;
}

/** What resolution decided, before any version probing. Kept pure for unit tests. */
export type Resolution =
  | { kind: 'found'; dir: string; source: BinariesSource; version?: string }
  | { kind: 'invalid'; dir: string; source: BinariesSource }
  | { kind: 'missing'; wanted: Version; cacheRoot: string };

export interface ResolveInput {
  env: NodeJS.ProcessEnv;
  version?: string;
  binaryAssetsDirectory?: string;
  cacheRoot: string;
}

export interface DirectoryProbe {
  /** True when the directory holds executable kube-apiserver and etcd. */
  hasBinaries(dir: string): boolean;
  /** Names of the entries directly under `dir` (empty if it does not exist). */
  list(dir: string): string[];
}

export function resolveBinaries(input: ResolveInput, probe: DirectoryProbe): Resolution {
  const assets = input.env.KUBEBUILDER_ASSETS;
  if (assets) {
    const dir = resolve(assets);
    return probe.hasBinaries(dir) ? { kind: 'found', dir, source: 'KUBEBUILDER_ASSETS' } : { kind: 'invalid', dir, source: 'KUBEBUILDER_ASSETS' };
  }
  if (input.binaryAssetsDirectory) {
    const dir = resolve(input.binaryAssetsDirectory);
    return probe.hasBinaries(dir) ? { kind: 'found', dir, source: 'binaryAssetsDirectory' } : { kind: 'invalid', dir, source: 'binaryAssetsDirectory' };
  }
  const selector = input.version ? parseVersion(input.version) : undefined;
  // Build directories ('.build-*') and the logs directory never parse as versions, so they are skipped.
  const cached = probe.list(input.cacheRoot).filter((name) => probe.hasBinaries(join(input.cacheRoot, name)));
  const preferred = selector ?? parseVersion(DEFAULT_KUBERNETES_VERSION);
  const pick = newestMatching(preferred, cached) ?? (selector ? undefined : newestMatching(undefined, cached));
  if (pick) return { kind: 'found', dir: join(input.cacheRoot, pick), source: 'cache', version: pick };
  return { kind: 'missing', wanted: preferred, cacheRoot: input.cacheRoot };
}

/** The real filesystem behind resolveBinaries. */
export const fsProbe: DirectoryProbe = {
  hasBinaries(dir) {
    return [KUBE_APISERVER, ETCD].every((name) => {
      try {
        const p = join(dir, name);
        accessSync(p, constants.X_OK);
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
  },
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
};

/** Thrown when no source provides the binaries; the message names the three ways to get them. */
export class BinariesNotFoundError extends Error {
  constructor(detail: string) {
    super(
      `${detail}\n` +
        'Get kube-apiserver and etcd in one of three ways:\n' +
        '  1. set KUBEBUILDER_ASSETS to a directory that holds them (for example from kubebuilder\'s setup-envtest:\n' +
        '     export KUBEBUILDER_ASSETS="$(setup-envtest use -p path)");\n' +
        '  2. run `scaffold envtest use` to build them into the cache (~/.cache/kubescaffold/envtest/<version>);\n' +
        '  3. install Go (https://go.dev/dl/, 1.26 or newer for Kubernetes ' + DEFAULT_KUBERNETES_VERSION + ') so that\n' +
        '     `scaffold envtest use` can build them from the Go module proxy.',
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

/** Finds kube-apiserver and etcd without building anything; throws BinariesNotFoundError. */
export async function findBinaries(opts: FindBinariesOptions = {}): Promise<Binaries> {
  const cacheRoot = opts.cacheRoot ?? defaultCacheRoot(opts.env);
  const r = resolveBinaries(
    { env: opts.env ?? process.env, version: opts.version, binaryAssetsDirectory: opts.binaryAssetsDirectory, cacheRoot },
    fsProbe,
  );
  if (r.kind === 'invalid') {
    const where = r.source === 'KUBEBUILDER_ASSETS' ? `KUBEBUILDER_ASSETS=${r.dir}` : `binaryAssetsDirectory ${r.dir}`;
    throw new BinariesNotFoundError(`${where} does not contain executable ${KUBE_APISERVER} and ${ETCD}.`);
  }
  if (r.kind === 'missing') {
    const what = isExact(r.wanted) ? formatVersion(r.wanted) : `${formatVersion(r.wanted)}.x`;
    throw new BinariesNotFoundError(`No kube-apiserver/etcd for Kubernetes ${what} in ${r.cacheRoot}, and KUBEBUILDER_ASSETS is not set.`);
  }
  const kubeApiserver = join(r.dir, KUBE_APISERVER);
  const version = r.version ?? (await probeApiserverVersion(kubeApiserver));
  return { dir: r.dir, kubeApiserver, etcd: join(r.dir, ETCD), version, source: r.source };
}
