/**
 * Version numbers the control plane is built and cached by. Kubernetes versions are written
 * without the leading "v" ("1.37.1"), as the cache directories are named. An entry point of its own, with no
 * dependencies, so that a CLI can show the defaults without loading the rest of envtest.
 *
 * @module @kubescaffold/envtest/versions
 */

/** The newest Kubernetes release whose go.mod (go 1.26.0) builds with the Go 1.26 toolchain. */
export const DEFAULT_KUBERNETES_VERSION = '1.37.1';
/** etcd built next to it (3.6 is what kube-apiserver 1.34+ is tested against). */
export const DEFAULT_ETCD_VERSION = '3.6.12';

/** A Kubernetes version, or a minor-only selector (no patch). */
export interface Version {
  /** The major version (1). */
  major: number;
  /** The minor version. */
  minor: number;
  /** Absent for a minor-only selector such as "1.37" or "1.37.x". */
  patch?: number;
}

const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.(\d+|x|\*))?$/;

/** Parses "1.37.1", "v1.37.1", "1.37" or "1.37.x"; throws on anything else. */
export function parseVersion(text: string): Version {
  const m = VERSION_RE.exec(text.trim());
  if (!m) throw new Error(`invalid version "${text}": expected MAJOR.MINOR.PATCH or MAJOR.MINOR, e.g. 1.37.1`);
  const v: Version = { major: Number(m[1]), minor: Number(m[2]) };
  if (m[3] !== undefined && m[3] !== 'x' && m[3] !== '*') v.patch = Number(m[3]);
  return v;
}

/** True when the version names a patch release. */
export function isExact(v: Version): v is Required<Version> {
  return v.patch !== undefined;
}

/** 'major.minor.patch', or 'major.minor' for a selector. */
export function formatVersion(v: Version): string {
  return v.patch === undefined ? `${v.major}.${v.minor}` : `${v.major}.${v.minor}.${v.patch}`;
}

/** Orders versions; a missing patch sorts before any patch of the same minor. */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || (a.patch ?? -1) - (b.patch ?? -1);
}

/** True when `v` is selected by `selector` (same major.minor, and same patch if the selector has one). */
export function matchesVersion(selector: Version, v: Version): boolean {
  return (
    selector.major === v.major &&
    selector.minor === v.minor &&
    (selector.patch === undefined || selector.patch === v.patch)
  );
}

/** The newest of `candidates` (version strings) that `selector` selects, if any; unparsable names are skipped. */
export function newestMatching(selector: Version | undefined, candidates: readonly string[]): string | undefined {
  let best: Version | undefined;
  let bestName: string | undefined;
  for (const name of candidates) {
    let v: Version;
    try {
      v = parseVersion(name);
    } catch {
      continue;
    }
    if (!isExact(v) || (selector && !matchesVersion(selector, v))) continue;
    if (!best || compareVersions(v, best) > 0) {
      best = v;
      bestName = formatVersion(v);
    }
  }
  return bestName;
}

/** Staging modules (k8s.io/api, ...) are published as v0.MINOR.PATCH for Kubernetes v1.MINOR.PATCH. */
export function stagingModuleVersion(k8s: Required<Version>): string {
  return `v0.${k8s.minor}.${k8s.patch}`;
}

/** Parses a Go toolchain version: "go1.26.8", "1.26.0", "go1.26" or "go1.27rc1" (a prerelease counts as x.y.-1). */
export function parseGoVersion(text: string): Required<Version> {
  const m = /^(?:go)?(\d+)\.(\d+)(?:\.(\d+)|(rc|beta)\d+)?/.exec(text.trim());
  if (!m) throw new Error(`invalid Go version "${text}"`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] !== undefined ? Number(m[3]) : m[4] ? -1 : 0 };
}

/** True when a toolchain `local` can build a module whose go.mod says `go <required>`. */
export function goSatisfies(local: string, required: string): boolean {
  return compareVersions(parseGoVersion(local), parseGoVersion(required)) >= 0;
}

/** "Kubernetes v1.37.1" (kube-apiserver --version) → "1.37.1". */
export function parseApiserverVersionOutput(out: string): string | undefined {
  const m = /Kubernetes v(\d+\.\d+\.\d+)/.exec(out);
  return m?.[1];
}

/** "etcd Version: 3.6.12\nGit SHA: ..." (etcd --version) → "3.6.12". */
export function parseEtcdVersionOutput(out: string): string | undefined {
  const m = /etcd Version:\s*v?(\d+\.\d+\.\d+)/.exec(out);
  return m?.[1];
}

/**
 * What a user asked for, as setup-envtest reads it: nothing (the default), "latest", or a selector such as
 * "1.37.1" or "1.37". A trailing "!" ("1.36!") asks to check the release index even when the cache has a match.
 */
export type VersionRequest =
  { kind: 'default' } | { kind: 'latest' } | { kind: 'selector'; version: Version; checkIndex: boolean };

/** Parses a version argument; throws on anything that is neither "latest" nor a version selector. */
export function parseVersionRequest(text: string | undefined): VersionRequest {
  const t = text?.trim();
  if (!t) return { kind: 'default' };
  if (t === 'latest') return { kind: 'latest' };
  const checkIndex = t.endsWith('!');
  try {
    return { kind: 'selector', version: parseVersion(checkIndex ? t.slice(0, -1) : t), checkIndex };
  } catch {
    throw new Error(
      `invalid version "${text}": expected latest, MAJOR.MINOR.PATCH or MAJOR.MINOR (e.g. 1.37.1 or 1.37)`,
    );
  }
}

/** "1.37.1", "1.37.x", "latest" or "the default version": for messages. */
export function describeRequest(r: VersionRequest): string {
  if (r.kind === 'default') return `the default version (${DEFAULT_KUBERNETES_VERSION}, or the newest available)`;
  if (r.kind === 'latest') return 'the latest version';
  return isExact(r.version) ? formatVersion(r.version) : `${formatVersion(r.version)}.x`;
}
