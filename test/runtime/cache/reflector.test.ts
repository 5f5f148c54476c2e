import { afterEach, describe, expect, it } from 'vitest';
import {
  Backoff,
  Reflector,
  chainTransforms,
  compactObjects,
  newStore,
  stripManagedFields,
  type ListerWatcherListOptions,
  type ReflectorOptions,
  type Store,
} from '../../../src/runtime/cache/index.js';
import { ApiError, IdleTimeoutError } from '../../../src/runtime/rest/index.js';
import { FakeApi, gone, networkError, type Obj } from './fake-api.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const quickBackoff = (): Backoff => new Backoff(1, 5, 60_000, 2, 0);

let ac: AbortController;
let running: Promise<void> | undefined;

function start(
  api: FakeApi,
  opts: ReflectorOptions<Obj> = {},
): { store: Store<Obj>; reflector: Reflector<Obj>; errors: unknown[] } {
  const store = newStore<Obj>();
  const errors: unknown[] = [];
  ac = new AbortController();
  const reflector = new Reflector(api, store, { backoff: quickBackoff(), onError: (e) => errors.push(e), ...opts });
  running = reflector.run(ac.signal);
  return { store, reflector, errors };
}

const names = (s: Store<Obj>): string[] =>
  s
    .list()
    .map((o) => o.metadata!.name!)
    .sort();

afterEach(async () => {
  ac?.abort();
  await running;
  running = undefined;
});

