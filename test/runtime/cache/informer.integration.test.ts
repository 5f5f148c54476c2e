import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  Backoff,
  DeletedFinalStateUnknown,
  SharedIndexInformer as Informer,
  SharedInformerFactory,
  newListWatch,
  waitForCacheSync,
  type ListWatchScope,
  type ListerWatcher,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformer,
} from '../../../src/runtime/cache/index.js';
import {
  ConfigMaps,
  Namespaces,
  newClient,
  type KubeObject,
  type Resource,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { TcpProxy } from './tcp-proxy.js';
import { captureLog } from '../../support/logs.js';
import { showOnFailure } from '../../support/failure.js';
import { eventually } from '../../support/eventually.js';
import { CONTROL_PLANE_START_MS } from '../../support/limits.js';

// Generous: on a loaded two-core machine several informers relisting thousands of objects share one API server.
const EVENT_BOUND_MS = 45_000;

const ns = 'informer-it';
const INITIAL = 1000;

/** Counts what one handler saw, per object name. */
class Recorder implements ResourceEventHandler<V1ConfigMap> {
  readonly adds = new Map<string, { initial: boolean; rv: string }[]>();
  readonly updates = new Map<string, { oldRV: string; newRV: string }[]>();
  readonly deletes = new Map<string, { tombstone: boolean }[]>();

  onAdd(obj: V1ConfigMap, isInInitialList: boolean): void {
    push(this.adds, obj.metadata!.name!, { initial: isInInitialList, rv: obj.metadata!.resourceVersion! });
  }
  onUpdate(oldObj: V1ConfigMap, newObj: V1ConfigMap): void {
    push(this.updates, newObj.metadata!.name!, {
      oldRV: oldObj.metadata!.resourceVersion!,
      newRV: newObj.metadata!.resourceVersion!,
    });
  }
  onDelete(obj: V1ConfigMap | DeletedFinalStateUnknown<V1ConfigMap>): void {
    const tombstone = obj instanceof DeletedFinalStateUnknown;
    const o = tombstone ? obj.obj : obj;
    push(this.deletes, o.metadata!.name!, { tombstone });
  }
}

/** Counts calls, then throws: it must not stop delivery to itself or anyone else. */
class Thrower implements ResourceEventHandler<V1ConfigMap> {
  calls = 0;
  onAdd(): void {
    this.calls++;
    throw new Error('handler bug (expected by the test)');
  }
  onUpdate(): void {
    this.calls++;
    throw new Error('handler bug (expected by the test)');
  }
  onDelete(): void {
    this.calls++;
    throw new Error('handler bug (expected by the test)');
  }
}

function push<V>(m: Map<string, V[]>, k: string, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

const cm = (name: string, v = '0'): V1ConfigMap => ({
  metadata: { name, namespace: ns, labels: { suite: 'informer-it' } },
  data: { v },
});
const names = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

let env: TestEnvironment;
const informerLog = captureLog('informer');
showOnFailure(informerLog.onFailure);
let direct: RestClient;
let proxied: RestClient;
let proxy: TcpProxy;
let factory: SharedInformerFactory;
let informer: SharedIndexInformer<V1ConfigMap>;
const ac = new AbortController();
const recorders = [new Recorder(), new Recorder()];
const thrower = new Thrower();
const registrations: ResourceEventHandlerRegistration[] = [];
const watchErrors: unknown[] = [];
let listCalls = 0;
let goneWatches = 0;

/** The server's view: name → resourceVersion. */
async function serverState(): Promise<Map<string, string>> {
  const list = await direct.listAll(ConfigMaps, { namespace: ns, labelSelector: 'suite=informer-it' });
  return new Map(list.items.map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
}

function cacheState(): Map<string, string> {
  return new Map(
    informer
      .getStore()
      .list()
      .map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]),
  );
}

/** Creates a marker object and waits until every handler saw it: everything written before has been delivered. */
async function flush(tag: string): Promise<void> {
  await direct.create(ConfigMaps, cm(`sentinel-${tag}`));
  await eventually(() => recorders.every((r) => r.adds.has(`sentinel-${tag}`)), {
    what: `sentinel ${tag}`,
    timeoutMs: EVENT_BOUND_MS,
  });
}

beforeAll(async () => {
  // kube-apiserver waits for open watches when asked to stop; a short grace period makes the restarts crash-like.
  env = await TestEnvironment.start({ stopTimeout: 3000 });
  direct = newClient(env.kubeConfig);
  await direct.create(Namespaces, { metadata: { name: ns } });
  await inBatches(names('pre', INITIAL), 50, (n) => direct.create(ConfigMaps, cm(n)));

  // The informer reaches the API server through a relay the tests can cut.
  const target = new URL(env.server);
  proxy = new TcpProxy({ host: target.hostname, port: Number(target.port) });
  const port = await proxy.start();
  proxied = newClient({ ...env.kubeConfig, server: `https://127.0.0.1:${port}` });

  factory = new SharedInformerFactory(
    <T extends KubeObject>(res: Resource<T>, scope: ListWatchScope): ListerWatcher<T> => {
      const lw = newListWatch(proxied, res, scope);
      return {
        list: (opts) => {
          listCalls++;
          return lw.list(opts);
        },
        watch: (opts) => ({
          async *[Symbol.asyncIterator]() {
            for await (const ev of lw.watch(opts)) {
              if (ev.type === 'ERROR' && ev.object.code === 410) goneWatches++;
              yield ev;
            }
          },
        }),
      };
    },
    { logger: informerLog.log, reflector: { backoff: new Backoff(200, 5000) } },
  );
  informer = factory.informerFor(ConfigMaps, { namespace: ns, labelSelector: 'suite=informer-it' });
  informer.setWatchErrorHandler((e) => watchErrors.push(e));
  for (const r of recorders) registrations.push(informer.addEventHandler(r));
  registrations.push(informer.addEventHandler(thrower));
  factory.start(ac.signal);
  // A control plane, then 1,000 ConfigMaps created through it.
}, 2 * CONTROL_PLANE_START_MS);

afterAll(async () => {
  ac.abort();
  await factory?.shutdown();
  proxied?.close();
  direct?.close();
  await proxy?.stop();
  await env?.stop();
});

describe('SharedIndexInformer against a real API server', () => {
  it('has all 1,000 pre-existing objects in its synced cache, delivered once to every handler', async () => {
    expect(
      await waitForCacheSync(ac.signal, () => informer.hasSynced(), ...registrations.map((r) => () => r.hasSynced())),
    ).toBe(true);
    expect(informer.getStore().list()).toHaveLength(INITIAL);
    expect(cacheState()).toEqual(await serverState());
    for (const r of recorders) {
      expect(r.adds.size).toBe(INITIAL);
      expect([...r.adds.values()].every((a) => a.length === 1 && a[0]!.initial)).toBe(true);
    }
    expect(thrower.calls).toBe(INITIAL);
  });

  it('delivers creates, updates (old and new) and deletes made while running exactly once to every handler', async () => {
    const created = names('new', 100);
    const updated = names('pre', INITIAL).slice(0, 100);
    const deleted = names('pre', INITIAL).slice(100, 200);
    const expectedUpdates = new Map<string, { oldRV: string; newRV: string }>();
    await inBatches(created, 25, (n) => direct.create(ConfigMaps, cm(n)));
    await inBatches(updated, 25, async (n) => {
      const before = await direct.get(ConfigMaps, { namespace: ns, name: n });
      const after = await direct.update(ConfigMaps, { ...before, data: { v: '1' } });
      expectedUpdates.set(n, { oldRV: before.metadata!.resourceVersion!, newRV: after.metadata!.resourceVersion! });
    });
    await inBatches(deleted, 25, (n) => direct.delete(ConfigMaps, { namespace: ns, name: n }));
    await flush('ops');

    for (const r of recorders) {
      for (const n of created) expect(r.adds.get(n)).toEqual([{ initial: false, rv: expect.any(String) }]);
      for (const n of updated) expect(r.updates.get(n)).toEqual([expectedUpdates.get(n)]);
      for (const n of deleted) expect(r.deletes.get(n)).toEqual([{ tombstone: false }]);
      expect(r.updates.size).toBe(updated.length);
      expect(r.deletes.size).toBe(deleted.length);
    }
    expect(thrower.calls).toBe(INITIAL + created.length + updated.length + deleted.length + 1);
    expect(cacheState()).toEqual(await serverState());
  });

  it('recovers by itself when kube-apiserver restarts mid-watch, losing nothing', async () => {
    await env.stopAPIServer();
    await env.startAPIServer();
    const created = names('after-restart', 20);
    const updated = names('pre', INITIAL).slice(200, 220);
    const deleted = names('pre', INITIAL).slice(220, 240);
    await inBatches(created, 20, (n) => direct.create(ConfigMaps, cm(n)));
    await inBatches(updated, 20, (n) =>
      direct.patch(ConfigMaps, { namespace: ns, name: n }, { data: { v: '2' } }, { type: 'merge' }),
    );
    await inBatches(deleted, 20, (n) => direct.delete(ConfigMaps, { namespace: ns, name: n }));
    await flush('restart');

    for (const r of recorders) {
      for (const n of created) expect(r.adds.get(n)).toHaveLength(1);
      for (const n of updated) expect(r.updates.get(n)).toHaveLength(1);
      for (const n of deleted) expect(r.deletes.get(n)).toHaveLength(1);
      // The relist after the restart re-delivers nothing that did not change.
      expect([...r.adds.values()].every((a) => a.length === 1)).toBe(true);
      expect(r.updates.size).toBe(100 + updated.length);
    }
    expect(cacheState()).toEqual(await serverState());
  });

  it('relists after a 410 and reports deletions it missed as tombstones', async () => {
    const listsBefore = listCalls;
    const goneBefore = goneWatches;
    proxy.cut();
    const deleted = names('pre', INITIAL).slice(300, 310);
    const updated = names('pre', INITIAL).slice(310, 320);
    await inBatches(deleted, 10, (n) => direct.delete(ConfigMaps, { namespace: ns, name: n }));
    await inBatches(updated, 10, (n) =>
      direct.patch(ConfigMaps, { namespace: ns, name: n }, { data: { v: '3' } }, { type: 'merge' }),
    );
    // A fresh apiserver has no history before its start: the informer's resourceVersion is now too old to watch from.
    await env.stopAPIServer();
    await env.startAPIServer();
    proxy.restore();
    await eventually(
      () => recorders.every((r) => deleted.every((n) => r.deletes.has(n)) && updated.every((n) => r.updates.has(n))),
      { what: 'the missed changes', timeoutMs: EVENT_BOUND_MS },
    );

    expect(goneWatches).toBeGreaterThan(goneBefore);
    expect(listCalls).toBeGreaterThan(listsBefore);
    for (const r of recorders) {
      for (const n of deleted) expect(r.deletes.get(n)).toEqual([{ tombstone: true }]);
      for (const n of updated) expect(r.updates.get(n)).toHaveLength(1);
    }
    await flush('gone');
    expect(cacheState()).toEqual(await serverState());
  });

  it('syncs through a WatchList stream (sendInitialEvents) without a LIST, then keeps watching on it', async () => {
    let lists = 0;
    const lw = newListWatch(direct, ConfigMaps, { namespace: ns, labelSelector: 'suite=informer-it' });
    const streamed = new Informer<V1ConfigMap>(
      {
        list: (opts) => {
          lists++;
          return lw.list(opts);
        },
        watch: (opts) => lw.watch(opts),
      },
      { logger: informerLog.log, reflector: { useWatchList: true } },
    );
    const seen = new Recorder();
    streamed.addEventHandler(seen);
    const stop = new AbortController();
    const running = streamed.run(stop.signal);
    try {
      expect(await waitForCacheSync(stop.signal, () => streamed.hasSynced())).toBe(true);
      expect(cacheOf(streamed)).toEqual(await serverState());
      await direct.create(ConfigMaps, cm('via-watchlist'));
      await eventually(() => seen.adds.has('via-watchlist'), {
        what: 'the event after the initial state',
        timeoutMs: EVENT_BOUND_MS,
      });
      expect(lists).toBe(0);
    } finally {
      stop.abort();
      await running;
    }
  });
});

function cacheOf(inf: Informer<V1ConfigMap>): Map<string, string> {
  return new Map(
    inf
      .getStore()
      .list()
      .map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]),
  );
}
