import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import { scaffoldEdit } from '../../src/scaffold/edit.js';
import { scaffoldInit } from '../../src/scaffold/init.js';
import { defaultInit, initProject, snapshotTree, tempProjectDir } from './helpers.js';

const api: CreateAPIOptions = {
  group: 'crew',
  version: 'v1',
  kind: 'Captain',
  resource: true,
  controller: true,
  namespaced: true,
  force: false,
};

let root: string;
let cleanup: () => void;

beforeEach(() => {
  ({ root, cleanup } = tempProjectDir('project'));
});
afterEach(() => cleanup());

/** Runs a command that must fail, and checks its message and that no file changed. */
function expectRejected(run: () => unknown, message: RegExp): void {
  const before = snapshotTree(root);
  expect(run).toThrow(message);
  expect(snapshotTree(root)).toEqual(before);
}

describe('scaffold init refuses bad input and changes nothing', () => {
  it.each(['PROJECT', 'Makefile', 'cmd/main.ts'])('refuses a directory that holds %s', (file) => {
    mkdirSync(join(root, 'cmd'), { recursive: true });
    writeFileSync(join(root, file), 'mine\n');
    expectRejected(() => scaffoldInit(root, defaultInit), new RegExp(`already initialized: found ${file}`));
  });

  it('refuses an unknown license', () => {
    expectRejected(
      () => scaffoldInit(root, { ...defaultInit, license: 'mit' }),
      /unknown license "mit".*apache2, copyright, none/,
    );
  });

  it('refuses an invalid domain', () => {
    expectRejected(
      () => scaffoldInit(root, { ...defaultInit, domain: 'Example_COM' }),
      /--domain "Example_COM" is invalid/,
    );
  });

  it('refuses an owner that would end the license comment early', () => {
    expectRejected(
      () => scaffoldInit(root, { ...defaultInit, owner: 'Evil */ process.exit(1); /*' }),
      /invalid --owner: .*contains "\*\/"/,
    );
  });

  it('refuses an invalid project name and says how to pass one', () => {
    expectRejected(
      () => scaffoldInit(root, { ...defaultInit, projectName: 'My_Project' }),
      /project name "My_Project" is invalid.*--project-name/,
    );
  });

  it("merges what the project needs into npm init's package.json, keeping the user's own keys", () => {
    // What `npm init -y` writes.
    const npmInit = {
      name: 'my-operator',
      version: '1.0.0',
      description: '',
      main: 'index.js',
      scripts: { test: 'echo "Error: no test specified" && exit 1' },
      keywords: [],
      author: 'me',
      license: 'ISC',
      type: 'commonjs',
    };
    writeFileSync(join(root, 'package.json'), JSON.stringify(npmInit, null, 2));
    scaffoldInit(root, defaultInit);
    const pkg = JSON.parse(snapshotTree(root).get('package.json')!) as Record<string, unknown> & {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg).toMatchObject({
      name: 'my-operator',
      version: '1.0.0',
      author: 'me',
      license: 'ISC',
      type: 'module',
      engines: { node: '>=20.19' },
    });
    expect(pkg.scripts).toMatchObject({
      build: 'tsc -p tsconfig.json',
      test: 'scaffold manifests && tsc -p tsconfig.json --noEmit && vitest run --project unit',
      pretest: 'scaffold envtest use -p path',
    });
    // The manager runs the runtime; the CLI and envtest build and test it.
    expect(Object.keys(pkg.dependencies)).toEqual(['@kubescaffold/runtime']);
    expect(pkg.devDependencies).toHaveProperty('typescript');
    expect(pkg.devDependencies).toHaveProperty('kubescaffold');
    expect(pkg.devDependencies).toHaveProperty('@kubescaffold/envtest');
  });

  it('refuses a package.json whose keys conflict with what the project needs, naming them, and changes nothing', () => {
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'x', scripts: { build: 'webpack' }, dependencies: { '@kubescaffold/runtime': '^0.0.1' } }),
    );
    expectRejected(
      () => scaffoldInit(root, defaultInit),
      /package.json cannot take what the project needs: "scripts.build" is "webpack", the project needs "tsc -p tsconfig.json"; "dependencies.@kubescaffold\/runtime" is "\^0.0.1"/,
    );
  });

  it('warns about other files and keeps them', () => {
    writeFileSync(join(root, 'notes.txt'), 'keep me\n');
    const result = scaffoldInit(root, defaultInit);
    expect(result.warnings.join()).toMatch(/not empty \(notes.txt\)/);
    expect(snapshotTree(root).get('notes.txt')).toBe('keep me\n');
  });
});

