#!/usr/bin/env node
// Publishes a release: the CLI, the runtime and envtest, on one version.
//
// Usage: npm run release -- <version> [--dry-run] [--skip-build] [--tag <dist-tag>]
//
// 1. Puts the three package.json files (and package-lock.json) on <version>; the packages' ranges on each other follow
//    (^<version>). Commit that change and tag it v<version>: .github/workflows/release.yml publishes on that tag.
// 2. Builds once, from clean dist/ folders, so that nothing a previous build left behind ships.
// 3. Packs the three packages as `npm pack --workspaces --include-workspace-root` does and checks the tarballs: each
//    at <version>, with its LICENSE and README, no sources, source maps or tests, within its size budget
//    (scripts/lib/tarballs.js).
// 4. Publishes them in dependency order, the runtime, envtest, then the CLI, to the registry npm is configured with,
//    with --provenance on GitHub Actions (it needs the workflow's OIDC token); a package already published at <version>
//    is skipped, so a release that stopped half way can be run again.
//
// --dry-run does all of it but publish: npm publish --dry-run shows what would be sent. --skip-build uses the dist/
// folders as they are (the tests, after npm test's build). A prerelease version (1.2.0-rc.1) goes to the dist-tag
// "next" unless --tag says otherwise; a release to "latest".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELEASE_ORDER, isReleaseVersion, setReleaseVersion } from './lib/release.js';
import { missingEntryPoints, tarballProblems } from './lib/tarballs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const usage = 'usage: npm run release -- <version> [--dry-run] [--skip-build] [--tag <dist-tag>]';

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = { dryRun: false, skipBuild: false, tag: undefined, version: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--dry-run') options.dryRun = true;
    else if (arg === '--skip-build') options.skipBuild = true;
    else if (arg === '--tag' && argv[i + 1] !== undefined) options.tag = argv[++i];
    else if (!arg.startsWith('-') && options.version === undefined) options.version = arg.replace(/^v/, '');
    else fail(`unexpected argument "${arg}"; ${usage}`);
  }
  if (options.version === undefined) fail(`no version given; ${usage}`);
  if (!isReleaseVersion(options.version)) fail(`"${options.version}" is not a version npm can publish (x.y.z[-pre])`);
  options.tag ??= options.version.includes('-') ? 'next' : 'latest';
  return options;
}

/** Runs a command in the checkout, its output shown; stops the release when it fails. */
function step(command, args, what) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0)
    fail(`${what} failed (${command} ${args.join(' ')} exited ${result.status ?? result.signal})`);
}

/** Runs a command in the checkout and returns its stdout; stops the release when it fails. */
function output(command, args, what) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0)
    fail(`${what} failed (${command} ${args.join(' ')} exited ${result.status ?? result.signal})`);
  return result.stdout;
}

/** Whether the registry already has `name` at `version`: `npm view` prints the version, or fails with E404. */
function published(name, version) {
  const result = spawnSync('npm', ['view', `${name}@${version}`, 'version', '--json'], { cwd: root, encoding: 'utf8' });
  if (result.status === 0) return result.stdout.trim() !== '';
  if (/E404/.test(`${result.stdout}${result.stderr}`)) return false;
  fail(`could not ask the registry whether ${name}@${version} is published:\n${result.stderr.trim()}`);
}

/** Provenance needs GitHub Actions' OIDC token (the workflow's `id-token: write`) and a registry that records it. */
function provenanceAvailable() {
  return process.env.GITHUB_ACTIONS === 'true' && process.env.ACTIONS_ID_TOKEN_REQUEST_URL !== undefined;
}

const options = parseArgs(process.argv.slice(2));
const { version } = options;

const changed = setReleaseVersion(root, version);
console.log(
  changed.length > 0
    ? `release ${version}: set in ${changed.join(', ')}`
    : `release ${version}: the packages are on it already`,
);

if (!options.skipBuild) {
  // tsc -b skips what its build info says is built: without them and dist/, every file comes from this build.
  for (const dir of ['dist', 'src/runtime/dist', 'src/envtest/dist', 'tsconfig.build.tsbuildinfo'])
    rmSync(join(root, dir), { recursive: true, force: true });
  step('npm', ['run', 'build'], 'the build');
}

const packDir = mkdtempSync(join(tmpdir(), 'kubescaffold-release-'));
try {
  const packOut = output(
    'npm',
    ['pack', '--workspaces', '--include-workspace-root', '--json', '--ignore-scripts', '--pack-destination', packDir],
    'npm pack',
  );
  const packed = JSON.parse(packOut.slice(packOut.indexOf('[')));
  const problems = tarballProblems(packed);
  for (const p of packed) if (p.version !== version) problems.push(`${p.name}: packed at ${p.version}, not ${version}`);
  for (const { name, dir } of RELEASE_ORDER) {
    const p = packed.find((q) => q.name === name);
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    if (p)
      for (const path of missingEntryPoints(
        manifest,
        p.files.map((f) => f.path),
      ))
        problems.push(`${name}: no ${path}, which its package.json names`);
  }
  if (problems.length > 0) fail(`the tarballs are not fit to publish:\n  ${problems.join('\n  ')}`);
  for (const p of packed)
    console.log(`checked ${p.filename}: ${p.files.length} files, ${(p.size / 1024).toFixed(1)} KiB packed`);

  const provenance = provenanceAvailable();
  if (!provenance) console.log('publishing without --provenance: it needs GitHub Actions (the release workflow)');
  for (const { name } of RELEASE_ORDER) {
    const tarball = join(packDir, packed.find((p) => p.name === name).filename);
    if (published(name, version)) {
      console.log(`${name}@${version} is on the registry already: skipped`);
      continue;
    }
    const args = ['publish', tarball, '--tag', options.tag, '--access', 'public'];
    if (provenance) args.push('--provenance');
    if (options.dryRun) args.push('--dry-run');
    step('npm', args, `publishing ${name}@${version}`);
    console.log(`${options.dryRun ? 'would publish' : 'published'} ${name}@${version} (dist-tag ${options.tag})`);
  }
} finally {
  rmSync(packDir, { recursive: true, force: true });
}
console.log(
  options.dryRun
    ? `release ${version}: dry run done, nothing published`
    : `release ${version}: published; push the commit and the tag v${version}`,
);
