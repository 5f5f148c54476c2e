import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ConfigMaps,
  CustomResourceDefinitions,
  Deployments,
  Namespaces,
  defineResource,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  newClient,
  type KubeObject,
  type RestClient,
  type WatchEvent,
} from '../../../src/runtime/rest/index.js';
import { DiscoveryClient } from '../../../src/runtime/discovery/index.js';
import { RESTMapper } from '../../../src/runtime/restmapper/index.js';
import { testCRD } from '../../support/crd.js';

interface Widget extends KubeObject {
  spec?: { size?: number; color?: string };
  status?: { ready?: boolean };
}
const Widgets = defineResource<Widget>({
  group: 'it.kubescaffold.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

const widgetCRD = testCRD({
  group: 'it.kubescaffold.dev',
  kind: 'Widget',
  versions: [
    {
      name: 'v1',
      spec: { size: { type: 'integer', minimum: 0 }, color: { type: 'string' } },
      status: { ready: { type: 'boolean' } },
    },
  ],
});

let env: TestEnvironment;
let client: RestClient;
const ns = 'rest-it';

beforeAll(async () => {
  env = await TestEnvironment.start({ crds: [widgetCRD] });
  client = newClient(env.kubeConfig);
  await client.create(Namespaces, { metadata: { name: ns } });
});
afterAll(async () => {
  client?.close();
  await env?.stop();
});

describe('RestClient against a real API server', () => {
  it('creates, gets, updates with optimistic concurrency, and deletes a ConfigMap', async () => {
    const created = await client.create(ConfigMaps, { metadata: { name: 'cm', namespace: ns }, data: { a: '1' } });
    expect(created.metadata?.uid).toBeTruthy();
    const again = await client.create(ConfigMaps, { metadata: { name: 'cm', namespace: ns } }).catch((e: unknown) => e);
    expect(isAlreadyExists(again)).toBe(true);
    const got = await client.get(ConfigMaps, { namespace: ns, name: 'cm' });
    const updated = await client.update(ConfigMaps, { ...got, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    const stale = await client.update(ConfigMaps, { ...got, data: { a: '3' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    const precondition = await client
      .delete(
        ConfigMaps,
        { namespace: ns, name: 'cm' },
        { preconditions: { resourceVersion: got.metadata!.resourceVersion! } },
      )
      .catch((e: unknown) => e);
    expect(isConflict(precondition)).toBe(true);
    await client.delete(ConfigMaps, { namespace: ns, name: 'cm' }, { propagationPolicy: 'Background' });
    expect(isNotFound(await client.get(ConfigMaps, { namespace: ns, name: 'cm' }).catch((e: unknown) => e))).toBe(true);
  });

  it('patches with merge, JSON patch and server-side apply', async () => {
    await client.create(Widgets, { metadata: { name: 'w', namespace: ns }, spec: { size: 1 } });
    const key = { namespace: ns, name: 'w' };
    expect((await client.patch(Widgets, key, { spec: { color: 'red' } }, { type: 'merge' })).spec).toEqual({
      size: 1,
      color: 'red',
    });
    expect(
      (await client.patch(Widgets, key, [{ op: 'replace', path: '/spec/size', value: 2 }], { type: 'json' })).spec
        ?.size,
    ).toBe(2);
    const applied = await client.patch(
      Widgets,
      key,
      { metadata: { name: 'w', namespace: ns }, spec: { size: 5 } },
      { type: 'apply', fieldManager: 'it', force: true },
    );
    expect(applied.spec?.size).toBe(5);
    expect(applied.metadata?.managedFields?.some((f) => f.manager === 'it')).toBe(true);
    expect(
      isInvalid(await client.patch(Widgets, key, { spec: { size: -1 } }, { type: 'merge' }).catch((e: unknown) => e)),
    ).toBe(true);
  });

  it('writes status only through the status subresource', async () => {
    const w = await client.create(Widgets, { metadata: { name: 's', namespace: ns }, spec: { size: 1 } });
    const ignored = await client.update(Widgets, { ...w, status: { ready: true } });
    expect(ignored.status).toBeUndefined();
    const withStatus = await client.status().update(Widgets, { ...ignored, status: { ready: true } });
    expect(withStatus.status?.ready).toBe(true);
    const patched = await client
      .status()
      .patch(Widgets, { namespace: ns, name: 's' }, { status: { ready: false } }, { type: 'merge' });
    expect(patched.status?.ready).toBe(false);
  });

  it('reads and changes the scale subresource of a Deployment', async () => {
    await client.create(Deployments, {
      metadata: { name: 'd', namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    expect((await client.getScale(Deployments, { namespace: ns, name: 'd' })).spec?.replicas).toBe(1);
    await client.scale(Deployments, { namespace: ns, name: 'd' }, 3);
    expect((await client.get(Deployments, { namespace: ns, name: 'd' })).spec?.replicas).toBe(3);
  });

  it('lists with label selectors and limit/continue pages, and deletes a collection', async () => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client.create(ConfigMaps, {
          metadata: { name: `page-${i}`, namespace: ns, labels: { set: 'paged', odd: String(i % 2) } },
        }),
      ),
    );
    const first = await client.list(ConfigMaps, { namespace: ns, labelSelector: 'set=paged', limit: 5 });
    expect(first.items).toHaveLength(5);
    expect(first.metadata.continue).toBeTruthy();
    expect(first.items[0]?.kind).toBe('ConfigMap');
    const all = await client.listAll(ConfigMaps, { namespace: ns, labelSelector: 'set=paged', limit: 5 });
    expect(all.items).toHaveLength(12);
    expect((await client.list(ConfigMaps, { namespace: ns, labelSelector: 'set=paged,odd=1' })).items).toHaveLength(6);
    await client.deleteCollection(ConfigMaps, { namespace: ns, labelSelector: 'odd=1' });
    expect((await client.list(ConfigMaps, { namespace: ns, labelSelector: 'set=paged' })).items).toHaveLength(6);
  });

  it('gets a large list gzipped by default, as client-go does, and uncompressed with disableCompression', async () => {
    // The API server compresses answers over 128 KiB for a client that accepts gzip.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client.create(ConfigMaps, {
          metadata: { name: `big-${i}`, namespace: ns, labels: { set: 'big' } },
          data: { pad: 'x'.repeat(4096) },
        }),
      ),
    );
    const plain = newClient(env.kubeConfig, { disableCompression: true });
    try {
      const encodings: (string | undefined)[] = [];
      for (const c of [client, plain]) {
        const res = await c.transport.stream({
          method: 'GET',
          path: `/api/v1/namespaces/${ns}/configmaps`,
          query: { labelSelector: 'set=big' },
        });
        encodings.push(res.headers['content-encoding']);
        res.resume();
        const list = await c.list(ConfigMaps, { namespace: ns, labelSelector: 'set=big' });
        expect(list.items).toHaveLength(40);
        expect(list.items.every((cm) => cm.data?.pad?.length === 4096)).toBe(true);
      }
      expect(encodings).toEqual(['gzip', undefined]);
    } finally {
      plain.close();
    }
  });

  it('watches from a resourceVersion and stops on abort', async () => {
    const start = await client.list(ConfigMaps, { namespace: ns });
    const ac = new AbortController();
    const seen: WatchEvent[] = [];
    const watching = (async () => {
      for await (const ev of client.watch(ConfigMaps, {
        namespace: ns,
        resourceVersion: start.metadata.resourceVersion,
        allowWatchBookmarks: true,
        signal: ac.signal,
      })) {
        seen.push(ev);
        if (ev.type === 'DELETED') ac.abort();
      }
    })();
    await client.create(ConfigMaps, { metadata: { name: 'watched', namespace: ns } });
    await client.patch(ConfigMaps, { namespace: ns, name: 'watched' }, { data: { x: 'y' } }, { type: 'merge' });
    await client.delete(ConfigMaps, { namespace: ns, name: 'watched' });
    await watching;
    expect(
      seen
        .filter((e) => e.type !== 'BOOKMARK')
        .map((e) => (e.type === 'ERROR' ? 'ERROR' : `${e.type} ${e.object.metadata?.name}`)),
    ).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
  });

  it('lists and watches metadata only (PartialObjectMetadata)', async () => {
    await client.create(ConfigMaps, {
      metadata: { name: 'meta-1', namespace: ns, labels: { meta: 'yes' } },
      data: { big: 'x'.repeat(1000) },
    });
    const list = await client.listMetadata(ConfigMaps, { namespace: ns, labelSelector: 'meta=yes' });
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'meta-1' },
    });
    expect((list.items[0] as { data?: unknown }).data).toBeUndefined();
    const ac = new AbortController();
    const events: string[] = [];
    const watching = (async () => {
      for await (const ev of client.watchMetadata(ConfigMaps, {
        namespace: ns,
        resourceVersion: list.metadata.resourceVersion,
        signal: ac.signal,
      })) {
        if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
        events.push(`${ev.type} ${ev.object.kind} ${ev.object.metadata.name} ${'data' in ev.object}`);
        ac.abort();
      }
    })();
    await client.create(ConfigMaps, { metadata: { name: 'meta-2', namespace: ns }, data: { a: 'b' } });
    await watching;
    expect(events).toEqual(['ADDED PartialObjectMetadata meta-2 false']);
  });

  it('maps kinds to resources through discovery, including CRDs', async () => {
    const mapper = new RESTMapper(new DiscoveryClient(client.transport));
    expect(await mapper.resourceFor({ group: 'apps', kind: 'Deployment' })).toMatchObject({
      plural: 'deployments',
      version: 'v1',
      namespaced: true,
    });
    expect(await mapper.resourceFor({ group: 'it.kubescaffold.dev', version: 'v1', kind: 'Widget' })).toMatchObject({
      plural: 'widgets',
    });
    const crd = await mapper.resourceForObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
    });
    expect(crd.plural).toBe(CustomResourceDefinitions.plural);
    expect((await new DiscoveryClient(client.transport).serverVersion()).gitVersion).toMatch(/^v1\./);
  });
});
