/**
 * The scale subresource's contract, on a Deployment: the Scale a client reads, and scaling through it. It runs against
 * the fake client (fake.test.ts) and a real API server (contract.integration.test.ts) with the same expectations.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigMaps,
  Deployments,
  isConflict,
  isNotFound,
  Namespaces,
  type Scale,
} from '../../../src/runtime/rest/index.js';
import type { Client } from '../../../src/runtime/client/index.js';
import type { RestClient } from '../../../src/runtime/rest/index.js';

/** A Client with RestClient's scale subresource calls. */
export type ScaleClient = Client & Pick<RestClient, 'getScale' | 'updateScale' | 'scale' | 'subResource'>;

/** Registers the scale contract's tests; `client()` returns the client under test. */
export function describeScaleContract(name: string, client: () => ScaleClient): void {
  let n = 0;
  const deployment = async (replicas: number) => {
    const namespace = `scale-${process.pid}-${++n}`;
    await client().create(Namespaces, { metadata: { name: namespace } });
    const labels = { app: 'web' };
    return client().create(Deployments, {
      metadata: { namespace, name: 'web' },
      spec: {
        replicas,
        selector: {
          matchLabels: labels,
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] }],
        },
        template: {
          metadata: { labels: { ...labels, tier: 'front' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
  };

  describe(`the scale subresource: ${name}`, () => {
    it("reads a Deployment's Scale: its identity, spec.replicas, status.replicas and selector", async () => {
      const created = await deployment(3);
      const key = { namespace: created.metadata!.namespace!, name: 'web' };
      const scale = await client().getScale(Deployments, key);
      expect(scale).toMatchObject({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { ...key, uid: created.metadata?.uid, resourceVersion: created.metadata?.resourceVersion },
        spec: { replicas: 3 },
        status: { replicas: 0, selector: 'app=web,tier in (edge,front)' },
      });
      expect(
        await client()
          .subResource('scale')
          .get(Deployments as never, key),
      ).toEqual(scale);
    });

    it('scales through the subresource: spec.replicas and generation change, a stale resourceVersion conflicts', async () => {
      const created = await deployment(1);
      const key = { namespace: created.metadata!.namespace!, name: 'web' };
      const stale = await client().getScale(Deployments, key);
      const scaled = await client().scale(Deployments, key, 5);
      expect(scaled.spec?.replicas).toBe(5);
      const stored = await client().get(Deployments, key);
      expect([stored.spec?.replicas, stored.metadata?.generation]).toEqual([5, 2]);
      expect(scaled.metadata?.resourceVersion).toBe(stored.metadata?.resourceVersion);
      const updated: Scale = await client().updateScale(Deployments, key, { ...scaled, spec: { replicas: 2 } });
      expect((await client().get(Deployments, key)).spec?.replicas).toBe(2);
      expect(updated.spec?.replicas).toBe(2);
      await expect(client().updateScale(Deployments, key, { ...stale, spec: { replicas: 7 } })).rejects.toSatisfy(
        isConflict,
      );
    });

    it('has no scale for a ConfigMap, nor for a missing Deployment', async () => {
      const created = await deployment(1);
      const namespace = created.metadata!.namespace!;
      await client().create(ConfigMaps, { metadata: { namespace, name: 'c' } });
      await expect(client().getScale(ConfigMaps, { namespace, name: 'c' })).rejects.toSatisfy(isNotFound);
      await expect(client().getScale(Deployments, { namespace, name: 'none' })).rejects.toSatisfy(isNotFound);
    });
  });
}
