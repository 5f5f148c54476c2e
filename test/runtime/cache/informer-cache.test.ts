import { afterEach, describe, expect, it } from 'vitest';
import { CacheNotStartedError, InformerCache } from '../../../src/runtime/cache/informer-cache.js';
import { KindSource, enqueueRequestForObject, type RequestQueue } from '../../../src/runtime/controller/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { ApiError, isNotFound } from '../../../src/runtime/rest/errors.js';
import { defineResource } from '../../../src/runtime/rest/resource.js';
import type { KubeObject } from '../../../src/runtime/rest/types.js';
import type { Request } from '../../../src/runtime/reconcile/index.js';
import { eventually } from '../../support/eventually.js';
import { FakeKindApi } from '../client/fake-lw.js';

interface Widget extends KubeObject {
  spec?: { color?: string };
}
const Widgets = defineResource<Widget>({
  group: 'test.io',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});
const quiet = newLogger({ sink: () => {} });
const w = (ns: string, name: string, color: string, labels: Record<string, string> = {}): Widget => ({
  metadata: { namespace: ns, name, labels, managedFields: [{ manager: 'x' }] },
  spec: { color },
});

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function startCache(api: FakeKindApi, namespaces?: string[]) {
  const cache = new InformerCache({ client: api.factory(), namespaces, log: quiet });
  const ac = new AbortController();
  stops.push(ac);
  const done = cache.start(ac.signal);
  return { cache, ac, done };
}

describe('InformerCache', () => {
  it('refuses reads before it is started', async () => {
    const cache = new InformerCache({ client: new FakeKindApi().factory(), log: quiet });
    await expect(cache.get(Widgets, { namespace: 'a', name: 'x' })).rejects.toBeInstanceOf(CacheNotStartedError);
  });

  it('starts an informer on first read, then serves deep copies with apiVersion/kind and no managedFields', async () => {
    const api = new FakeKindApi();
    api.upsert(w('a', 'one', 'red'));
    const { cache } = startCache(api);
    const got = await cache.get(Widgets, { namespace: 'a', name: 'one' });
    expect(got).toMatchObject({ apiVersion: 'test.io/v1', kind: 'Widget', spec: { color: 'red' } });
    expect(got.metadata?.managedFields).toBeUndefined();
    got.spec!.color = 'mutated';
    expect((await cache.get(Widgets, { namespace: 'a', name: 'one' })).spec?.color).toBe('red');
    expect(api.lists).toBe(1);
  });

  it("answers NotFound as controller-runtime's cache reader: an ApiError with its Status (the Kind where the API server has the resource), whose stack is its one line", async () => {
    const { cache } = startCache(new FakeKindApi());
    const err = await cache.get(Widgets, { namespace: 'a', name: 'missing' }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(Error);
    const apiErr = err as ApiError;
    expect(apiErr.message).toBe('Widget.test.io "missing" not found');
    expect(apiErr).toMatchObject({ name: 'ApiError', code: 404, reason: 'NotFound' });
    expect(apiErr.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'Widget.test.io "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', group: 'test.io', kind: 'Widget' },
      code: 404,
    });
    expect(apiErr.stack).toBe('ApiError: Widget.test.io "missing" not found');
    expect(String(apiErr)).toBe('ApiError: Widget.test.io "missing" not found');
  });

  it('lists by namespace, label selector and indexed field, sorted and limited', async () => {
    const api = new FakeKindApi();
    api.upsert(w('a', 'b1', 'red', { tier: 'web' }));
    api.upsert(w('a', 'a1', 'blue', { tier: 'db' }));
    api.upsert(w('b', 'c1', 'red', { tier: 'web' }));
    const { cache } = startCache(api);
    cache.indexField(Widgets, 'spec.color', (o) => (o.spec?.color ? [o.spec.color] : []));
    const names = async (opts: Parameters<typeof cache.list>[1]) =>
      (await cache.list(Widgets, opts)).items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
    expect(await names({})).toEqual(['a/a1', 'a/b1', 'b/c1']);
    expect(await names({ namespace: 'a' })).toEqual(['a/a1', 'a/b1']);
    expect(await names({ labelSelector: 'tier=web' })).toEqual(['a/b1', 'b/c1']);
    expect(await names({ fieldSelector: 'spec.color=red' })).toEqual(['a/b1', 'b/c1']);
    expect(await names({ namespace: 'b', fieldSelector: 'spec.color=red' })).toEqual(['b/c1']);
    expect(await names({ fieldSelector: 'metadata.name!=a1' })).toEqual(['a/b1', 'b/c1']);
    expect(await names({ limit: 1 })).toEqual(['a/a1']);
    await expect(cache.list(Widgets, { fieldSelector: 'spec.other=x' })).rejects.toThrow(/needs a field index/);
  });

  it('follows watch events', async () => {
    const api = new FakeKindApi();
    const { cache } = startCache(api);
    await cache.list(Widgets);
    api.upsert(w('a', 'new', 'green'));
    let seen: Widget | undefined;
    for (let i = 0; i < 500 && !seen; i++) {
      seen = await cache.get(Widgets, { namespace: 'a', name: 'new' }).catch(() => undefined);
      if (!seen) await new Promise((r) => setTimeout(r, 2));
    }
    expect(seen?.spec?.color).toBe('green');
  });

  it('with namespaces, caches only those and refuses others', async () => {
    const api = new FakeKindApi();
    api.upsert(w('a', 'x', 'red'));
    api.upsert(w('z', 'y', 'red'));
    const { cache } = startCache(api, ['a', 'b']);
    expect((await cache.list(Widgets)).items.map((o) => o.metadata?.name)).toEqual(['x']);
    await expect(cache.get(Widgets, { namespace: 'z', name: 'y' })).rejects.toThrow(/unknown namespace/);
  });

  it('feeds a kind source: initial objects as creates, then watch events, until stopped', async () => {
    const api = new FakeKindApi();
    api.upsert(w('a', 'first', 'red'));
    const { cache, ac, done } = startCache(api);
    const reqs: Request[] = [];
    const queue: RequestQueue = { add: (r) => reqs.push(r), addAfter: () => {} };
    const src = new KindSource(cache, Widgets, enqueueRequestForObject());
    const srcStop = new AbortController();
    await src.start(srcStop.signal, queue);
    expect(await src.waitForSync(srcStop.signal)).toBe(true);
    expect(reqs).toEqual([{ namespace: 'a', name: 'first' }]);
    api.upsert(w('a', 'second', 'red'));
    await eventually(() => reqs.length === 2, 'watch event delivered');
    srcStop.abort();
    api.upsert(w('a', 'third', 'red'));
    await cache.list(Widgets);
    ac.abort();
    await done;
    expect(reqs.map((r) => r.name)).toEqual(['first', 'second']);
  });
});
