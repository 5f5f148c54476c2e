// The three packages as one release: their folders in dependency order, one version for all of them, and the internal
// dependency ranges that follow it. scripts/release.js uses it to publish; the tests use it to make a second release of
// the tarballs for the version-skew test.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The packages in the order they publish: each one's internal dependencies are on the registry before it. */
export const RELEASE_ORDER = [
  { name: '@kubescaffold/runtime', dir: 'src/runtime' },
  { name: '@kubescaffold/envtest', dir: 'src/envtest' },
  { name: 'kubescaffold', dir: '.' },
];

const NAMES = new Set(RELEASE_ORDER.map((p) => p.name));
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** Whether `version` is a full semver version (x.y.z, with an optional -prerelease), as npm publishes. */
export function isReleaseVersion(version) {
  return /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version);
}

/**
 * The range a package of the release asks for its siblings at `version`: a caret range, so that a project's runtime
 * and the runtime envtest depends on resolve to one copy, and a patch release of one package needs no release of the
 * others.
 */
export function internalRange(version) {
  return `^${version}`;
}

/** `manifest` (a package.json's object) at `version`, with its dependencies on the release's packages following. */
export function atVersion(manifest, version) {
  const next = { ...manifest, version };
  for (const field of DEPENDENCY_FIELDS) {
    if (!manifest[field]) continue;
    next[field] = Object.fromEntries(
      Object.entries(manifest[field]).map(([name, spec]) => [name, NAMES.has(name) ? internalRange(version) : spec]),
    );
  }
  return next;
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

/**
 * Puts the checkout at `root` on `version`: the three package.json files and package-lock.json's entries for them (the
 * workspace folders and the root), so that `npm ci` accepts the lock as it is. Returns the files it changed.
 */
export function setReleaseVersion(root, version) {
  if (!isReleaseVersion(version)) throw new Error(`"${version}" is not a version npm can publish (x.y.z[-pre])`);
  const changed = [];
  for (const { dir } of RELEASE_ORDER) {
    const path = join(root, dir, 'package.json');
    const before = readFileSync(path, 'utf8');
    const after = `${JSON.stringify(atVersion(JSON.parse(before), version), null, 2)}\n`;
    if (after !== before) {
      writeFileSync(path, after);
      changed.push(join(dir, 'package.json'));
    }
  }
  const lockPath = join(root, 'package-lock.json');
  const lock = readJson(lockPath);
  const lockBefore = JSON.stringify(lock);
  lock.version = version;
  for (const { dir } of RELEASE_ORDER) {
    const key = dir === '.' ? '' : dir;
    if (!lock.packages[key])
      throw new Error(`package-lock.json has no entry for "${key || 'the root'}": run npm install`);
    lock.packages[key] = atVersion(lock.packages[key], version);
  }
  if (JSON.stringify(lock) !== lockBefore) {
    writeJson(lockPath, lock);
    changed.push('package-lock.json');
  }
  return changed;
}

/** The version every package of the checkout at `root` has; throws naming them when they differ. */
export function releaseVersion(root) {
  const versions = RELEASE_ORDER.map(({ name, dir }) => [name, readJson(join(root, dir, 'package.json')).version]);
  if (new Set(versions.map(([, v]) => v)).size !== 1)
    throw new Error(
      `the packages are not on one version (${versions.map(([n, v]) => `${n} ${v}`).join(', ')}): run npm run release -- <version>`,
    );
  return versions[0][1];
}
