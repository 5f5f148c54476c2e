/**
 * `create api` for a Kind another project defines: from the folder `scaffold import crd` wrote, or a package; the
 * checks that refuse what cannot work (before anything is written); `alpha generate` replaying it; and
 * `--external-api-crd`, which imports the CRD first and takes the import back when create api then fails.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { importCRDs } from '../../src/importer/command.js';
import { loadProject } from '../../src/project/load.js';
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import { generateFromProject } from '../../src/scaffold/alpha/generate.js';
import { registryDependencies } from '../../src/scaffold/dependencies.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';
import { typeErrors } from '../support/typecheck.js';

const repo = join(import.meta.dirname, '../..');
const bin = join(repo, 'bin/scaffold.js');
const built = existsSync(join(repo, 'dist/cli/create-api.js'));
const gadgets = join(import.meta.dirname, '../fixtures/import/every-construct.yaml');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(): string {
  const { root, cleanup } = tempProjectDir('crew');
  cleanups.push(cleanup);
  initProject(root);
  return root;
}

const gadgetController = (over: Partial<CreateAPIOptions> = {}): CreateAPIOptions => ({
  group: 'toys',
  version: 'v1',
  kind: 'Gadget',
  resource: false,
  controller: true,
  namespaced: true,
  force: false,
  externalApiPath: 'external/toys.example.com/v1',
  externalApiDomain: 'example.com',
  ...over,
});

describe('create api for an external API', () => {
  it('scaffolds a controller that imports the imported descriptor, with RBAC for its group, recorded as external', async () => {
    const root = project();
    await importCRDs({ root, sources: [gadgets] });
    scaffoldCreateAPI(root, gadgetController());
    const controller = readFileSync(join(root, 'internal/controller/gadget_controller.ts'), 'utf8');
    expect(controller).toContain(
      "import { GadgetResource } from '../../external/toys.example.com/v1/zz_generated.resources.js';",
    );
    expect(controller).toContain(
      '// +kubebuilder:rbac:groups=toys.example.com,resources=gadgets,verbs=get;list;watch;create;update;patch;delete',
    );
    expect(controller).toContain('gadget.metadata?.generation');
    // the controller compiles against the imported types
    expect(typeErrors([join(root, 'internal/controller/gadget_controller.ts')])).toEqual([]);
    expect(readFileSync(join(root, 'cmd/main.ts'), 'utf8')).toContain(
      'new GadgetReconciler(mgr.getClient()).setupWithManager(mgr);',
    );
    const config = loadProject(root);
    expect(config.resources).toEqual([
      {
        controller: true,
        domain: 'example.com',
        external: true,
        group: 'toys',
        kind: 'Gadget',
        path: 'external/toys.example.com/v1',
        version: 'v1',
      },
    ]);
    // no CRD, sample or role helpers of the project's own for another project's Kind
    expect(existsSync(join(root, 'config/crd'))).toBe(false);
    expect(existsSync(join(root, 'config/samples/toys_v1_gadget.yaml'))).toBe(false);
  });

  it('refuses, writing nothing, what cannot work', async () => {
    const root = project();
    await importCRDs({ root, sources: [gadgets] });
    const before = snapshotTree(root);
    for (const [over, message] of [
      [
        { resource: true },
        /cannot use '--external-api-path' or '--external-api-domain' when creating an API in the project/,
      ],
      [{ externalApiPath: undefined }, /--external-api-domain needs --external-api-path/],
      [
        { externalApiPath: './nowhere' },
        /--external-api-path \.\/nowhere is not a folder of the project; import the CRD first/,
      ],
      [
        { externalApiDomain: 'other.io' },
        /holds Gadget of the group toys\.example\.com, not toys\.other\.io; pass --group and --external-api-domain/,
      ],
      [{ kind: 'Widget' }, /does not describe a Kind Widget \(it has Gadget\)/],
      [{ externalApiPath: 'external' }, /external has no zz_generated\.resources\.ts/],
    ] as const) {
      expect(() => scaffoldCreateAPI(root, gadgetController(over as Partial<CreateAPIOptions>))).toThrow(message);
      expect(snapshotTree(root)).toEqual(before);
    }
  });

  it('takes a package that exports the descriptor as it is', () => {
    const root = project();
    scaffoldCreateAPI(root, gadgetController({ externalApiPath: '@acme/gadget-types' }));
    expect(readFileSync(join(root, 'internal/controller/gadget_controller.ts'), 'utf8')).toContain(
      "import { GadgetResource } from '@acme/gadget-types';",
    );
    expect(loadProject(root).resources?.[0]?.path).toBe('@acme/gadget-types');
  });

  it('alpha generate replays it, carrying the imported types into the new tree', async () => {
    const root = project();
    await importCRDs({ root, sources: [gadgets] });
    scaffoldCreateAPI(root, gadgetController());
    const out = join(root, '..', 'regenerated');
    const result = await generateFromProject({
      inputDir: root,
      outputDir: out,
      force: false,
      dependencies: () => registryDependencies('0.1.0'),
      cliVersion: '0.1.0',
    });
    expect(result.commands).toContain(
      'scaffold create api --group toys --version v1 --kind Gadget --resource=false --controller=true --external-api-path external/toys.example.com/v1 --external-api-domain example.com',
    );
    for (const file of [
      'PROJECT',
      'internal/controller/gadget_controller.ts',
      'external/package.json',
      'external/toys.example.com/v1/gadget_types.ts',
      'external/toys.example.com/v1beta1/gadget_types.ts',
    ])
      expect(readFileSync(join(out, file), 'utf8'), file).toBe(readFileSync(join(root, file), 'utf8'));
  });
});

describe.skipIf(!built)('create api --external-api-crd', () => {
  const scaffold = async (cwd: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> => {
    try {
      const r = await promisify(execFile)(process.execPath, [bin, ...args], { cwd, encoding: 'utf8' });
      return { status: 0, ...r };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { status: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const args = ['create', 'api', '--group', 'toys', '--external-api-domain', 'example.com', '--version', 'v1'];

  it('imports the CRD, then scaffolds the controller for the folder it wrote', async () => {
    const root = project();
    const r = await scaffold(root, [...args, '--kind', 'Gadget', '--resource=false', '--external-api-crd', gadgets]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('external/toys.example.com/v1/gadget_types.ts');
    expect(readFileSync(join(root, 'internal/controller/gadget_controller.ts'), 'utf8')).toContain(
      "from '../../external/toys.example.com/v1/zz_generated.resources.js'",
    );
  });

  it('leaves every file as it was when the Kind is not in the CRDs, or create api fails after the import', async () => {
    const root = project();
    const before = snapshotTree(root);
    const wrongKind = await scaffold(root, [
      ...args,
      '--kind',
      'Widget',
      '--resource=false',
      '--external-api-crd',
      gadgets,
    ]);
    expect(wrongKind.status).toBe(1);
    expect(wrongKind.stderr).toContain(
      'define Gadget of toys.example.com/v1, Gadget of toys.example.com/v1beta1, not Widget',
    );
    expect(snapshotTree(root)).toEqual(before);
    rmSync(join(root, 'cmd/main.ts'));
    const after = snapshotTree(root);
    const failed = await scaffold(root, [
      ...args,
      '--kind',
      'Gadget',
      '--resource=false',
      '--external-api-crd',
      gadgets,
    ]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('cmd/main.ts file should be present');
    expect(snapshotTree(root)).toEqual(after);
    expect(existsSync(join(root, 'external'))).toBe(false);
  });
});