describe('scaffold create api refuses bad input and changes nothing', () => {
  beforeEach(() => initProject(root));

  it('needs an initialized project', () => {
    cleanup();
    ({ root, cleanup } = tempProjectDir('empty'));
    expectRejected(() => scaffoldCreateAPI(root, api), /no PROJECT file.*scaffold init/);
  });

  it.each([
    [{ group: 'Crew' }, /either Group or Domain is invalid: "Crew.example.com"/],
    [{ group: 'crew_x' }, /either Group or Domain is invalid/],
    [{ version: 'V1' }, /invalid version "V1": a Kubernetes API version is v<N>, v<N>alpha<M> or v<N>beta<M>/],
    [{ version: '1' }, /invalid version "1"/],
    [{ version: 'v1beta' }, /invalid version "v1beta"/],
    [{ version: 'v2gamma1' }, /invalid version "v2gamma1"/],
    [{ version: '' }, /version cannot be empty/],
    [{ kind: 'captain' }, /invalid Kind "captain": must start with an uppercase letter, e.g. Captain$/],
    [{ kind: '1Captain' }, /invalid Kind "1Captain": must start with an uppercase letter, e.g. Captain$/],
    [{ kind: '42' }, /invalid Kind "42": must start with an uppercase letter, e.g. CronJob$/],
    [{ kind: 'Cap-tain' }, /invalid Kind "Cap-tain"/],
    [{ kind: '' }, /kind cannot be empty/],
    [{ plural: 'Captains' }, /invalid Plural "Captains"/],
    [{ resource: false, controller: false }, /nothing to scaffold/],
    [{ resource: false }, /no API found for crew.example.com\/v1, Kind Captain/],
    [
      { group: 'apps', version: 'v1', kind: 'Deploymnt', resource: false },
      /not a Kubernetes built-in kind.*V1Deploymnt/,
    ],
  ] as Array<[Partial<CreateAPIOptions>, RegExp]>)('rejects %o', (flags, message) => {
    expectRejected(() => scaffoldCreateAPI(root, { ...api, ...flags }), message);
  });

  it("adds a second version's types without a second controller, and says so instead of suggesting --force", () => {
    scaffoldCreateAPI(root, api);
    expectRejected(
      () => scaffoldCreateAPI(root, { ...api, version: 'v2' }),
      /Captain already has a controller, created with version v1 \(internal\/controller\/captain_controller.ts\).*pass --controller=false to add only the v2 types/,
    );
    scaffoldCreateAPI(root, { ...api, version: 'v2', controller: false });
    expect(snapshotTree(root).has('api/v2/captain_types.ts')).toBe(true);
  });

  it('rejects an API that already exists, unless --force', () => {
    scaffoldCreateAPI(root, api);
    expectRejected(
      () => scaffoldCreateAPI(root, api),
      /API resource already exists: crew.example.com\/v1, Kind=Captain; pass --force/,
    );
    expect(() => scaffoldCreateAPI(root, { ...api, force: true })).not.toThrow();
  });

  it('rejects a second group unless the project is multigroup', () => {
    scaffoldCreateAPI(root, api);
    expectRejected(
      () => scaffoldCreateAPI(root, { ...api, group: 'ship', kind: 'Frigate' }),
      /multiple groups are not allowed.*scaffold edit --multigroup/,
    );
    scaffoldEdit(root, { multigroup: true });
    expect(() => scaffoldCreateAPI(root, { ...api, group: 'ship', kind: 'Frigate' })).not.toThrow();
  });

  it('refuses to overwrite a file the user created outside PROJECT', () => {
    mkdirSync(join(root, 'api', 'v1'), { recursive: true });
    writeFileSync(join(root, 'api', 'v1', 'captain_types.ts'), '// mine\n');
    expectRejected(
      () => scaffoldCreateAPI(root, api),
      /api\/v1\/captain_types.ts already exists; remove it or re-run with --force/,
    );
  });

  it('reports a scaffold marker the user removed', () => {
    const main = join(root, 'cmd', 'main.ts');
    writeFileSync(main, snapshotTree(root).get('cmd/main.ts')!.replace('// +kubebuilder:scaffold:builder', ''));
    expectRejected(() => scaffoldCreateAPI(root, api), /cmd\/main.ts has no "\+kubebuilder:scaffold:builder" marker/);
  });

  it('never duplicates anything when a command is re-run', () => {
    scaffoldCreateAPI(root, api);
    const once = snapshotTree(root);
    scaffoldCreateAPI(root, { ...api, force: true });
    scaffoldCreateAPI(root, { ...api, resource: false, force: true });
    expect(snapshotTree(root)).toEqual(once);
  });
});

