import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';

// The package as npm delivers it: `npm pack`, installed from the tarball into an empty directory, used from there
// as a new user would. Nothing here links the checkout.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

// Budgets for what every user downloads and unpacks; raise them only for something users need. The unpacked budget
// holds the book (docs/, about 1 MB with the API reference and the tutorial), which scaffolded files point into.
const PACKED_BYTES_BUDGET = 1024 * 1024;
const UNPACKED_BYTES_BUDGET = 3.5 * 1024 * 1024;

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string; mode: number }>;
}

function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  // Generous for a loaded machine: an npm install of the package's dependencies from the registry or npm's cache.
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 5 * 60_000, env: { ...process.env, NO_COLOR: '1', ...env } });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.status ?? result.signal}:\n${output.slice(-4000)}`);
  return output;
}

const work = tempDir('kubescaffold-package-');
let packed: PackResult;
let tarball: string;

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  // --ignore-scripts: npm test has built dist/ already.
  const out = run(repoRoot, 'npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work.path]);
  packed = (JSON.parse(out.slice(out.indexOf('['))) as PackResult[])[0]!;
  tarball = join(work.path, packed.filename);
});
afterAll(() => work.remove());

describe('the npm package', () => {
  it('holds the CLI, the runtime, the templates and the LICENSE, and no build tools, source maps or tests, within its size budget', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'bin/scaffold.js', 'dist/cli/index.js', 'dist/runtime/index.js', 'dist/envtest/index.js', 'dist/crd/k8s_schemas/schemas.json', 'docs/types.md']));
    // Templates ship precompiled (dist/templates.precompiled.cjs); templates/ keeps only data files read as they are.
    expect(paths).toContain('dist/templates.precompiled.cjs');
    expect(paths.filter((p) => p.endsWith('.hbs'))).toEqual([]);
    expect(paths).toContain('templates/plugins/grafana/controller-runtime-metrics.json');
    expect(paths.filter((p) => /\.map$|^(src|test|bench|scripts)\//.test(p))).toEqual([]);
    // Every bin is in the package and executable.
    for (const bin of Object.values(pkg.bin)) expect((packed.files.find((f) => f.path === bin)?.mode ?? 0) & 0o111).not.toBe(0);
    expect(packed.size).toBeLessThan(PACKED_BYTES_BUDGET);
    expect(packed.unpackedSize).toBeLessThan(UNPACKED_BYTES_BUDGET);
  });

  it('installed from the tarball into an empty directory, `npx kubescaffold` runs this CLI, and the project it scaffolds installs the tarball, builds, lints and passes its tests', () => {
    const user = join(work.path, 'user');
    mkdirSync(user);
    run(user, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball]);

    // `npx kubescaffold` finds the installed package's bin by the package's name, never another package.
    expect(run(user, 'npx', ['--no-install', 'kubescaffold', '--version']).trim()).toBe(pkg.version);
    const bin = join(user, 'node_modules', '.bin', 'kubescaffold');
    expect(run(user, bin, ['--help'])).toMatch(/create[\s\S]*manifests/);

    // With --skip-install, init says to install first.
    const skipped = join(user, 'skipped');
    mkdirSync(skipped);
    expect(run(skipped, bin, ['init', '--domain', 'example.com', '--skip-install'])).toMatch(/npm install[\s\S]*npx scaffold create api/);

    // As someone who found the tarball would: `npm exec --package=<tarball> -- kubescaffold init` in an empty
    // directory. The project depends on the same tarball (the release is not on the registry), and init's own npm
    // install of it succeeds.
    const project = join(work.path, 'operator');
    mkdirSync(project);
    run(project, 'npm', ['exec', '--yes', `--package=${tarball}`, '--', 'kubescaffold', 'init', '--domain', 'example.com']);
    const projectPkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(projectPkg.dependencies.kubescaffold).toBe(`file:${tarball}`);
    run(project, 'npx', ['scaffold', 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain']);
    run(project, 'npx', ['scaffold', 'manifests']);
    expect(readFileSync(join(project, 'config', 'crd', 'bases', 'crew.example.com_captains.yaml'), 'utf8')).toContain('kind: CustomResourceDefinition');
    // Nothing from this checkout: the project builds, lints and passes its own tests (envtest and fake client).
    run(project, 'npm', ['run', 'build']);
    run(project, 'npm', ['run', 'lint']);
    expect(run(project, 'npm', ['test'], { CI: 'true' })).toMatch(/Tests\s+\d+ passed/);

    const loaded = run(user, process.execPath, [
      '--input-type=module',
      '-e',
      "const r = await import('kubescaffold/runtime'); const e = await import('kubescaffold/envtest'); console.log(typeof r.Manager, typeof e.TestEnvironment);",
    ]);
    expect(loaded.trim()).toBe('function function');
    // Generous: three npm installs, a build, a lint and a control plane, on a loaded machine.
  }, 15 * 60_000);
});
