// The cache options controller-runtime added after v0.19, on a real API server: a default transform for every kind,
// a resync period per kind, and reads that fail for a kind nothing watches instead of starting an informer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { ResourceNotCachedError } from '../../../src/runtime/cache/index.js';
import { Manager, type ManagerOptions } from '../../../src/runtime/index.js';
import { ConfigMaps, Namespaces, Secrets, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import type { KubeObject } from '../../../src/runtime/rest/types.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

let env: TestEnvironment;
let api: RestClient;
let seq = 0;

beforeAll(async () => {
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

/** A namespace holding one ConfigMap and one Secret, both named `one`. */
async function namespaceWithObjects(): Promise<string> {
  const ns = `cache-opts-${process.pid}-${++seq}`;
  await api.create(Namespaces, { metadata: { name: ns } });
  await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'one' }, data: { v: '1' } });
  await api.create(Secrets, { metadata: { namespace: ns, name: 'one' }, stringData: { v: '1' } });
  return ns;
}

/** Runs a manager with `cache` options until `fn` settles. */
async function withManager<T>(cache: ManagerOptions['cache'], fn: (mgr: Manager) => Promise<T>): Promise<T> {
  const mgr = new Manager({
    kubeConfig: env.kubeConfig,
    log: captureLog('cache-options').log,
    cache,
    metrics: { bindAddress: '0' },
    healthProbe: { bindAddress: '0' },
  });
  mgr.getCache().getInformer(ConfigMaps);
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  try {
    await mgr.elected(); // the caches have synced by then
    return await fn(mgr);
  } finally {
    ac.abort();
    await done;
  }
}

describe('cache options', () => {
  it('applies defaultTransform to every kind without a transform of its own', async () => {
    const ns = await namespaceWithObjects();
    const mark = <T extends KubeObject>(o: T): T => ({
      ...o,
      metadata: { ...o.metadata, labels: { ...o.metadata?.labels, transformed: 'yes' } },
    });
    await withManager(
      {
        defaultNamespaces: [ns],
        defaultTransform: mark,
        byObject: [{ resource: Secrets, transform: null }],
      },
      async (mgr) => {
        const cm = await mgr.getClient().get(ConfigMaps, { namespace: ns, name: 'one' });
        expect(cm.metadata?.labels?.transformed).toBe('yes');
        const secret = await mgr.getClient().get(Secrets, { namespace: ns, name: 'one' });
        expect(secret.metadata?.labels?.transformed).toBeUndefined();
        // transform: null caches the object as served, managedFields and all.
        expect(secret.metadata?.managedFields?.length).toBeGreaterThan(0);
      },
    );
  });

  it("resyncs a kind on its own byObject syncPeriod while the cache's is off", async () => {
    const ns = await namespaceWithObjects();
    await withManager(
      { defaultNamespaces: [ns], syncPeriod: 0, byObject: [{ resource: ConfigMaps, syncPeriod: 200 }] },
      async (mgr) => {
        let resyncs = 0;
        mgr
          .getCache()
          .getInformer(ConfigMaps)
          .addEventHandler({
            onUpdate: (oldObj, newObj) => {
              if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) resyncs++;
            },
          });
        await eventually(() => resyncs >= 2, 'two resyncs of the ConfigMap');
      },
    );
  });

  it('fails a read of a kind nothing watches with readerFailOnMissingInformer, and serves the watched ones', async () => {
    const ns = await namespaceWithObjects();
    await withManager({ defaultNamespaces: [ns], readerFailOnMissingInformer: true }, async (mgr) => {
      const cm = await mgr.getClient().get(ConfigMaps, { namespace: ns, name: 'one' });
      expect(cm.data).toEqual({ v: '1' });
      const err = await mgr
        .getClient()
        .get(Secrets, { namespace: ns, name: 'one' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResourceNotCachedError);
      expect((err as Error).message).toMatch(/^secrets\.\/v1 is not cached/);
      expect(mgr.getCache().getInformer(Secrets).informers.size).toBe(1); // asked for now, so it is cached from here
    });
  });
});
