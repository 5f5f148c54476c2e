// The packages as a user gets them once published: the release (scripts/release.js) publishes the three packages, as
// `npm pack --workspaces --include-workspace-root` makes them, to a real npm registry on 127.0.0.1 (verdaccio, which
// proxies every other package to the registry npm is configured with). In an empty directory, with only the registry
// setting changed, README's "Using the CLI" runs as written: `npx kubescaffold init`, create api, manifests, the
// project's own npm test; then the scaffolded Dockerfile's stages are carried out, the runtime is installed alone, and
// a second release published beside the first shows what a CLI of one release says in a project of the other.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStages, parseDockerfile, treeFiles } from '../../scripts/lib/dockerfile.js';
import { nodeExecutable } from '../../scripts/lib/node-binary.js';
import { RELEASE_ORDER, atVersion, releaseVersion, type Manifest } from '../../scripts/lib/release.js';
import type { PackedPackage } from '../../scripts/lib/tarballs.js';
import { expectSuccess, minutes, runCommand, type CommandResult } from '../support/commands.js';
import { tempDir } from '../support/files.js';
import { sectionShCommands } from '../support/markdown.js';
import { RUNTIME_CLOSURE_ALLOWED, installedClosure } from '../support/runtime-closure.js';
import { startLocalRegistry, type LocalRegistry } from '../support/verdaccio.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const version = releaseVersion(repoRoot);
const [major, minor] = version.split('.').map(Number) as [number, number];
/** The second release of the skew test: the next minor, which a caret range on this one leaves out. */
const nextVersion = `${major}.${minor + 1}.0`;
const NAMES = RELEASE_ORDER.map((p) => p.name);

const work = tempDir('kubescaffold-registry-');
let registry: LocalRegistry;
/** The environment of every user command: only the registry differs from this machine's npm. */
let userEnv: NodeJS.ProcessEnv;
/** The sha512 integrity of each package as `npm pack` makes it here, by name. */
const packedIntegrity = new Map<string, string>();
let project: string | undefined;

const run = (cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = userEnv): CommandResult =>
  runCommand(cwd, command, args, { env, timeout: minutes(8) });
const ok = (cwd: string, command: string, args: string[], env?: NodeJS.ProcessEnv): string =>
  expectSuccess(run(cwd, command, args, env), `${command} ${args.join(' ')}`);
