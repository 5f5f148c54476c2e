import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { ApiError, isBadRequest, Namespaces, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import type { Client } from '../../../src/runtime/client/index.js';
import { FakeClient } from '../../../src/runtime/fake/index.js';
import { Manager } from '../../../src/runtime/index.js';
import { describeApplyContract } from './apply-contract.js';
import { describeScaleContract } from './scale-contract.js';
import { describeClientContract, WIDGET_CRD, Widgets, type Widget } from './contract.js';

// The contract against a real API server: the evidence for what the fake client claims.
let env: TestEnvironment;
let api: RestClient;

beforeAll(async () => {
  env = await TestEnvironment.start({ crds: [WIDGET_CRD] });
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

describeClientContract('a real API server', () => api);
describeApplyContract('a real API server', () => api);
describeScaleContract('a real API server', () => api);

describe('server-side apply: the fake answers a conflict as the API server does', () => {
  it('gives the same 409 status for the same conflict', async () => {
    const fake = new FakeClient({ statusSubresource: [Widgets] });
    const statusOf = async (client: Client, ns: string): Promise<unknown> => {
      if (client === api) await client.create(Namespaces, { metadata: { name: ns } });
      const key = { namespace: ns, name: 'w' };
      await client.apply(Widgets, { metadata: key, spec: { size: 1, color: 'red' } }, { fieldOwner: 'owner-a' });
      await client.update(
        Widgets,
        { ...(await client.get(Widgets, key)), spec: { size: 1, color: 'green' } },
        { fieldManager: 'editor' },
      );
      const err: unknown = await client
        .apply(Widgets, { metadata: key, spec: { size: 2, color: 'blue' } }, { fieldOwner: 'owner-b' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      // The server lists the causes of different managers in Go's map order, which varies: compare them sorted.
      const status = structuredClone((err as ApiError).status);
      status.details?.causes?.sort((a, b) => String(a.field).localeCompare(String(b.field)));
      return status;
    };
    const real = await statusOf(api, 'apply-compare');
    expect(await statusOf(fake, 'apply-compare')).toEqual(real);
    expect(real).toMatchObject({ code: 409, reason: 'Conflict' });
  });
});

describe("a client's write defaults", () => {
  it('applies as the default fieldOwner and validates with the default fieldValidation', async () => {
    const client = newClient(env.kubeConfig, { fieldOwner: 'default-owner', fieldValidation: 'Strict' });
    try {
      await client.create(Namespaces, { metadata: { name: 'apply-defaults' } });
      const stored = await client.apply(Widgets, {
        metadata: { namespace: 'apply-defaults', name: 'w' },
        spec: { size: 1 },
      });
      expect(stored.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([
        ['default-owner', 'Apply'],
      ]);
      const unknownField = {
        metadata: { namespace: 'apply-defaults', name: 'x' },
        spec: { size: 1, colour: 'red' },
      } as Widget;
      const err: unknown = await client.create(Widgets, unknownField).catch((e: unknown) => e);
      expect(isBadRequest(err) && (err as ApiError).message).toContain('unknown field "spec.colour"');
      await expect(api.apply(Widgets, { metadata: { namespace: 'apply-defaults', name: 'w' } })).rejects.toThrow(
        /needs a fieldManager/,
      );
      // The manager's client takes the same defaults from its client options.
      const mgr = new Manager({ kubeConfig: env.kubeConfig, client: { fieldOwner: 'manager-owner' } });
      const applied = await mgr
        .getClient()
        .apply(Widgets, { metadata: { namespace: 'apply-defaults', name: 'm' }, spec: { size: 2 } });
      expect(applied.metadata?.managedFields?.map((e) => e.manager)).toEqual(['manager-owner']);
    } finally {
      client.close();
    }
  });
});