describe('Reflector', () => {
  it('lists with RV 0 in pages of 500, then watches from the list RV with bookmarks and a 5–10 min timeout', async () => {
    const api = new FakeApi();
    for (let i = 0; i < 1200; i++) api.create(`o${String(i).padStart(4, '0')}`);
    const { store, reflector } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    expect(store.list()).toHaveLength(1200);
    expect(api.listCalls.map((c) => [c.resourceVersion, c.limit, c.continue])).toEqual([
      ['0', 500, undefined],
      [undefined, 500, '500'],
      [undefined, 500, '1000'],
    ]);
    const w = api.watchCalls[0]!;
    expect(w.resourceVersion).toBe('1200');
    expect(w.allowWatchBookmarks).toBe(true);
    expect(w.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(w.timeoutSeconds).toBeLessThan(600);
    expect(reflector.lastSyncResourceVersion()).toBe('1200');
  });

  it('says whether its watch is open, and on retryNow retries at once instead of waiting out its backoff', async () => {
    const api = new FakeApi();
    api.create('a');
    // Ten minutes between attempts: only retryNow can bring the watch back within the test.
    const { store, reflector } = start(api, { backoff: new Backoff(600_000, 600_000, 600_000, 2, 0) });
    await eventually(() => reflector.isWatching(), 'the watch open');
    // A watch that no event has come through yet is open all the same: the server accepted it.
    expect(store.list()).toHaveLength(1);
    api.breakWatches(networkError('ECONNRESET'));
    // The reflector now waits out its backoff before it watches again, its watch down.
    await eventually(() => !reflector.isWatching() && api.openWatches === 0, 'the watch broken');
    expect(api.watchCalls).toHaveLength(1);
    api.create('b');
    reflector.retryNow();
    await eventually(() => reflector.isWatching() && names(store).includes('b'), 'the watch open again, b seen');
    // It resumed from where it was: no relist.
    expect(api.listCalls).toHaveLength(1);
    expect(api.watchCalls.at(-1)!.resourceVersion).toBe('1');
  });

  it('applies watch events and tracks the last resourceVersion, bookmarks included', async () => {
    const api = new FakeApi();
    api.create('a');
    const { store, reflector } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.create('b');
    api.update('a', 5);
    api.remove('b');
    await eventually(() => reflector.lastSyncResourceVersion() === '4', 'events');
    expect(names(store)).toEqual(['a']);
    expect(store.getByKey('ns/a')?.spec?.value).toBe(5);
    api.bookmark();
    api.create('c');
    api.compact();
    api.bookmark();
    await eventually(() => reflector.lastSyncResourceVersion() === '5', 'the bookmark');
  });

  it('resumes the watch from the last resourceVersion after a dropped connection, without relisting', async () => {
    const api = new FakeApi();
    api.create('a');
    const { store, errors } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.create('b');
    await eventually(() => store.list().length === 2, 'b');
    api.breakWatches(networkError('ECONNRESET'));
    await eventually(() => api.watchCalls.length === 2 && api.openWatches === 1, 'a new watch');
    expect(api.watchCalls[1]!.resourceVersion).toBe('2');
    expect(api.listCalls).toHaveLength(1);
    expect(errors).toHaveLength(1);
    api.create('c');
    await eventually(() => store.list().length === 3, 'c');
  });

  it('resumes a watch dropped for silence (the idle bound) from the last resourceVersion', async () => {
    const api = new FakeApi();
    api.create('a');
    start(api, { watchIdleTimeoutMs: 1234 });
    await eventually(() => api.openWatches === 1, 'the watch');
    expect(api.watchCalls[0]!.idleTimeoutMs).toBe(1234);
    api.breakWatches(new IdleTimeoutError(1234));
    await eventually(() => api.watchCalls.length === 2 && api.openWatches === 1, 'the resumed watch');
    expect(api.watchCalls[1]!.resourceVersion).toBe('1');
    expect(api.listCalls).toHaveLength(1);
  });

  it('keeps retrying a refused connection with backoff and resumes', async () => {
    const api = new FakeApi();
    api.create('a');
    const { store } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.watchErrors = [networkError('ECONNREFUSED'), networkError('ECONNREFUSED'), networkError('ECONNREFUSED')];
    api.breakWatches(networkError('ECONNRESET'));
    api.create('b');
    await eventually(() => store.list().length === 2, 'b after the retries');
    expect(api.watchCalls.length).toBe(5);
    expect(api.listCalls).toHaveLength(1);
  });

  it('relists after a 410 and removes what was deleted meanwhile', async () => {
    const api = new FakeApi();
    api.create('a');
    api.create('b');
    const { store } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.breakWatches(networkError('ECONNRESET'));
    // While disconnected: b is deleted, c created, and history compacted, so the resumed watch gets 410.
    api.watchErrors = [networkError('ECONNREFUSED')];
    api.remove('b');
    api.create('c');
    api.compact();
    await eventually(() => api.listCalls.length === 2 && api.openWatches === 1, 'the relist and new watch');
    expect(names(store)).toEqual(['a', 'c']);
    expect(api.listCalls[1]!.resourceVersion).toBe('2');
  });

  it('relists with RV "" when its resourceVersion is too old for a list', async () => {
    const api = new FakeApi();
    api.create('a');
    const { store } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.listErrors = [gone()];
    api.breakWatches(new Error('undecodable event'));
    api.create('b');
    await eventually(() => api.listCalls.length === 3 && store.list().length === 2, 'the relist');
    expect(api.listCalls.map((c) => c.resourceVersion)).toEqual(['0', '1', '']);
  });

  it('backs off and relists after any other error, and never stops', async () => {
    const api = new FakeApi();
    api.listErrors = [
      new Error('boom'),
      new ApiError({ kind: 'Status', code: 500, reason: 'InternalError' }),
      new Error('again'),
    ];
    api.create('a');
    const { store, errors } = start(api);
    await eventually(() => store.list().length === 1, 'the list');
    expect(errors).toHaveLength(3);
    api.breakWatches(new Error('decoder exploded'));
    api.create('b');
    await eventually(() => store.list().length === 2 && api.listCalls.length === 5, 'the relist');
  });

  it('opens a new watch when the server ends one, from where the last one stopped', async () => {
    const api = new FakeApi();
    api.create('a');
    const { store } = start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    api.create('b');
    await eventually(() => store.list().length === 2, "the watch to deliver b's event");
    api.closeWatches();
    await eventually(() => api.watchCalls.length === 2 && api.openWatches === 1, 'the second watch');
    expect(api.watchCalls[1]!.resourceVersion).toBe('2');
    expect(api.listCalls).toHaveLength(1);
  });

  it('stops when its signal aborts and leaves no watch open', async () => {
    const api = new FakeApi();
    start(api);
    await eventually(() => api.openWatches === 1, 'the watch');
    ac.abort();
    await running;
    expect(api.openWatches).toBe(0);
  });

  it('starts from a WatchList stream when asked, replacing the store at the initial-events-end bookmark', async () => {
    const api = new FakeApi();
    api.create('a');
    api.create('b');
    const initial = [...api.objects.values()];
    let calls = 0;
    const lw = {
      list: api.list.bind(api),
      watch: (opts: Parameters<FakeApi['watch']>[0]) => {
        calls++;
        if (!opts.sendInitialEvents) return api.watch(opts);
        const live = api.watch({ ...opts, resourceVersion: String(api.rv) });
        return {
          async *[Symbol.asyncIterator]() {
            for (const o of initial) yield { type: 'ADDED' as const, object: o };
            yield {
              type: 'BOOKMARK' as const,
              object: {
                metadata: { resourceVersion: String(api.rv), annotations: { 'k8s.io/initial-events-end': 'true' } },
              },
            };
            yield* live;
          },
        };
      },
    };
    const store = newStore<Obj>();
    ac = new AbortController();
    const r = new Reflector(lw, store, { backoff: quickBackoff(), useWatchList: true, onError: () => {} });
    running = r.run(ac.signal);
    await eventually(() => store.list().length === 2, 'the initial events');
    api.create('c');
    await eventually(() => store.list().length === 3, 'c over the same stream');
    expect(api.listCalls).toHaveLength(0);
    expect(calls).toBe(1);
  });

  describe('its transform', () => {
    // Marks what it transformed, and counts how often it ran per object and resourceVersion.
    function marking(): { transform: (o: Obj) => Obj; calls: Map<string, number> } {
      const calls = new Map<string, number>();
      return {
        calls,
        transform: (o) => {
          const key = `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
          calls.set(key, (calls.get(key) ?? 0) + 1);
          return { ...o, metadata: { ...o.metadata, labels: { transformed: 'yes' } } };
        },
      };
    }
    const allTransformed = (s: Store<Obj>): boolean => s.list().every((o) => o.metadata?.labels?.transformed === 'yes');

    it('runs once per listed item as the ListerWatcher decodes it, page by page, and once per watch event', async () => {
      const api = new FakeApi();
      for (let i = 0; i < 1200; i++) api.create(`o${String(i).padStart(4, '0')}`);
      // A ListerWatcher that applies the transform as it produces each item, as RestClient's list does.
      let appliedByLister = 0;
      const lw = {
        list: async (opts: ListerWatcherListOptions<Obj>) => {
          const page = await api.list(opts);
          if (opts.transformItem) {
            page.items = page.items.map((o) => opts.transformItem!(o));
            appliedByLister += page.items.length;
          }
          return page;
        },
        watch: api.watch.bind(api),
      };
      const { transform, calls } = marking();
      const store = newStore<Obj>();
      ac = new AbortController();
      running = new Reflector(lw, store, { backoff: quickBackoff(), transform }).run(ac.signal);
      await eventually(() => api.openWatches === 1, 'the watch');
      expect(appliedByLister).toBe(1200);
      api.update('o0000', 5);
      api.create('new');
      api.bookmark();
      api.remove('o0001');
      await eventually(() => store.list().length === 1200 && store.getByKey('ns/new') !== undefined, 'the events');
      expect(allTransformed(store)).toBe(true);
      expect(store.getByKey('ns/o0000')!.spec?.value).toBe(5);
      // 1,200 listed items and three events (the bookmark is not an object), each transformed exactly once.
      expect(calls.size).toBe(1203);
      expect([...calls.values()].every((n) => n === 1)).toBe(true);
    });

    it('asks the ListerWatcher to leave managedFields out only when the transform drops them first', async () => {
      const asked = async (transform: ((o: Obj) => Obj) | undefined): Promise<boolean | undefined> => {
        const api = new FakeApi();
        api.create('a');
        const { store } = start(api, transform ? { transform } : {});
        await eventually(() => store.list().length === 1, 'the list');
        ac.abort();
        await running;
        return api.listCalls[0]!.omitManagedFields;
      };
      expect(await asked(stripManagedFields)).toBe(true);
      expect(await asked(compactObjects())).toBe(true);
      expect(await asked(compactObjects({ stripManagedFields: false }))).toBeUndefined();
      expect(await asked(chainTransforms<Obj>((o) => o, stripManagedFields))).toBeUndefined();
      expect(await asked(undefined)).toBeUndefined();
    });

    it('is applied by the reflector itself to a page whose ListerWatcher ignored it, still once per item', async () => {
      const api = new FakeApi(); // its list ignores transformItem
      for (let i = 0; i < 700; i++) api.create(`o${i}`);
      const { transform, calls } = marking();
      const { store } = start(api, { transform });
      await eventually(() => api.openWatches === 1, 'the watch');
      expect(store.list()).toHaveLength(700);
      expect(allTransformed(store)).toBe(true);
      expect(calls.size).toBe(700);
      expect([...calls.values()].every((n) => n === 1)).toBe(true);
    });

    it("runs on a WatchList stream's initial events before the store is replaced", async () => {
      const api = new FakeApi();
      api.create('a');
      api.create('b');
      const initial = [...api.objects.values()];
      const lw = {
        list: api.list.bind(api),
        watch: (opts: Parameters<FakeApi['watch']>[0]) => ({
          async *[Symbol.asyncIterator]() {
            for (const o of initial) yield { type: 'ADDED' as const, object: o };
            yield {
              type: 'BOOKMARK' as const,
              object: {
                metadata: { resourceVersion: String(api.rv), annotations: { 'k8s.io/initial-events-end': 'true' } },
              },
            };
            yield* api.watch({ ...opts, sendInitialEvents: undefined, resourceVersion: String(api.rv) });
          },
        }),
      };
      const { transform, calls } = marking();
      const store = newStore<Obj>();
      ac = new AbortController();
      running = new Reflector(lw, store, { backoff: quickBackoff(), useWatchList: true, transform }).run(ac.signal);
      await eventually(() => store.list().length === 2, 'the initial events');
      expect(allTransformed(store)).toBe(true);
      expect([...calls.keys()].sort()).toEqual(['a@1', 'b@2']);
    });
  });

  it('falls back to LIST when the server refuses WatchList', async () => {
    const api = new FakeApi();
    api.create('a');
    api.watchErrors = [new ApiError({ kind: 'Status', code: 422, reason: 'Invalid' })];
    // Its log line is kept here rather than printed among the test runner's report.
    const logged = captureLog('reflector');
    const { store } = start(api, { useWatchList: true, logger: logged.log });
    await eventually(() => store.list().length === 1 && api.openWatches === 1, 'the list and watch');
    expect(api.watchCalls[0]!.sendInitialEvents).toBe(true);
    expect(api.listCalls).toHaveLength(1);
    expect(
      logged.lines.filter((l) => l.includes('the server does not support WatchList; listing instead')),
    ).toHaveLength(1);
  });
});

describe('Backoff', () => {
  it('doubles from 800 ms to a 30 s cap and starts over after 2 minutes without errors', () => {
    let now = 0;
    const b = new Backoff(800, 30_000, 120_000, 2, 0, () => now);
    const seq = Array.from({ length: 8 }, () => b.next());
    expect(seq).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    now += 120_001;
    expect(b.next()).toBe(800);
  });

  it('adds up to 100% jitter', () => {
    const b = new Backoff(
      800,
      30_000,
      120_000,
      2,
      1,
      () => 0,
      () => 0.5,
    );
    expect(b.next()).toBe(1200);
  });
});