describe('scaffold edit', () => {
  beforeEach(() => initProject(root));

  it('refuses an unknown license and changes nothing', () => {
    expectRejected(() => scaffoldEdit(root, { license: 'gpl' }), /unknown license "gpl"/);
  });

  it('refuses an owner that would end the license comment early, and changes nothing', () => {
    expectRejected(() => scaffoldEdit(root, { owner: 'a */ b' }), /invalid --owner/);
  });

  it("refuses a project of another tool's layout, naming it, and changes nothing", () => {
    writeFileSync(
      join(root, 'PROJECT'),
      'domain: example.com\nlayout:\n- go.kubebuilder.io/v4\nprojectName: goproject\nrepo: example.com/goproject\nversion: "3"\n',
    );
    expectRejected(
      () => scaffoldEdit(root, { multigroup: true }),
      /PROJECT's layout is go.kubebuilder.io\/v4, not kubescaffold's typescript.kubescaffold.io\/v1/,
    );
    expectRejected(() => scaffoldCreateAPI(root, api), /layout is go.kubebuilder.io\/v4/);
  });

  it('refuses a PROJECT resource without a version', () => {
    scaffoldCreateAPI(root, api);
    const project = join(root, 'PROJECT');
    writeFileSync(project, readFileSync(project, 'utf8').replace(/\n\s+version: v1\n/, '\n'));
    expectRejected(
      () => scaffoldCreateAPI(root, { ...api, kind: 'Admiral' }),
      /PROJECT's resources\[0\] has no version/,
    );
  });

  it('switches to namespaced RBAC and sets WATCH_NAMESPACE in the env list, as init --namespaced writes it, and back', () => {
    const original = snapshotTree(root).get('config/manager/manager.yaml');
    scaffoldEdit(root, { namespaced: true });
    const tree = snapshotTree(root);
    expect(tree.get('PROJECT')).toContain('namespaced: true');
    expect(tree.get('config/rbac/role.yaml')).toContain('kind: Role\n');
    expect(tree.get('config/rbac/role_binding.yaml')).toContain('kind: RoleBinding\n');
    // Byte for byte what a project started with --namespaced has (one env list, not a second env: key).
    const fresh = tempProjectDir('project');
    try {
      initProject(fresh.root, { namespaced: true });
      expect(tree.get('config/manager/manager.yaml')).toBe(snapshotTree(fresh.root).get('config/manager/manager.yaml'));
    } finally {
      fresh.cleanup();
    }
    scaffoldEdit(root, { namespaced: false });
    expect(snapshotTree(root).get('config/manager/manager.yaml')).toBe(original);
  });

  it('rewrites the license header, or removes it for --license none', () => {
    scaffoldEdit(root, { license: 'copyright', owner: 'The Crew' });
    expect(snapshotTree(root).get('hack/boilerplate.txt')).toBe('/*\nCopyright YEAR The Crew.\n*/\n');
    scaffoldEdit(root, { license: 'none' });
    expect(snapshotTree(root).has('hack/boilerplate.txt')).toBe(false);
  });
});
