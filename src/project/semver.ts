/**
 * The little of semver the version-skew check needs: versions (x.y.z with an optional -prerelease), their order, the
 * version a dependency spec starts from, and whether a version is in a caret, tilde or exact range.
 */

/** A parsed version. */
export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** The prerelease's dot-separated parts; empty for a release. */
  prerelease: string[];
}

/** `text` as a version, or undefined when it is not x.y.z[-pre]. */
export function parseVersion(text: string): Version | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4]?.split('.') ?? [] };
}

/** The version as npm writes it. */
export function formatVersion(v: Version): string {
  return `${v.major}.${v.minor}.${v.patch}${v.prerelease.length > 0 ? `-${v.prerelease.join('.')}` : ''}`;
}

/** Negative, zero or positive as `a` comes before, with or after `b`; a prerelease comes before its release. */
export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return core;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const [x, y] = [a.prerelease[i]!, b.prerelease[i]!];
    const order = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (order !== 0) return order;
  }
  return a.prerelease.length - b.prerelease.length;
}

/** A range the check understands: caret (^1.2.3), tilde (~1.2.3) or one version (1.2.3). */
export interface Range {
  kind: '^' | '~' | '=';
  base: Version;
}

/** `spec` as a range, or undefined for anything else (a tag, a URL, a compound range). */
export function parseRange(spec: string): Range | undefined {
  const m = /^\s*([~^]|=)?\s*(\S+)\s*$/.exec(spec);
  const base = m ? parseVersion(m[2]!) : undefined;
  if (!m || !base) return undefined;
  return { kind: (m[1] as '^' | '~' | undefined) ?? '=', base };
}

/** The range's upper bound (exclusive): the first version it leaves out, as npm's caret and tilde define it. */
function upperBound(range: Range): Version {
  const { major, minor, patch } = range.base;
  if (range.kind === '~') return { major, minor: minor + 1, patch: 0, prerelease: [] };
  if (major > 0) return { major: major + 1, minor: 0, patch: 0, prerelease: [] };
  if (minor > 0) return { major: 0, minor: minor + 1, patch: 0, prerelease: [] };
  return { major: 0, minor: 0, patch: patch + 1, prerelease: [] };
}

/** Whether `version` is in `range`: at or above its base and below its upper bound (only the base for an exact one). */
export function satisfies(version: Version, range: Range): boolean {
  if (range.kind === '=') return compareVersions(version, range.base) === 0;
  return compareVersions(version, range.base) >= 0 && compareVersions(version, upperBound(range)) < 0;
}

/** Whether `version` is at or above the range's upper bound: newer than anything the range allows. */
export function aboveRange(version: Version, range: Range): boolean {
  return range.kind === '='
    ? compareVersions(version, range.base) > 0
    : compareVersions(version, upperBound(range)) >= 0;
}
