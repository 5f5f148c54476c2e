// The controller `create api --ssa` scaffolds, run: on a real API server it applies its status condition as its own
// field manager, changes nothing when run again, and requeues on a conflict with another manager; on the fake client
// it reconciles the same.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { runManifests } from '../../src/generate/command.js';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import {
  newLogger,
  type Client,
  type KubeObject,
  type ReconcileContext,
  type Resource,
} from '../../src/runtime/index.js';
import { isConflict } from '../../src/runtime/rest/index.js';
import type { Condition } from '../../src/runtime/client/index.js';
import { FakeClient } from '../../src/runtime/fake/index.js';
import { newClient, type RestClient } from '../../src/runtime/rest/index.js';
import { initProject } from './helpers.js';

interface Captain extends KubeObject {
  spec: { foo?: string };
  status?: { conditions?: Condition[] };
}
interface ScaffoldedController {
  CaptainReconciler: new (client: Client) => {
    reconcile(req: { namespace?: string; name: string }, ctx: ReconcileContext): Promise<unknown>;
  };
}

const repo = join(import.meta.dirname, '../..');
let root: string;
let env: TestEnvironment;
let api: RestClient;
let Captains: Resource<Captain>;
let CaptainReconciler: ScaffoldedController['CaptainReconciler'];

const context = (): ReconcileContext => ({
  signal: AbortSignal.timeout(30_000),
  log: newLogger({ sink: () => {} }),
  reconcileID: 'test',
  controller: 'captain',
});

beforeAll(async () => {
  // Inside the checkout, so that the scaffolded files resolve @kubescaffold/runtime to this checkout's.
  mkdirSync(join(repo, '.tmp'), { recursive: true });
  root = join(mkdtempSync(join(repo, '.tmp', 'ssa-')), 'crew');
  mkdirSync(root);
  initProject(root);
  scaffoldCreateAPI(root, {
    group: 'crew',
    version: 'v1',
    kind: 'Captain',
    resource: true,
    controller: true,
    namespaced: true,
    force: false,
    ssa: true,
  });
  await runManifests({ root, generatorVersion: 'test' });
  ({ CaptainReconciler } = (await import(
    join(root, 'internal/controller/captain_controller.ts')
  )) as ScaffoldedController);
  ({ CaptainResource: Captains } = (await import(join(root, 'api/v1/zz_generated.resources.ts'))) as {
    CaptainResource: Resource<Captain>;
  });
  env = await TestEnvironment.start({ crdDirectoryPaths: [join(root, 'config/crd/bases')] });
  api = newClient(env.kubeConfig);
});
afterAll(async () => {
  api?.close();
  await env?.stop();
  if (root) rmSync(join(root, '..'), { recursive: true, force: true });
});

describe('the --ssa controller', () => {
  it('applies the Available condition as captain-controller, then changes nothing when run again', async () => {
    const key = { namespace: 'default', name: 'applied' };
    await api.create(Captains, { metadata: key, spec: {} });
    const reconciler = new CaptainReconciler(api);
    await expect(reconciler.reconcile(key, context())).resolves.toEqual({});
    const first = await api.get(Captains, key);
    expect(first.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration])).toEqual([
      ['Available', 'True', 'Reconciled', 1],
    ]);
    const entry = first.metadata?.managedFields?.find((e) => e.manager === 'captain-controller');
    expect([entry?.operation, entry?.subresource]).toEqual(['Apply', 'status']);
    await expect(reconciler.reconcile(key, context())).resolves.toEqual({});
    expect((await api.get(Captains, key)).metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
  });

  it('requeues when another manager owns the condition with a different value', async () => {
    const key = { namespace: 'default', name: 'contested' };
    await api.create(Captains, { metadata: key, spec: {} });
    const theirs: Condition = {
      type: 'Available',
      status: 'False',
      reason: 'Paused',
      message: 'paused by hand',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    await api
      .status()
      .apply(Captains, { metadata: key, status: { conditions: [theirs] } }, { fieldOwner: 'operator-by-hand' });
    await expect(new CaptainReconciler(api).reconcile(key, context())).resolves.toEqual({ requeue: true });
    // What the controller met was the server's conflict, which its own apply reports too.
    const err: unknown = await api
      .status()
      .apply(
        Captains,
        { metadata: key, status: { conditions: [{ ...theirs, status: 'True' }] } },
        { fieldOwner: 'captain-controller' },
      )
      .catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
  });

  it('reconciles on the fake client the same', async () => {
    const key = { namespace: 'default', name: 'faked' };
    const fake = new FakeClient({ statusSubresource: [Captains] });
    await fake.create(Captains, { metadata: key, spec: {} });
    await expect(new CaptainReconciler(fake).reconcile(key, context())).resolves.toEqual({});
    const stored = await fake.get(Captains, key);
    expect(stored.status?.conditions?.map((c) => [c.type, c.status])).toEqual([['Available', 'True']]);
    expect(stored.metadata?.managedFields?.map((e) => [e.manager, e.operation, e.subresource])).toEqual([
      ['captain-controller', 'Apply', 'status'],
    ]);
  });
});
