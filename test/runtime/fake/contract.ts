/**
 * The client contract: what a reconciler may rely on from any Client. It runs against the fake client
 * (fake.test.ts) and against a real API server (contract.integration.test.ts), so the fake cannot drift from the
 * server's semantics in what it claims to model.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigMaps,
  defineResource,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  Namespaces,
  type KubeObject,
} from '../../../src/runtime/rest/index.js';
import { mergeFrom, type Client } from '../../../src/runtime/client/index.js';
import { testCRD } from '../../support/crd.js';

export interface Widget extends KubeObject {
  spec?: { size?: number; color?: string };
  status?: { ready?: boolean; seen?: number };
}

export const Widgets = defineResource<Widget>({
  group: 'contract.kubescaffold.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

/** The Widget CRD, with a status subresource. */
export const WIDGET_CRD = testCRD({
  group: 'contract.kubescaffold.dev',
  kind: 'Widget',
  versions: [
    {
      name: 'v1',
      spec: { size: { type: 'integer' }, color: { type: 'string' } },
      status: { ready: { type: 'boolean' }, seen: { type: 'integer' } },
    },
  ],
});

/** Registers the contract's tests; `client()` returns the client under test, ready for Widgets. */
export function describeClientContract(name: string, client: () => Client): void {
  let n = 0;
  const namespace = async (): Promise<string> => {
    const ns = `contract-${process.pid}-${++n}`;
    await client().create(Namespaces, { metadata: { name: ns } });
    return ns;
  };
  const widget = (ns: string, name: string, spec: Widget['spec'] = { size: 1 }): Widget => ({
    apiVersion: 'contract.kubescaffold.dev/v1',
    kind: 'Widget',
    metadata: { namespace: ns, name },
    spec,
  });

  describe(`the client contract: ${name}`, () => {
    it('create sets uid, resourceVersion, creationTimestamp and generation 1, and a second create of the name is AlreadyExists', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, widget(ns, 'a'));
      expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
      expect(created.metadata?.creationTimestamp).toBeDefined();
      expect(created.metadata?.generation).toBe(1);
      expect(await client().get(Widgets, { namespace: ns, name: 'a' })).toEqual(created);
      await expect(client().create(Widgets, widget(ns, 'a'))).rejects.toSatisfy(isAlreadyExists);
    });

    it('create with generateName makes a name of the prefix and five characters', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, {
        ...widget(ns, ''),
        metadata: { namespace: ns, generateName: 'gen-' },
      });
      expect(created.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    });

    it('get, update, patch and delete of a missing object are NotFound', async () => {
      const ns = await namespace();
      await expect(client().get(Widgets, { namespace: ns, name: 'none' })).rejects.toSatisfy(isNotFound);
      await expect(
        client().update(Widgets, {
          ...widget(ns, 'none'),
          metadata: { namespace: ns, name: 'none', resourceVersion: '1' },
        }),
      ).rejects.toSatisfy(isNotFound);
      await expect(
        client().patch(Widgets, { namespace: ns, name: 'none' }, { spec: { size: 2 } }, { type: 'merge' }),
      ).rejects.toSatisfy(isNotFound);
      await expect(client().delete(Widgets, { namespace: ns, name: 'none' })).rejects.toSatisfy(isNotFound);
    });

    it('update with a stale resourceVersion is a Conflict, and a custom resource needs one', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, widget(ns, 'a'));
      const updated = await client().update(Widgets, { ...created, spec: { size: 2 } });
      expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
      await expect(client().update(Widgets, { ...created, spec: { size: 3 } })).rejects.toSatisfy(isConflict);
      const { resourceVersion: _rv, ...noVersion } = updated.metadata!;
      await expect(client().update(Widgets, { ...updated, metadata: noVersion, spec: { size: 3 } })).rejects.toSatisfy(
        isInvalid,
      );
    });

    it('a built-in ConfigMap updates without a resourceVersion and has no generation', async () => {
      const ns = await namespace();
      const created = await client().create(ConfigMaps, { metadata: { namespace: ns, name: 'c' }, data: { a: '1' } });
      expect(created.metadata?.generation).toBeUndefined();
      const updated = await client().update(ConfigMaps, { metadata: { namespace: ns, name: 'c' }, data: { a: '2' } });
      expect(updated.data).toEqual({ a: '2' });
    });

    it('update leaves status alone, status().update writes only status, and only a spec change bumps generation', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, { ...widget(ns, 'a'), status: { ready: true } });
      expect(created.status).toBeUndefined();
      const specOnly = await client().update(Widgets, { ...created, spec: { size: 2 }, status: { ready: true } });
      expect(specOnly.status).toBeUndefined();
      expect(specOnly.metadata?.generation).toBe(2);
      const statusOnly = await client()
        .status()
        .update(Widgets, { ...specOnly, spec: { size: 9 }, status: { ready: true } });
      expect(statusOnly.status).toEqual({ ready: true });
      expect(statusOnly.spec).toEqual({ size: 2 });
      expect(statusOnly.metadata?.generation).toBe(2);
      const labelled = await client().update(Widgets, {
        ...statusOnly,
        metadata: { ...statusOnly.metadata, labels: { a: 'b' } },
      });
      expect(labelled.metadata?.generation).toBe(2);
      expect(labelled.status).toEqual({ ready: true });
    });

    it('an update that changes nothing keeps the resourceVersion', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, widget(ns, 'a'));
      const same = await client().update(Widgets, created);
      expect(same.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    });

    it('a merge patch merges, a stale resourceVersion in it is a Conflict, a JSON patch applies, and status().patch writes only status', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, widget(ns, 'a', { size: 1, color: 'red' }));
      const merged = await client().patch(
        Widgets,
        { namespace: ns, name: 'a' },
        { spec: { size: 2, color: null } },
        { type: 'merge' },
      );
      expect(merged.spec).toEqual({ size: 2 });
      await expect(
        client().patch(
          Widgets,
          { namespace: ns, name: 'a' },
          mergeFrom(created, { ...created, spec: { size: 5 } }, { optimisticLock: true }),
          { type: 'merge' },
        ),
      ).rejects.toSatisfy(isConflict);
      const jsonPatched = await client().patch(
        Widgets,
        { namespace: ns, name: 'a' },
        [{ op: 'replace', path: '/spec/size', value: 7 }],
        { type: 'json' },
      );
      expect(jsonPatched.spec).toEqual({ size: 7 });
      const status = await client()
        .status()
        .patch(Widgets, { namespace: ns, name: 'a' }, { spec: { size: 1 }, status: { seen: 3 } }, { type: 'merge' });
      expect(status.status).toEqual({ seen: 3 });
      expect(status.spec).toEqual({ size: 7 });
    });

    it('server-side apply creates the object, then changes the fields it names', async () => {
      const ns = await namespace();
      const applied = await client().patch(
        Widgets,
        { namespace: ns, name: 'a' },
        widget(ns, 'a', { size: 1, color: 'red' }),
        { type: 'apply', fieldManager: 'contract', force: true },
      );
      expect(applied.spec).toEqual({ size: 1, color: 'red' });
      const again = await client().patch(
        Widgets,
        { namespace: ns, name: 'a' },
        widget(ns, 'a', { size: 4, color: 'red' }),
        { type: 'apply', fieldManager: 'contract', force: true },
      );
      expect(again.spec).toEqual({ size: 4, color: 'red' });
      expect(again.metadata?.generation).toBe(2);
    });

    it('delete of an object with a finalizer marks it; new finalizers are refused; removing the last one deletes it', async () => {
      const ns = await namespace();
      await client().create(Widgets, {
        ...widget(ns, 'a'),
        metadata: { namespace: ns, name: 'a', finalizers: ['contract.kubescaffold.dev/cleanup'] },
      });
      await client().delete(Widgets, { namespace: ns, name: 'a' });
      const marked = await client().get(Widgets, { namespace: ns, name: 'a' });
      expect(marked.metadata?.deletionTimestamp).toBeDefined();
      await expect(
        client().update(Widgets, {
          ...marked,
          metadata: { ...marked.metadata, finalizers: ['contract.kubescaffold.dev/cleanup', 'another.example.com/x'] },
        }),
      ).rejects.toSatisfy(isInvalid);
      await client().update(Widgets, { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
      await expect(client().get(Widgets, { namespace: ns, name: 'a' })).rejects.toSatisfy(isNotFound);
    });

    it('delete with a stale precondition is a Conflict', async () => {
      const ns = await namespace();
      const created = await client().create(Widgets, widget(ns, 'a'));
      await client().update(Widgets, { ...created, spec: { size: 2 } });
      await expect(
        client().delete(
          Widgets,
          { namespace: ns, name: 'a' },
          { preconditions: { resourceVersion: created.metadata!.resourceVersion! } },
        ),
      ).rejects.toSatisfy(isConflict);
      await client().delete(Widgets, { namespace: ns, name: 'a' }, { preconditions: { uid: created.metadata!.uid! } });
      await expect(client().get(Widgets, { namespace: ns, name: 'a' })).rejects.toSatisfy(isNotFound);
    });

    it('list filters by namespace, label selector and metadata.name, sorted by name', async () => {
      const ns = await namespace();
      const other = await namespace();
      for (const [name, tier] of [
        ['b', 'web'],
        ['a', 'web'],
        ['c', 'db'],
      ] as const) {
        await client().create(Widgets, { ...widget(ns, name), metadata: { namespace: ns, name, labels: { tier } } });
      }
      await client().create(Widgets, widget(other, 'a'));
      const names = async (opts: Parameters<Client['list']>[1]): Promise<string[]> =>
        (await client().list(Widgets, opts)).items.map((w) => w.metadata!.name!);
      expect(await names({ namespace: ns })).toEqual(['a', 'b', 'c']);
      expect(await names({ namespace: ns, labelSelector: 'tier=web' })).toEqual(['a', 'b']);
      expect(await names({ namespace: ns, labelSelector: 'tier notin (web)' })).toEqual(['c']);
      expect(await names({ namespace: ns, fieldSelector: 'metadata.name=b' })).toEqual(['b']);
      expect(await names({ namespace: other })).toEqual(['a']);
    });
  });
}
