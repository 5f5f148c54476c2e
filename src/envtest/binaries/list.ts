/** `scaffold envtest list`: what the cache holds, and what the release index offers for this platform. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cachedVersions, fsProbe } from './find.js';
import { fetchText, type DownloadNetworkOptions } from './download.js';
import { defaultCacheRoot } from './paths.js';
import { hostPlatform, type Platform } from './platform.js';
import {
  DEFAULT_INDEX_URL,
  INDEX_ENV,
  parseReleaseIndex,
  selectRelease,
  type EnvtestRelease,
} from './release-index.js';
import { compareVersions, matchesVersion, parseVersion, type Version } from '../versions.js';

/** One complete version directory in the cache. */
export interface InstalledVersion {
  /** The Kubernetes version, e.g. "1.37.1". */
  version: string;
  /** Its directory in the cache. */
  dir: string;
  /** How it got there: downloaded (download-info.json), built (build-info.json), or put there by hand. */
  origin: 'download' | 'build' | 'unknown';
}

/** What listVersions looks at: the cache root, an optional version filter, and the index unless installedOnly. */
export interface ListOptions {
  /** The cache root; default $XDG_CACHE_HOME/kubescaffold/envtest or ~/.cache/kubescaffold/envtest. */
  cacheRoot?: string;
  /** Only versions this selector selects ("1.36", "1.36.2"). */
  selector?: Version;
  /** Skip the index. */
  installedOnly?: boolean;
  /** The release index URL; default $KUBESCAFFOLD_ENVTEST_INDEX, else controller-tools' published one. */
  index?: string;
  /** The environment variables to read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Timeout and retries of the index request. */
  network?: Pick<DownloadNetworkOptions, 'timeoutMs' | 'attempts' | 'retryDelayMs'>;
  /** Aborts the index request. */
  signal?: AbortSignal;
  /** The platform whose releases to list; default this machine's. */
  platform?: Platform;
}

/** The cached versions and, unless installedOnly, the releases the index offers for this machine. */
export interface Listing {
  /** The cache root that was listed. */
  cacheRoot: string;
  /** The complete versions in the cache, newest first. */
  installed: InstalledVersion[];
  /** The index's releases for this platform, newest first; undefined with installedOnly. */
  available?: EnvtestRelease[];
  /** The index that was (or, with installedOnly, would have been) read. */
  indexUrl: string;
}

/** Lists the cached versions (newest first) and, unless installedOnly, the index's; index failures throw. */
export async function listVersions(opts: ListOptions = {}): Promise<Listing> {
  const env = opts.env ?? process.env;
  const cacheRoot = opts.cacheRoot ?? defaultCacheRoot(env);
  const indexUrl = opts.index || env[INDEX_ENV] || DEFAULT_INDEX_URL;
  const matches = (v: string) => !opts.selector || matchesVersion(opts.selector, parseVersion(v));
  const installed = cachedVersions(cacheRoot, fsProbe)
    .filter(matches)
    .sort((a, b) => compareVersions(parseVersion(b), parseVersion(a)))
    .map((version): InstalledVersion => {
      const dir = join(cacheRoot, version);
      const origin = existsSync(join(dir, 'download-info.json'))
        ? 'download'
        : existsSync(join(dir, 'build-info.json'))
          ? 'build'
          : 'unknown';
      return { version, dir, origin };
    });
  if (opts.installedOnly) return { cacheRoot, installed, indexUrl };
  const platform = opts.platform ?? hostPlatform();
  const releases = parseReleaseIndex(
    await fetchText(indexUrl, { ...opts.network, env, signal: opts.signal }),
    indexUrl,
  );
  const available = releases.filter((r) => selectRelease([r], opts.selector, platform) !== undefined);
  return { cacheRoot, installed, available, indexUrl };
}