const integrityOf = (file: string): string =>
  `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;

/** `npm pack --json` of folders or the workspaces, into `dest`. */
function pack(args: string[], dest: string): PackedPackage[] {
  const out = ok(repoRoot, 'npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest, ...args]);
  return JSON.parse(out.slice(out.indexOf('['))) as PackedPackage[];
}

/**
 * npx keeps what it installed by the spec it was given (`kubescaffold`), and reuses a copy at the same version: one a
 * previous run of this test published would stand in for this checkout's. Its entries for kubescaffold go, before the
 * test and after it.
 */
function forgetNpxInstallsOfKubescaffold(): void {
  const cache = ok(repoRoot, 'npm', ['config', 'get', 'cache'], process.env).trim();
  const root = join(cache, '_npx');
  if (!existsSync(root)) return;
  for (const entry of readdirSync(root)) {
    let packages: unknown;
    try {
      packages = (
        JSON.parse(readFileSync(join(root, entry, 'package.json'), 'utf8')) as { _npx?: { packages?: unknown } }
      )._npx?.packages;
    } catch {
      continue;
    }
    if (Array.isArray(packages) && packages.every((p) => typeof p === 'string' && /^kubescaffold(@|$)/.test(p)))
      rmSync(join(root, entry), { recursive: true, force: true });
  }
}

/** The files of a project's folder with their contents, to show a refused command left them as they were. */
const snapshot = (dir: string): Array<[string, string]> =>
  treeFiles(dir)
    .filter((f) => !/^(node_modules|bin)\//.test(f))
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')]);

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const uplink = ok(repoRoot, 'npm', ['config', 'get', 'registry'], process.env).trim();
  // verdaccio asks for Node 22 or newer; its download (on a cold cache) is said once per machine.
  registry = await startLocalRegistry({
    dir: join(work.path, 'registry'),
    uplink,
    node: nodeExecutable('22', () => {}),
  });
  // With no terminal, npx installs a package after a warning, as a user's "y" to its question does; a machine whose
  // npm config says yes=false would cancel instead, so there that one setting is undone too.
  const yes = ok(repoRoot, 'npm', ['config', 'get', 'yes'], process.env).trim();
  // The suite's installs take npm's cache first (vitest.config.ts); this registry's packuments change during the run
  // (0.2.0 is published later), so npm asks it each time, as a user's npm does.
  userEnv = {
    npm_config_registry: registry.url,
    npm_config_prefer_offline: 'false',
    ...(yes === 'false' ? { npm_config_yes: 'true' } : {}),
  };
  const packs = join(work.path, 'packs');
  mkdirSync(packs);
  for (const p of pack(['--workspaces', '--include-workspace-root'], packs))
    packedIntegrity.set(p.name, integrityOf(join(packs, p.filename)));
  forgetNpxInstallsOfKubescaffold();
}, minutes(8));

afterAll(async () => {
  await registry?.stop();
  // Nor may this run's copies stand in later for what `npx kubescaffold` gets from the real registry.
  forgetNpxInstallsOfKubescaffold();
  work.remove();
});

describe('published to a local registry', () => {
  it(
    'the release publishes runtime, envtest and the CLI, in that order, each exactly as npm pack makes it',
    () => {
      // The checkout is on `version` already, and npm test has built dist/: the release changes no file and builds
      // nothing. It publishes with the maintainer's token, here the local registry's.
      const release = ok(repoRoot, process.execPath, ['scripts/release.js', version, '--skip-build'], {
        npm_config_userconfig: registry.publisherConfig,
        npm_config_registry: registry.url,
        GITHUB_ACTIONS: '',
      });
      const published = release
        .split('\n')
        .map((line) => /^published (\S+)@/.exec(line)?.[1])
        .filter((name) => name !== undefined);
      expect(published).toEqual(NAMES);
      for (const name of NAMES)
        expect(ok(repoRoot, 'npm', ['view', `${name}@${version}`, 'dist.integrity']).trim(), name).toBe(
          packedIntegrity.get(name),
        );
    },
    minutes(5),
  );

  it(
    'README\'s "Using the CLI", as written in an empty directory: npx kubescaffold init, create api, manifests and the project\'s npm test pass, on ^' +
      version +
      ' of the three packages and no vendor/',
    () => {
      const commands = sectionShCommands(readFileSync(join(repoRoot, 'README.md'), 'utf8'), '## Using the CLI');
      expect(commands.map((w) => w.join(' ')).slice(0, 3)).toEqual([
        'mkdir my-operator',
        'cd my-operator',
        'npx kubescaffold init --domain example.com',
      ]);
      // The quick start begins the same way.
      const quickStart = sectionShCommands(
        readFileSync(join(repoRoot, 'docs/quick-start.md'), 'utf8'),
        '## 1. Create a project',
      );
      expect(quickStart.slice(0, 3)).toEqual(commands.slice(0, 3));
      const user = join(work.path, 'user');
      mkdirSync(user);
      let cwd = user;
      let testOutput = '';
      for (const words of commands) {
        if (words[0] === 'mkdir') mkdirSync(join(cwd, words[1]!));
        else if (words[0] === 'cd') cwd = join(cwd, words[1]!);
        else {
          const output = ok(cwd, words[0]!, words.slice(1));
          if (words.join(' ') === 'npm test') testOutput = output;
        }
      }
      project = cwd;
      expect(testOutput, "README's commands end with npm test").toMatch(/Tests\s+\d+ passed/);
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Required<Manifest>;
      expect(pkg.dependencies['@kubescaffold/runtime']).toBe(`^${version}`);
      expect(pkg.devDependencies.kubescaffold).toBe(`^${version}`);
      expect(pkg.devDependencies['@kubescaffold/envtest']).toBe(`^${version}`);
      expect(existsSync(join(project, 'vendor'))).toBe(false);
      // What npm installed in the project is what the release published, byte for byte.
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { version: string; integrity?: string }>;
      };
      for (const name of NAMES) {
        expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(version);
        expect(lock.packages[`node_modules/${name}`]?.integrity, name).toBe(packedIntegrity.get(name));
      }
      expect(readFileSync(join(project, 'config/crd/bases/crew.example.com_captains.yaml'), 'utf8')).toContain(
        'kind: CustomResourceDefinition',
      );
    },
    minutes(15),
  );

  it(
    "the project's Dockerfile stages build from the registry: npm ci and the bundle, a final stage of the bundle alone",
    () => {
      if (project === undefined) throw new Error('the project of the previous test was not scaffolded');
      const node22 = nodeExecutable('22', () => {});
      // As `docker build` runs them, on the builder image's Node (22), with the registry setting passed in.
      const image = buildStages(
        parseDockerfile(readFileSync(join(project, 'Dockerfile'), 'utf8')),
        project,
        join(work.path, 'image'),
        {
          env: {
            ...process.env,
            ...userEnv,
            PATH: `${dirname(node22)}:${process.env.PATH ?? ''}`,
            CI: 'true',
            NO_COLOR: '1',
            // Each request npm makes, with its time and whether the cache answered: a stage that fails or stalls
            // shows where.
            npm_config_loglevel: 'http',
          },
          timeoutMs: minutes(10),
        },
      );
      const files = treeFiles(image.root);
      expect(files).toEqual(expect.arrayContaining(['app/package.json', 'app/manager.js']));
      expect(files.filter((f) => f.split('/').includes('node_modules'))).toEqual([]);
      // The bundle holds the published runtime.
      expect(readFileSync(join(image.root, 'app/manager.js'), 'utf8')).toContain('node_modules/@kubescaffold/runtime/');
    },
    minutes(12),
  );

  it(
    '`npm install --omit=dev @kubescaffold/runtime` alone installs the runtime and its allow-listed dependencies only',
    () => {
      const alone = join(work.path, 'runtime-alone');
      mkdirSync(alone);
      writeFileSync(join(alone, 'package.json'), '{ "name": "runtime-alone", "private": true }\n');
      ok(alone, 'npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '@kubescaffold/runtime']);
      const installed = JSON.parse(
        readFileSync(join(alone, 'node_modules/@kubescaffold/runtime/package.json'), 'utf8'),
      ) as Manifest;
      expect(installed.version).toBe(version);
      const names = installedClosure(alone, '@kubescaffold/runtime');
      expect(names.length).toBeGreaterThan(3);
      expect(names.filter((name) => !(name in RUNTIME_CLOSURE_ALLOWED))).toEqual([]);
      expect(names).not.toContain('@kubernetes/client-node');
    },
    minutes(5),
  );

  it(
    `with ${nextVersion} published too, a CLI of one release in a project of the other says what to do in one line and writes nothing; the upgrade it names works`,
    () => {
      if (project === undefined) throw new Error('the project of the previous test was not scaffolded');
      // The next release: this one's tarballs with every package.json at nextVersion, as the release would set them.
      const next = join(work.path, 'next');
      mkdirSync(next);
      for (const name of NAMES) {
        const dir = join(next, name.replace('/', '-'));
        mkdirSync(dir);
        const tarball = join(work.path, 'packs', `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
        ok(dir, 'tar', ['-xzf', tarball, '--strip-components=1']);
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
        writeFileSync(join(dir, 'package.json'), `${JSON.stringify(atVersion(manifest, nextVersion), null, 2)}\n`);
        const [packed] = pack([dir], next);
        // On the dist-tag "next": `latest` stays this release.
        ok(next, 'npm', ['publish', join(next, packed!.filename), '--tag', 'next'], {
          npm_config_userconfig: registry.publisherConfig,
        });
      }
      const createMate = ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Mate'];

      // The next release's CLI in this release's project.
      const before = snapshot(project);
      const newer = run(project, 'npx', [`kubescaffold@${nextVersion}`, ...createMate]);
      expect(newer.status).toBe(1);
      const newerSaid = newer.output.split('\n').filter((line) => line.startsWith('Error: '));
      const upgrade = `npm install @kubescaffold/runtime@^${nextVersion} && npm install -D kubescaffold@^${nextVersion} @kubescaffold/envtest@^${nextVersion}`;
      expect(newerSaid).toEqual([
        `Error: this project's @kubescaffold/runtime is ${version}, and kubescaffold ${nextVersion} generates code for @kubescaffold/runtime ^${nextVersion}: run the project's own CLI, \`npx scaffold\`, or upgrade the project with \`${upgrade}\` (upgrade notes: https://github.com/kubescaffold/kubescaffold/blob/main/docs/changelog.md)`,
      ]);
      expect(snapshot(project)).toEqual(before);

      // The upgrade it names, as written; then the project's own CLI is the next release's, and scaffolds.
      for (const command of upgrade.split(' && ')) {
        const [cmd, ...args] = command.split(' ');
        ok(project, cmd!, args);
      }
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Required<Manifest>;
      expect([pkg.dependencies['@kubescaffold/runtime'], pkg.devDependencies.kubescaffold]).toEqual([
        `^${nextVersion}`,
        `^${nextVersion}`,
      ]);
      ok(project, 'npx', ['scaffold', ...createMate]);
      expect(existsSync(join(project, 'api/v1/mate_types.ts'))).toBe(true);

      // This release's CLI in the upgraded project, now of the next release.
      const upgraded = snapshot(project);
      const older = run(project, 'npx', [
        `kubescaffold@${version}`,
        'create',
        'api',
        '--group',
        'crew',
        '--version',
        'v1',
        '--kind',
        'Bosun',
      ]);
      expect(older.status).toBe(1);
      expect(older.output.split('\n').filter((line) => line.startsWith('Error: '))).toEqual([
        `Error: this project's @kubescaffold/runtime is ${nextVersion}, and kubescaffold ${version} generates code for @kubescaffold/runtime ^${version}, an older release: run the project's own CLI, \`npx scaffold\` (after \`npm install\`), not this one`,
      ]);
      expect(snapshot(project)).toEqual(upgraded);
    },
    minutes(10),
  );
});
