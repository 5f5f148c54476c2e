/**
 * test/support/scaffolded-kind.ts on a real control plane: the CRD `scaffold manifests` generated for a kind made by
 * `scaffold create api` installs, and objects of the kind can be created and read through the descriptor it returns,
 * with both spec strings (the scaffold's `foo` and the added `pad`) kept by the structural schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { newClient } from '../../src/runtime/index.js';
import { Namespaces, type RestClient } from '../../src/runtime/rest/index.js';
import { tempDir } from './files.js';
import { scaffoldKind, type ScaffoldedKind } from './scaffolded-kind.js';

describe('scaffoldKind', () => {
  const dir = tempDir('scaffolded-kind-');
  let kind: ScaffoldedKind;
  let env: TestEnvironment | undefined;
  let client: RestClient | undefined;

  beforeAll(async () => {
    kind = await scaffoldKind(dir.path);
    env = await TestEnvironment.start({ crds: [kind.crd] });
    client = newClient(env.kubeConfig);
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
    dir.remove();
  });

  it('describes the namespaced kind `create api` made', () => {
    expect(kind.crdFile).toBe(`${dir.path}/config/crd/bases/fleet.example.com_ships.yaml`);
    expect(kind.crd.metadata?.name).toBe('ships.fleet.example.com');
    expect(kind.crd.spec.scope).toBe('Namespaced');
    expect({ ...kind.resource }).toEqual({
      group: 'fleet.example.com',
      version: 'v1',
      kind: 'Ship',
      plural: 'ships',
      namespaced: true,
      apiVersion: 'fleet.example.com/v1',
    });
    expect(kind.name).toBe('ships.fleet.example.com/v1/Ship');
  });

  it('installs, and an object of the kind can be created with both spec strings', async () => {
    await client!.create(Namespaces, { metadata: { name: 'fleet' } });
    await client!.create(kind.resource, {
      apiVersion: kind.resource.apiVersion,
      kind: 'Ship',
      metadata: { namespace: 'fleet', name: 'pequod' },
      spec: { foo: 'whale', pad: 'x'.repeat(64), unknown: 'pruned' } as never,
    });
    const got = await client!.get(kind.resource, { namespace: 'fleet', name: 'pequod' });
    expect(got.spec).toEqual({ foo: 'whale', pad: 'x'.repeat(64) });
    const list = await client!.list(kind.resource, { namespace: 'fleet' });
    expect(list.items.map((o) => o.metadata?.name)).toEqual(['pequod']);
  });
});
