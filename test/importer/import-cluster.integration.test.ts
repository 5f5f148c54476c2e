/**
 * `scaffold import crd` with a CRD installed in a real cluster (kube-apiserver and etcd from envtest), and the
 * imported Kind in use: a controller that owns it is reconciled when an owned object with an owner reference appears
 * and changes.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { asStored } from '../../src/importer/as-stored.js';
import { importCRDs } from '../../src/importer/command.js';
import { planManifests } from '../../src/generate/manifests.js';
import type { CustomResourceDefinition } from '../../src/markers/apiextensions.js';
import { Manager, newControllerManagedBy, type Resource } from '../../src/runtime/index.js';
import { setControllerReference } from '../../src/runtime/client/index.js';
import { ConfigMaps, Namespaces, newClient, type KubeObject, type RestClient } from '../../src/runtime/rest/index.js';
import { kubeconfigFile } from '../cluster/helpers.js';
import { eventually } from '../support/eventually.js';
import { captureLog } from '../support/logs.js';
import { comparable } from '../support/import-roundtrip.js';
import { differingPaths } from '../support/object-diff.js';

const repo = join(import.meta.dirname, '../..');
const source = join(import.meta.dirname, '../fixtures/import/every-construct.yaml');
let env: TestEnvironment;
let api: RestClient;
let kubeconfig: { file: string; cleanup: () => void };
let project: string;

beforeAll(async () => {
  // the CRD is installed from the same source file that `scaffold import crd` reads
  env = await TestEnvironment.start({ crdDirectoryPaths: [source], errorIfCRDPathMissing: true });
  api = newClient(env.kubeConfig);
  kubeconfig = kubeconfigFile(env.kubeconfigYaml());
  // under the repository (in the git-ignored .tmp/), so that the generated types resolve @kubescaffold/runtime
  mkdirSync(join(repo, '.tmp'), { recursive: true });
  project = mkdtempSync(join(repo, '.tmp', 'import-'));
});

afterAll(async () => {
  api?.close();
  kubeconfig?.cleanup();
  if (project) rmSync(project, { recursive: true, force: true });
  await env?.stop();
});

/** What the API server keeps of a CRD that a generator would write: no server fields, no default conversion. */
function asGenerated(crd: CustomResourceDefinition): unknown {
  const c = comparable(crd) as CustomResourceDefinition & { spec: { conversion?: { strategy: string } } };
  const { name, annotations, labels } = c.metadata;
  c.metadata = { name, ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) };
  if (c.spec.conversion?.strategy === 'None') delete c.spec.conversion;
  return c;
}

describe('import crd from the cluster', () => {
  it('imports an installed CRD by name, and the types give that CRD back', async () => {
    const result = await importCRDs({
      root: project,
      sources: ['gadgets.toys.example.com'],
      cluster: { kubeconfig: kubeconfig.file },
      boilerplate: '',
    });
    expect(result.problems).toEqual([]);
    expect(result.groupVersions.map((gv) => `${gv.group}/${gv.version}`).sort()).toEqual([
      'toys.example.com/v1',
      'toys.example.com/v1beta1',
    ]);
    const installed = await api.transport.requestJson<CustomResourceDefinition>({
      method: 'GET',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.toys.example.com',
    });
    const { crds } = planManifests({
      root: project,
      paths: ['./external/...'],
      generatorVersion: '(test)',
      allowDangerousTypes: true,
    });
    expect(crds).toHaveLength(1);
    expect(differingPaths(asGenerated(installed), asGenerated(crds[0]!))).toEqual([]);
  });

  it('names a CRD the cluster does not have, and writes nothing', async () => {
    const empty = mkdtempSync(join(repo, '.tmp', 'import-none-'));
    try {
      await expect(
        importCRDs({ root: empty, sources: ['nothings.toys.example.com'], cluster: { kubeconfig: kubeconfig.file } }),
      ).rejects.toThrow(
        /nothings\.toys\.example\.com is not a file here, and the cluster at .* has no CRD of that name/,
      );
      expect((await import('node:fs')).readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a controller that owns the imported Kind reconciles the owner when an owned object appears and changes', async () => {
    const resources = (await import(
      pathToFileURL(join(project, 'external/toys.example.com/v1/zz_generated.resources.ts')).href
    )) as { GadgetResource: Resource<KubeObject & { spec?: { name: string; replicas?: number } }> };
    const Gadgets = resources.GadgetResource;
    expect(Gadgets).toMatchObject({ group: 'toys.example.com', version: 'v1', kind: 'Gadget', plural: 'gadgets' });
    await api.create(Namespaces, { metadata: { name: 'imported' } });
    const owner = await api.create(ConfigMaps, { metadata: { name: 'owner', namespace: 'imported' } });
    const reconciled: string[] = [];
    const logs = captureLog('manager');
    const mgr = new Manager({ kubeConfig: env.kubeConfig, log: logs.log });
    newControllerManagedBy(mgr)
      .for(ConfigMaps)
      .owns(Gadgets)
      .named('gadget-owner')
      .complete({
        reconcile: async (req) => {
          reconciled.push(`${req.namespace}/${req.name}`);
          return {};
        },
      });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await mgr.elected();
      await eventually(() => reconciled.includes('imported/owner'), 'the owner to be reconciled on start');
      reconciled.length = 0;
      const gadget = {
        apiVersion: 'toys.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g1', namespace: 'imported' },
        spec: { name: 'g1', replicas: 2 },
      };
      setControllerReference(owner, gadget);
      await api.create(Gadgets, gadget);
      await eventually(() => reconciled.includes('imported/owner'), 'a new owned Gadget to reconcile its owner');
      reconciled.length = 0;
      await api.patch(Gadgets, { namespace: 'imported', name: 'g1' }, { spec: { replicas: 4 } }, { type: 'merge' });
      await eventually(
        () => reconciled.includes('imported/owner'),
        'a change of the owned Gadget to reconcile its owner',
      );
      // the schema the import gave back is the one the server enforces: an odd replica count is refused by its rule
      await expect(
        api.patch(Gadgets, { namespace: 'imported', name: 'g1' }, { spec: { replicas: 3 } }, { type: 'merge' }),
      ).rejects.toThrow(/replicas must be even/);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${logs.tail()}`, { cause: err });
    } finally {
      ac.abort();
      await done;
    }
  });

  it('reads a file as the API server stores it: the empty lists and maps and the null it drops are what the import drops', async () => {
    const written = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'dials.toys.example.com', labels: {} },
      spec: {
        group: 'toys.example.com',
        names: {
          kind: 'Dial',
          plural: 'dials',
          singular: 'dial',
          listKind: 'DialList',
          categories: [],
          shortNames: [],
        },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            deprecationWarning: null,
            additionalPrinterColumns: [],
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { turns: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    } as unknown as CustomResourceDefinition;
    const stored = await api.transport.requestJson<CustomResourceDefinition>({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: written,
    });
    expect(differingPaths(asGenerated(stored), asGenerated(asStored(written)))).toEqual([]);
    // and what it drops is exactly those: the status subresource, an empty map, is kept by both
    expect(stored.spec.versions[0]!.subresources).toEqual({ status: {} });
    const dropped = differingPaths(asGenerated(written), asGenerated(asStored(written))).map((d) => d.split(':')[0]);
    expect(dropped.sort()).toEqual([
      '.metadata.labels',
      '.spec.names.categories',
      '.spec.names.shortNames',
      '.spec.versions[0].additionalPrinterColumns',
      '.spec.versions[0].deprecationWarning',
    ]);
  });
});
