// hasOwnerReference on objects as the API server stores them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { hasOwnerReference, setOwnerReference } from '../../../src/runtime/client/index.js';
import { ConfigMaps, Secrets, newClient, type RestClient } from '../../../src/runtime/rest/index.js';

let env: TestEnvironment;
let client: RestClient;

beforeAll(async () => {
  env = await TestEnvironment.start();
  client = newClient(env.kubeConfig);
});
afterAll(async () => {
  client?.close();
  await env?.stop();
});

describe('hasOwnerReference', () => {
  it('finds a stored owner reference by group, kind and name, not another kind of the same name', async () => {
    const key = { namespace: 'default', name: 'owner' };
    const owner = await client.create(ConfigMaps, { metadata: key });
    const sameName = await client.create(Secrets, { metadata: key });
    const child = { metadata: { namespace: 'default', name: 'child' } };
    setOwnerReference(owner, child, { ownerType: ConfigMaps });
    await client.create(ConfigMaps, child);
    const stored = await client.get(ConfigMaps, child.metadata);
    expect(hasOwnerReference(stored, owner, { ownerType: ConfigMaps })).toBe(true);
    expect(hasOwnerReference(stored, sameName, { ownerType: Secrets })).toBe(false);
    expect(hasOwnerReference(owner, owner, { ownerType: ConfigMaps })).toBe(false);
    // The version does not matter, as in controller-runtime: a v2 of the same group and kind is the same owner.
    expect(hasOwnerReference(stored, { ...owner, apiVersion: 'v2', kind: 'ConfigMap' })).toBe(true);
  });
});
