/**
 * The envtest release index that controller-tools publishes and setup-envtest reads by default
 * (envtest-releases.yaml):
 *
 *   releases:
 *     v1.36.2:
 *       envtest-v1.36.2-linux-amd64.tar.gz:
 *         hash: <sha512, hex>
 *         selfLink: <URL of the archive>
 *
 * Each archive holds controller-tools/envtest/{kube-apiserver,etcd,kubectl}.
 */
import { isObject } from '@kubescaffold/runtime/json';
import { parse } from 'yaml';
import { formatPlatform, type Platform } from './platform.js';
import { compareVersions, formatVersion, isExact, matchesVersion, parseVersion, type Version } from '../versions.js';
import { EnvtestError } from '../errors.js';

/** setup-envtest's default index (its remote.DefaultIndexURL). */
export const DEFAULT_INDEX_URL =
  'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml';
/** Environment variable naming another index, e.g. a mirror; `--index` takes precedence. */
export const INDEX_ENV = 'KUBESCAFFOLD_ENVTEST_INDEX';

/** One downloadable archive: a Kubernetes version for one platform. */
export interface EnvtestRelease {
  /** "1.36.2" */
  version: string;
  /** The OS and architecture it is built for. */
  platform: Platform;
  /** "envtest-v1.36.2-linux-amd64.tar.gz" */
  archiveName: string;
  /** Lower-case hex sha512 of the archive. */
  sha512: string;
  /** Where to download the archive. */
  url: string;
}

/** The index could not be read or parsed; names the index URL. */
export class ReleaseIndexError extends EnvtestError {
  constructor(
    readonly indexUrl: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, { cause: options?.cause });
    this.name = 'ReleaseIndexError';
  }
}

// As setup-envtest's ArchiveRE, without pre-releases: those are never picked by a selector.
const ARCHIVE_RE = /^envtest-v(\d+\.\d+\.\d+)-(\w+)-(\w+)\.tar\.gz$/;
const SHA512_RE = /^[0-9a-f]{128}$/i;

/** Parses the index text; archives whose names are not versioned envtest archives (pre-releases, others) are skipped. */
export function parseReleaseIndex(text: string, indexUrl: string): EnvtestRelease[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new ReleaseIndexError(
      indexUrl,
      `the envtest release index ${indexUrl} is not valid YAML: ${(err as Error).message}`,
    );
  }
  const releases = isObject(doc) ? doc.releases : undefined;
  if (!isObject(releases)) {
    throw new ReleaseIndexError(
      indexUrl,
      `the envtest release index ${indexUrl} has no "releases" map; is it an envtest-releases.yaml?`,
    );
  }
  const out: EnvtestRelease[] = [];
  for (const [version, archives] of Object.entries(releases)) {
    if (!isObject(archives))
      throw new ReleaseIndexError(indexUrl, `${indexUrl}: releases.${version} is not a map of archives`);
    for (const [archiveName, archive] of Object.entries(archives)) {
      const m = ARCHIVE_RE.exec(archiveName);
      if (!m) continue;
      const where = `${indexUrl}: releases.${version}.${archiveName}`;
      if (!isObject(archive) || typeof archive.hash !== 'string' || typeof archive.selfLink !== 'string') {
        throw new ReleaseIndexError(indexUrl, `${where} needs a "hash" and a "selfLink"`);
      }
      if (!SHA512_RE.test(archive.hash)) throw new ReleaseIndexError(indexUrl, `${where}: "hash" is not a hex sha512`);
      let url: string;
      try {
        url = new URL(archive.selfLink, indexUrl).href; // a mirror may list archives relative to its index
      } catch {
        throw new ReleaseIndexError(indexUrl, `${where}: "selfLink" ${archive.selfLink} is not a URL`);
      }
      out.push({
        version: m[1]!,
        platform: { os: m[2]!, arch: m[3]! },
        archiveName,
        sha512: archive.hash.toLowerCase(),
        url,
      });
    }
  }
  return out.sort((a, b) => compareVersions(parseVersion(b.version), parseVersion(a.version)));
}

/** The newest release for `platform` that `selector` selects (any version when undefined). */
export function selectRelease(
  releases: readonly EnvtestRelease[],
  selector: Version | undefined,
  platform: Platform,
): EnvtestRelease | undefined {
  let best: EnvtestRelease | undefined;
  for (const r of releases) {
    if (r.platform.os !== platform.os || r.platform.arch !== platform.arch) continue;
    const v = parseVersion(r.version);
    if (selector && !matchesVersion(selector, v)) continue;
    if (!best || compareVersions(v, parseVersion(best.version)) > 0) best = r;
  }
  return best;
}

/** Why `selectRelease` found nothing, for the message that says so. */
export function noReleaseReason(
  releases: readonly EnvtestRelease[],
  selector: Version | undefined,
  platform: Platform,
  indexUrl: string,
): string {
  const wanted = selector
    ? isExact(selector)
      ? formatVersion(selector)
      : `${formatVersion(selector)}.x`
    : 'any version';
  const forPlatform = releases.filter((r) => r.platform.os === platform.os && r.platform.arch === platform.arch);
  if (forPlatform.length === 0)
    return `the envtest release index ${indexUrl} has no archive for ${formatPlatform(platform)}`;
  const newest = forPlatform
    .slice(0, 3)
    .map((r) => r.version)
    .join(', ');
  return `the envtest release index ${indexUrl} has no ${wanted} for ${formatPlatform(platform)} (newest: ${newest})`;
}
