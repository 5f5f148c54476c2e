import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { onPath, peerAvailable } from '../support/peers.js';
import { sectionShCommands } from '../support/markdown.js';
import { RUNTIME_CLOSURE_ALLOWED, installedClosure } from '../support/runtime-closure.js';
import { TARBALL_BUDGETS, isUnshippable, tarballProblems, type PackedPackage } from '../../scripts/lib/tarballs.js';

// The packages as npm delivers them: `npm pack` of the CLI, the runtime and envtest, installed from the tarballs into
// empty directories, used from there as a new user would. Nothing here links the checkout.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

/** The files a workspace package's "exports" point at once built (types and import targets), without the './'. */
function builtEntryPoints(dir: string): string[] {
  const { exports } = JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.values(exports)
    .flatMap((target) => (typeof target === 'string' ? [target] : [target.types!, target.import!]))
    .map((t) => t.replace(/^\.\//, ''));
}

interface PackResult extends PackedPackage {
  files: Array<{ path: string; mode: number }>;
}

function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  // Generous for a loaded machine: an npm install of the package's dependencies from the registry or npm's cache.
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 5 * 60_000,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${result.status ?? result.signal}:\n${output.slice(-4000)}`,
    );
  return output;
}

/** A page's section's commands, as sectionShCommands reads them. */
function shCommands(file: string, heading: string): string[][] {
  return sectionShCommands(readFileSync(join(repoRoot, file), 'utf8'), heading, file);
}

/**
 * README's "Using the CLI" from a checkout, as written: its "From a checkout" commands up to init, then the section's
 * own commands after init.
 */
function usingTheCli(): string[][] {
  const published = shCommands('README.md', '## Using the CLI');
  const afterInit = published.slice(published.findIndex((w) => w.join(' ').includes(' init ')) + 1);
  return [...shCommands('README.md', '### From a checkout'), ...afterInit];
}

const work = tempDir('kubescaffold-package-');
// The project README's commands scaffolded, which the quick start's step 5 then runs.
let scaffolded: string | undefined;
const packed = new Map<string, PackResult & { tarball: string }>();
const tarball = (name: string): string => packed.get(name)!.tarball;

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  // --ignore-scripts: npm test has built every dist/ already.
  const out = run(repoRoot, 'npm', [
    'pack',
    '--workspaces',
    '--include-workspace-root',
    '--json',
    '--ignore-scripts',
    '--pack-destination',
    work.path,
  ]);
  for (const p of JSON.parse(out.slice(out.indexOf('['))) as PackResult[])
    packed.set(p.name, { ...p, tarball: join(work.path, p.filename) });
});
afterAll(() => work.remove());

describe('the npm packages', () => {
  it('are the CLI, the runtime and envtest, each with its LICENSE and its built entry points, and no sources, source maps or tests, within its size budget', () => {
    expect([...packed.keys()].sort()).toEqual(Object.keys(TARBALL_BUDGETS).sort());
    const paths = (name: string): string[] => packed.get(name)!.files.map((f) => f.path);
    expect(paths('kubescaffold')).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/scaffold.js',
        'dist/cli/index.js',
        'dist/compat/runtime.js',
        'dist/compat/envtest.js',
        'dist/crd/k8s_schemas/schemas.json',
        'docs/types.md',
      ]),
    );
    expect(paths('@kubescaffold/runtime')).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/rest/index.js',
        'dist/webhook/index.js',
        'dist/certs/index.js',
        'dist/json/index.js',
      ]),
    );
    expect(paths('@kubescaffold/envtest')).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/setup.js',
        'dist/versions.js',
      ]),
    );
    // Every subpath "exports" names, with its types, e.g. @kubescaffold/runtime/clientcmd.
    for (const [name, dir] of [
      ['@kubescaffold/runtime', 'src/runtime'],
      ['@kubescaffold/envtest', 'src/envtest'],
    ] as const) {
      expect(paths(name), name).toEqual(expect.arrayContaining(builtEntryPoints(dir)));
    }
    // The CLI holds neither the runtime nor envtest: they are its dependencies.
    expect(paths('kubescaffold').filter((p) => /^dist\/(runtime|envtest)\//.test(p))).toEqual([]);
    // Templates ship precompiled (dist/templates.precompiled.cjs); templates/ keeps only data files read as they are.
    expect(paths('kubescaffold')).toContain('dist/templates.precompiled.cjs');
    expect(paths('kubescaffold').filter((p) => p.endsWith('.hbs'))).toEqual([]);
    expect(paths('kubescaffold')).toContain('templates/plugins/grafana/controller-runtime-metrics.json');
    for (const [name, budget] of Object.entries(TARBALL_BUDGETS)) {
      expect(paths(name).filter(isUnshippable), name).toEqual([]);
      expect(packed.get(name)!.size, name).toBeLessThan(budget.packed);
      expect(packed.get(name)!.unpackedSize, name).toBeLessThan(budget.unpacked);
    }
    // The release's own check (scripts/release.js) finds nothing wrong with them either.
    expect(tarballProblems([...packed.values()])).toEqual([]);
    // Every bin is in the package and executable.
    for (const bin of Object.values(pkg.bin))
      expect((packed.get('kubescaffold')!.files.find((f) => f.path === bin)?.mode ?? 0) & 0o111).not.toBe(0);
  });

  it(
    'gives the runtime, installed alone without devDependencies, a dependency closure inside the allow-list',
    () => {
      const alone = join(work.path, 'runtime-alone');
      mkdirSync(alone);
      writeFileSync(join(alone, 'package.json'), '{ "name": "runtime-alone", "private": true }\n');
      run(alone, 'npm', [
        'install',
        '--omit=dev',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball('@kubescaffold/runtime'),
      ]);
      const names = installedClosure(alone, '@kubescaffold/runtime');
      expect(names.length).toBeGreaterThan(3);
      expect(names.filter((name) => !(name in RUNTIME_CLOSURE_ALLOWED))).toEqual([]);
      // Types only: @kubernetes/client-node is an optional peer, not installed with the runtime.
      expect(names).not.toContain('@kubernetes/client-node');
    },
    5 * 60_000,
  );

  it(
    'installed from the tarballs into an empty directory, `npx kubescaffold` runs this CLI; README\'s "Using the CLI" from a checkout, followed as written, scaffolds a project that vendors the tarballs, builds, lints and passes its tests',
    () => {
      const user = join(work.path, 'user');
      mkdirSync(user);
      const all = ['kubescaffold', '@kubescaffold/runtime', '@kubescaffold/envtest'].map(tarball);
      run(user, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...all]);

      // `npx kubescaffold` finds the installed package's bin by the package's name, never another package.
      expect(run(user, 'npx', ['--no-install', 'kubescaffold', '--version']).trim()).toBe(pkg.version);
      const bin = join(user, 'node_modules', '.bin', 'kubescaffold');
      expect(run(user, bin, ['--help'])).toMatch(/create[\s\S]*manifests/);

      // With --skip-install, init says to install first.
      const skipped = join(user, 'skipped');
      mkdirSync(skipped);
      expect(run(skipped, bin, ['init', '--domain', 'example.com', '--skip-install'])).toMatch(
        /npm install[\s\S]*npx scaffold create api/,
      );

      // README's "Using the CLI", as written, in an empty directory. Its commands in the checkout (npm ci, npm run
      // build, npm pack into /tmp/ks) are what npm test and beforeAll did, into this test's directory instead of
      // /tmp/ks; every other command runs as it is. The release is not on the registry, so the project gets the
      // packages packed into its vendor/, named by relative paths that hold in a fresh clone and in the image's build
      // stage; init's own npm install of them succeeds.
      const packDir = '/tmp/ks';
      // The commands start in the checkout, here a folder of the test's own: the project goes beside it, not in it.
      const checkout = join(work.path, 'checkout');
      mkdirSync(checkout);
      let cwd = checkout;
      let testOutput = '';
      for (const words of usingTheCli()) {
        const line = words.join(' ');
        if (line === 'npm ci' || line === 'npm run build' || line === `mkdir -p ${packDir}`) continue;
        if (words[0] === 'npm' && words[1] === 'pack') {
          expect(line).toBe(`npm pack --workspaces --include-workspace-root --pack-destination ${packDir}`);
          continue;
        }
        if (words[0] === 'mkdir') mkdirSync(join(cwd, words[1]!));
        else if (words[0] === 'cd') cwd = join(cwd, words[1]!);
        else {
          const output = run(
            cwd,
            words[0]!,
            words.slice(1).map((w) => w.replaceAll(`${packDir}/`, `${work.path}/`)),
            { CI: 'true' },
          );
          if (line === 'npm test') testOutput = output;
        }
      }
      const project = cwd;
      expect(project).toBe(join(work.path, 'my-operator'));
      expect(readdirSync(checkout), 'the checkout is left as it was').toEqual([]);
      scaffolded = project;
      // The quick start's first four steps, from tarballs, are the same commands: this run covers them as written.
      const quickStart = [
        '## 1. Create a project',
        '## 2. Add an API and its controller',
        '## 3. Generate the manifests',
      ]
        .concat('## 4. Test it against a real API server')
        .flatMap((heading) => shCommands('docs/quick-start.md', heading))
        .map((words) => words.join(' '));
      // Its published variant (mkdir, cd, npx kubescaffold init) comes first; the tarballs' begins with `npm ci`.
      expect(quickStart.slice(quickStart.indexOf('npm ci'))).toEqual(usingTheCli().map((w) => w.join(' ')));
      expect(testOutput, "README's commands end with npm test").toMatch(/Tests\s+\d+ passed/);
      const projectPkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      expect(projectPkg.dependencies).toEqual({
        '@kubescaffold/runtime': `file:vendor/kubescaffold-runtime-${pkg.version}.tgz`,
      });
      expect(projectPkg.devDependencies.kubescaffold).toBe(`file:vendor/kubescaffold-${pkg.version}.tgz`);
      expect(projectPkg.devDependencies['@kubescaffold/envtest']).toBe(
        `file:vendor/kubescaffold-envtest-${pkg.version}.tgz`,
      );
      expect(readdirSync(join(project, 'vendor')).sort()).toEqual([
        `kubescaffold-${pkg.version}.tgz`,
        `kubescaffold-envtest-${pkg.version}.tgz`,
        `kubescaffold-runtime-${pkg.version}.tgz`,
      ]);
      expect(readFileSync(join(project, 'config', 'crd', 'bases', 'crew.example.com_captains.yaml'), 'utf8')).toContain(
        'kind: CustomResourceDefinition',
      );
      // Nothing from this checkout: the project builds, lints and passes its own tests (envtest and fake client).
      run(project, 'npm', ['run', 'build']);
      run(project, 'npm', ['run', 'lint']);

      const loaded = run(user, process.execPath, [
        '--input-type=module',
        '-e',
        "const r = await import('@kubescaffold/runtime'); const e = await import('@kubescaffold/envtest'); const old = await import('kubescaffold/runtime'); console.log(typeof r.Manager, typeof e.TestEnvironment, old.Manager === r.Manager);",
      ]);
      // The CLI's deprecated kubescaffold/runtime is the runtime package itself, not a copy.
      expect(loaded.trim()).toBe('function function true');
      // Generous: three npm installs, a build, a lint and a control plane, on a loaded machine.
    },
    15 * 60_000,
  );

  it.skipIf(!peerAvailable("the quick start's step 5", onPath('kubectl') ? undefined : 'kubectl is not on PATH'))(
    "the quick start's step 5, as written, on that project: a local control plane, install, run, the sample reconciled, stop",
    async () => {
      if (scaffolded === undefined) throw new Error('the project of the previous test was not scaffolded');
      const project = scaffolded;
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      let manager: ReturnType<typeof spawn> | undefined;
      let managerOutput = '';
      let stopped = false;
      // Resolves once the manager's output matches `pattern`; rejects if it exits first.
      const managerSays = (pattern: RegExp): Promise<void> =>
        new Promise((resolve, reject) => {
          const check = (): void => {
            if (pattern.test(managerOutput)) resolve();
          };
          manager!.stdout!.on('data', check);
          manager!.stderr!.on('data', check);
          manager!.once('exit', (code) =>
            reject(new Error(`scaffold run exited ${code} before ${pattern}:\n${managerOutput.slice(-3000)}`)),
          );
          check();
        });
      const steps = shCommands('docs/quick-start.md', '## 5. Run the operator on a local control plane');
      const commands = steps.map((w) => w.join(' '));
      expect(commands).toEqual([
        'npx scaffold envtest start --background --kubeconfig-out bin/dev.kubeconfig',
        'export KUBECONFIG=$PWD/bin/dev.kubeconfig',
        'npx scaffold install',
        'npx scaffold run',
        'kubectl apply -k config/samples',
        'kubectl get captains',
        'npx scaffold envtest stop --kubeconfig-out bin/dev.kubeconfig',
      ]);
      try {
        for (const words of steps) {
          const line = words.join(' ');
          if (words[0] === 'export') {
            const [name, value] = words[1]!.split('=') as [string, string];
            env[name] = value.replace('$PWD', project);
          } else if (line === 'npx scaffold run') {
            // The page runs it in the foreground and goes on in a second terminal; Ctrl-C stops it later.
            // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
            manager = spawn('npx', ['scaffold', 'run'], {
              cwd: project,
              env,
              stdio: ['ignore', 'pipe', 'pipe'],
              detached: true,
            });
            manager.stdout!.on('data', (d: Buffer) => (managerOutput += d.toString()));
            manager.stderr!.on('data', (d: Buffer) => (managerOutput += d.toString()));
            await managerSays(/Starting workers/);
          } else if (line === 'kubectl get captains') {
            expect(run(project, words[0]!, words.slice(1), env)).toMatch(/^captain-sample\s/m);
            // What the page says the manager logs for it.
            await managerSays(/reconciling Captain[\s\S]*captain-sample|captain-sample[\s\S]*reconciling Captain/);
            // Ctrl-C: SIGINT to the foreground process group (npx, scaffold run and the manager).
            const exited = once(manager!, 'exit');
            process.kill(-manager!.pid!, 'SIGINT');
            await exited;
            expect(managerOutput).toMatch(/"msg":"Stopped"/);
          } else {
            run(project, words[0]!, words.slice(1), env);
            if (words[2] === 'envtest' && words[3] === 'stop') stopped = true;
          }
        }
      } finally {
        if (manager?.pid !== undefined && manager.exitCode === null && manager.signalCode === null)
          process.kill(-manager.pid, 'SIGKILL');
        if (!stopped)
          spawnSync('npx', ['scaffold', 'envtest', 'stop', '--kubeconfig-out', 'bin/dev.kubeconfig'], {
            cwd: project,
            env,
          });
      }
      expect(stopped).toBe(true);
    },
    10 * 60_000,
  );
});
