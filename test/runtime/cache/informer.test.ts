import { afterEach, describe, expect, it } from 'vitest';
import {
  Backoff,
  DeletedFinalStateUnknown,
  SharedIndexInformer,
  SharedInformerFactory,
  stripManagedFields,
  waitForCacheSync,
  type ResourceEventHandler,
  type SharedIndexInformerOptions,
} from '../../../src/runtime/cache/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { defineResource } from '../../../src/runtime/rest/index.js';
import { FakeApi, networkError, type Obj } from './fake-api.js';
import { eventually } from '../../support/eventually.js';
import { deferred } from '../controller/fakes.js';

const quiet = newLogger({ level: 'error', sink: () => {} });
const fast = { backoff: new Backoff(1, 5, 60_000, 2, 0), onError: () => {} };

let ac: AbortController;
let running: Promise<void>[] = [];

function informer(api: FakeApi, opts: SharedIndexInformerOptions<Obj> = {}): SharedIndexInformer<Obj> {
  return new SharedIndexInformer<Obj>(api, { logger: quiet, reflector: fast, ...opts });
}
function run(inf: SharedIndexInformer<Obj>): void {
  running.push(inf.run(ac.signal));
}

interface Recorded {
  events: string[];
  handler: ResourceEventHandler<Obj>;
}
function recorder(): Recorded {
  const events: string[] = [];
  const n = (o: Obj): string => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  return {
    events,
    handler: {
      onAdd: (o, initial) => void events.push(`add ${n(o)}${initial ? ' initial' : ''}`),
      onUpdate: (o, nw) => void events.push(`update ${n(o)}->${n(nw)}`),
      onDelete: (o) =>
        void events.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key} ${n(o.obj)}` : `delete ${n(o)}`),
    },
  };
}

afterEach(async () => {
  ac?.abort();
  await Promise.all(running);
  running = [];
});

describe('SharedIndexInformer', () => {
  it('delivers the initial list as initial adds, then adds, updates with old and new, and deletes', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    api.create('a');
    api.create('b');
    const inf = informer(api);
    const r = recorder();
    const reg = inf.addEventHandler(r.handler);
    run(inf);
    expect(
      await waitForCacheSync(
        ac.signal,
        () => inf.hasSynced(),
        () => reg.hasSynced(),
      ),
    ).toBe(true);
    expect(r.events).toEqual(['add a@1 initial', 'add b@2 initial']);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.create('c');
    api.update('a', 7);
    api.remove('b');
    await eventually(() => r.events.length === 5, 'events');
    expect(r.events.slice(2)).toEqual(['add c@3', 'update a@1->a@4', 'delete b@5']);
    expect(inf.getStore().listKeys().sort()).toEqual(['ns/a', 'ns/c']);
    expect(inf.getIndexer().byIndex('namespace', 'ns')).toHaveLength(2);
  });

  it('takes the first list in one batch and loses no delete or update that follows before a handler caught up', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    for (const name of ['a', 'b', 'c']) api.create(name);
    const inf = informer(api);
    const r = recorder();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A handler still busy with the first item of the list while the watch reports changes.
    inf.addEventHandler({
      onAdd: async (o, initial) => {
        if (o.metadata?.name === 'a') await gate;
        r.handler.onAdd!(o, initial);
      },
      onUpdate: r.handler.onUpdate!,
      onDelete: r.handler.onDelete!,
    });
    run(inf);
    await eventually(() => api.openWatches === 1, 'the watch');
    expect(inf.hasSynced()).toBe(true);
    expect(inf.getStore().listKeys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
    api.remove('a');
    api.update('b', 9);
    await eventually(() => inf.getStore().listKeys().length === 2, 'the delete in the cache');
    release();
    await eventually(() => r.events.length === 5, 'every event handled');
    expect(r.events).toEqual([
      'add a@1 initial',
      'add b@2 initial',
      'add c@3 initial',
      'delete a@4',
      'update b@2->b@5',
    ]);
    expect(inf.getStore().listKeys().sort()).toEqual(['ns/b', 'ns/c']);
  });

  it('turns deletions missed while disconnected into tombstones on relist', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    api.create('a');
    api.create('b');
    const inf = informer(api);
    const r = recorder();
    inf.addEventHandler(r.handler);
    run(inf);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.breakWatches(networkError());
    api.watchErrors = [networkError('ECONNREFUSED')];
    api.remove('b');
    api.update('a', 1);
    api.compact();
    await eventually(() => r.events.length === 4, 'relist events');
    expect(r.events.slice(2).sort()).toEqual(['tombstone ns/b b@2', 'update a@1->a@4']);
  });

  it('keeps delivering to other handlers, and to itself, when a handler throws', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    const inf = informer(api);
    const good = recorder();
    let thrown = 0;
    inf.addEventHandler({
      onAdd: () => {
        thrown++;
        throw new Error('handler bug');
      },
    });
    inf.addEventHandler({ onAdd: async () => Promise.reject(new Error('async handler bug')) });
    inf.addEventHandler(good.handler);
    run(inf);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.create('a');
    api.create('b');
    await eventually(() => good.events.length === 2 && thrown === 2, 'both events everywhere');
  });

  it('does not let a slow async handler hold up the others', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    const inf = informer(api);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: string[] = [];
    inf.addEventHandler({
      onAdd: async (o) => {
        await gate;
        slow.push(o.metadata!.name!);
      },
    });
    const fastHandler = recorder();
    inf.addEventHandler(fastHandler.handler);
    run(inf);
    await eventually(() => api.openWatches === 1, 'the watch');
    for (let i = 0; i < 100; i++) api.create(`o${i}`);
    await eventually(() => fastHandler.events.length === 100, 'the fast handler');
    expect(slow).toEqual([]);
    release();
    await eventually(() => slow.length === 100, 'the slow handler');
    expect(slow[99]).toBe('o99');
  });

  it('catches a handler added late up on the current state first', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    api.create('a');
    const inf = informer(api);
    run(inf);
    await waitForCacheSync(ac.signal, () => inf.hasSynced());
    await eventually(() => api.openWatches === 1, 'the watch');
    const late = recorder();
    const reg = inf.addEventHandler(late.handler);
    api.create('b');
    await waitForCacheSync(ac.signal, () => reg.hasSynced());
    await eventually(() => late.events.length === 2, 'late events');
    expect(late.events).toEqual(['add a@1 initial', 'add b@2']);
  });

  it("has a late handler synced only once it has handled every cached object, an async handler's included", async () => {
    ac = new AbortController();
    const api = new FakeApi();
    for (let i = 0; i < 1500; i++) api.create(`o${i}`);
    const inf = informer(api);
    run(inf);
    await waitForCacheSync(ac.signal, () => inf.hasSynced());
    const seen: string[] = [];
    const gate = deferred();
    const reg = inf.addEventHandler({
      onAdd: async (o, initial) => {
        if (seen.length === 700) await gate.promise;
        seen.push(`${o.metadata?.name} ${initial}`);
      },
    });
    await eventually(() => seen.length === 700, 'the first 700');
    expect(reg.hasSynced()).toBe(false);
    gate.resolve();
    await waitForCacheSync(ac.signal, () => reg.hasSynced());
    expect(seen).toHaveLength(1500);
    expect(seen.every((e) => e.endsWith(' true'))).toBe(true);
  });

  it('resyncs each handler on its own period with updates whose old and new are the same object', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    api.create('a');
    const inf = informer(api);
    const resyncing = recorder();
    const plain = recorder();
    const resyncPeriodMs = 1000;
    inf.addEventHandler(resyncing.handler, { resyncPeriodMs });
    inf.addEventHandler(plain.handler);
    run(inf);
    // Derived from the period: the first resync is due after one period; four allow for a busy machine.
    await eventually(() => resyncing.events.some((e) => e.startsWith('update')), {
      what: 'a resync',
      timeoutMs: 4 * resyncPeriodMs,
    });
    expect(resyncing.events).toContain('update a@1->a@1');
    expect(plain.events).toEqual(['add a@1 initial']);
  });

  it('applies the transform before caching', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    api.create('a');
    const withFields = api.objects.get('ns/a')!;
    withFields.metadata!.managedFields = [{ manager: 'kubectl' }];
    const inf = informer(api, { transform: stripManagedFields });
    run(inf);
    await waitForCacheSync(ac.signal, () => inf.hasSynced());
    expect(inf.getStore().getByKey('ns/a')!.metadata!.managedFields).toBeUndefined();
  });

  it('transforms every object once as it enters, from the first list, a relist and watch events, and resyncs not again', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    api.create('a');
    api.create('b');
    const calls: string[] = [];
    const inf = informer(api, {
      resyncPeriodMs: 1000,
      transform: (o) => {
        calls.push(`${o.metadata?.name}@${o.metadata?.resourceVersion}`);
        return { ...o, metadata: { ...o.metadata, labels: { transformed: 'yes' } } };
      },
    });
    const r = recorder();
    inf.addEventHandler(r.handler);
    run(inf);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.create('c');
    await eventually(() => inf.getStore().getByKey('ns/c') !== undefined, 'c from the watch');
    // A relist over a cache that holds objects: it goes through the queue, where nothing transforms again.
    api.breakWatches(networkError());
    api.watchErrors = [networkError('ECONNREFUSED')];
    api.update('a', 1);
    api.compact();
    await eventually(() => inf.getStore().getByKey('ns/a')?.spec?.value === 1, 'the relist');
    // A resync re-delivers what is cached, untransformed again (the handler hears an update at the same version).
    await eventually(() => r.events.some((e) => e === 'update b@2->b@2'), { what: 'a resync', timeoutMs: 4000 });
    expect(
      inf
        .getStore()
        .list()
        .every((o) => o.metadata?.labels?.transformed === 'yes'),
    ).toBe(true);
    // The first list (a, b), the watch's c, and the relist (a@4, b, c again: a relist's items are new objects).
    expect(calls.sort()).toEqual(['a@1', 'a@4', 'b@2', 'b@2', 'c@3', 'c@3']);
  });

  it('by default keeps managedFields as served, with equal field sets shared; transform null caches them as parsed', async () => {
    const fields = () => [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:size': {} } } }];
    const cached = async (opts: SharedIndexInformerOptions<Obj>): Promise<[Obj, Obj]> => {
      ac = new AbortController();
      const api = new FakeApi();
      for (const n of ['a', 'b']) {
        api.create(n);
        api.objects.get(`ns/${n}`)!.metadata!.managedFields = fields();
      }
      const inf = informer(api, opts);
      run(inf);
      await waitForCacheSync(ac.signal, () => inf.hasSynced());
      const store = inf.getStore();
      return [store.getByKey('ns/a')!, store.getByKey('ns/b')!];
    };
    const [a, b] = await cached({});
    expect(a.metadata!.managedFields).toEqual(fields());
    expect(b.metadata!.managedFields![0]!.fieldsV1).toBe(a.metadata!.managedFields![0]!.fieldsV1);
    ac.abort();
    const [c, d] = await cached({ transform: null });
    expect(d.metadata!.managedFields![0]!.fieldsV1).not.toBe(c.metadata!.managedFields![0]!.fieldsV1);
    expect(Object.isFrozen(c.metadata!.managedFields![0]!.fieldsV1)).toBe(false);
  });

  it('stops every loop when its signal aborts and calls no handler afterwards', async () => {
    ac = new AbortController();
    const api = new FakeApi();
    const inf = informer(api);
    const r = recorder();
    inf.addEventHandler(r.handler);
    const done = inf.run(ac.signal);
    await eventually(() => api.openWatches === 1, 'the watch');
    ac.abort();
    api.create('late');
    await done;
    expect(api.openWatches).toBe(0);
    expect(r.events).toEqual([]);
    expect(inf.isStopped()).toBe(true);
    await expect(inf.run(new AbortController().signal)).rejects.toThrow(/already been started/);
  });
});

describe('SharedInformerFactory', () => {
  const Objs = defineResource<Obj>({ group: '', version: 'v1', kind: 'Obj', plural: 'objs', namespaced: true });

  it('shares one informer per resource, namespace and selectors, and starts and syncs them', async () => {
    ac = new AbortController();
    const apis = new Map<string, FakeApi>();
    const factory = new SharedInformerFactory(
      (_res, scope) => {
        const api = new FakeApi();
        api.create(`in-${scope.namespace ?? 'all'}`);
        apis.set(scope.namespace ?? 'all', api);
        return api as never;
      },
      { logger: quiet, reflector: fast },
    );
    const a = factory.informerFor(Objs, { namespace: 'x' });
    expect(factory.informerFor(Objs, { namespace: 'x' })).toBe(a);
    const b = factory.informerFor(Objs);
    expect(b).not.toBe(a);
    expect(factory.informerFor(Objs, { namespace: 'x', labelSelector: 'app=1' })).not.toBe(a);
    factory.start(ac.signal);
    const synced = await factory.waitForCacheSync(ac.signal);
    expect([...synced.values()]).toEqual([true, true, true]);
    expect(
      factory
        .listerFor(Objs, { namespace: 'x' })
        .list()
        .map((o) => o.metadata?.name),
    ).toEqual(['in-x']);
    expect(factory.listerFor(Objs).namespace('ns').get('in-all')?.metadata?.name).toBe('in-all');
    ac.abort();
    await factory.shutdown();
  });
});
