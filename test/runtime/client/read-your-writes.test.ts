import { afterEach, describe, expect, it } from 'vitest';
import { InformerCache, type ListerWatcherFactory } from '../../../src/runtime/cache/index.js';
import { CachedClient, type CachedClientOptions } from '../../../src/runtime/client/index.js';
import { OwnWrites } from '../../../src/runtime/client/own-writes.js';
import { compareResourceVersions } from '../../../src/runtime/client/resource-version.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { ApiError, isNotFound } from '../../../src/runtime/rest/index.js';
import { defineResource } from '../../../src/runtime/rest/resource.js';
import type { KubeObject, ObjectKey, ObjectList, WatchEvent, WatchOptions } from '../../../src/runtime/rest/types.js';
import { FakeClock } from '../../support/clock.js';
import { eventually, settle } from '../../support/eventually.js';

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
const TIMEOUT = 2000;

/**
 * An API server for widgets whose watch is slow on command: writes are stored and answered at once, but watch events
 * reach the informer only when the test releases them, as a lagging watch would deliver them.
 */
class SlowWatchApi {
  private rv = 10;
  /** Makes the resourceVersions of later writes something other than etcd revisions. */
  opaqueVersions = false;
  private readonly objects = new Map<string, Widget>();
  private readonly events: { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: Widget }[] = [];
  private delivered = 0;
  private wake: (() => void)[] = [];
  /** Reads that reached the API server. */
  serverReads = 0;

  private record(type: 'ADDED' | 'MODIFIED' | 'DELETED', o: Widget): Widget {
    const rv = ++this.rv;
    const key = `${o.metadata?.namespace}/${o.metadata?.name}`;
    const resourceVersion = this.opaqueVersions ? `opaque-${rv}` : String(rv);
    const stored = structuredClone({ ...o, metadata: { ...o.metadata, resourceVersion } });
    if (type === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, stored);
    this.events.push({ rv, type, object: stored });
    return structuredClone(stored);
  }

  /** Lets the watch deliver every event so far. */
  release(): void {
    this.delivered = this.events.length;
    for (const w of this.wake.splice(0)) w();
  }

  /** What CachedClient writes through and falls back to. */
  writer(): ConstructorParameters<typeof CachedClient>[1] {
    const key = (k: ObjectKey): string => `${k.namespace}/${k.name}`;
    const notFound = (name: string): ApiError =>
      new ApiError({ kind: 'Status', code: 404, reason: 'NotFound', message: `widgets "${name}" not found` });
    const writer = {
      get: async (_res: unknown, k: ObjectKey) => {
        this.serverReads++;
        const o = this.objects.get(key(k));
        if (!o) throw notFound(k.name);
        return structuredClone(o);
      },
      list: async () => {
        this.serverReads++;
        return { items: [...this.objects.values()].map((o) => structuredClone(o)), metadata: {} };
      },
      create: async (_res: unknown, o: Widget) => this.record('ADDED', o),
      update: async (_res: unknown, o: Widget) => this.record('MODIFIED', o),
      delete: async (_res: unknown, k: ObjectKey) => {
        const o = this.objects.get(key(k));
        if (!o) throw notFound(k.name);
        this.record('DELETED', o);
      },
    };
    return writer as unknown as ConstructorParameters<typeof CachedClient>[1];
  }

  factory(): ListerWatcherFactory {
    return (<T extends KubeObject>() => ({
      list: async (): Promise<ObjectList<T>> => ({
        items: [...this.objects.values()].map((o) => structuredClone(o) as unknown as T),
        metadata: { resourceVersion: String(this.rv) },
      }),
      watch: (opts: WatchOptions): AsyncIterable<WatchEvent<T>> => {
        const api = this as SlowWatchApi;
        let from = Number(opts.resourceVersion ?? '0');
        return {
          async *[Symbol.asyncIterator]() {
            while (!opts.signal?.aborted) {
              for (const e of api.events.slice(0, api.delivered).filter((x) => x.rv > from)) {
                from = e.rv;
                yield { type: e.type, object: structuredClone(e.object) as unknown as T };
              }
              await new Promise<void>((resolve) => {
                api.wake.push(resolve);
                opts.signal?.addEventListener('abort', () => resolve(), { once: true });
              });
            }
          },
        };
      },
    })) as ListerWatcherFactory;
  }
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

/** A started cache over `api`, synced for widgets, and a client of it with `opts`. */
async function setUp(api: SlowWatchApi, readYourWrites: CachedClientOptions['cache'] = {}) {
  const cache = new InformerCache({ client: api.factory(), log: quiet });
  const stop = new AbortController();
  stops.push(stop);
  void cache.start(stop.signal);
  cache.getInformer(Widgets);
  expect(await cache.waitForCacheSync(stop.signal)).toBe(true);
  return new CachedClient(cache, api.writer(), { cache: readYourWrites });
}

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(p: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let done = false;
  const promise = p.finally(() => (done = true));
  return { settled: () => done, promise };
}

const key = { namespace: 'ns', name: 'w' };
const widget = (color: string, resourceVersion?: string): Widget => ({
  apiVersion: 'test.io/v1',
  kind: 'Widget',
  metadata: { namespace: 'ns', name: 'w', ...(resourceVersion ? { resourceVersion } : {}) },
  spec: { color },
});

/** A client whose cache holds w (red), and an update to blue the watch has not delivered yet. */
async function staleAfterUpdate(api: SlowWatchApi, cacheOpts: CachedClientOptions['cache']) {
  const client = await setUp(api, cacheOpts);
  const created = await client.create(Widgets, widget('red'));
  api.release();
  // Delivered and forgotten: the cache shows the create.
  expect((await client.get(Widgets, key, { readYourWrites: true })).spec?.color).toBe('red');
  await client.update(Widgets, { ...created, spec: { color: 'blue' } });
  return client;
}

describe('CachedClient read-your-writes', () => {
  it('without it, a read right after the client’s own update sees the state before it', async () => {
    const api = new SlowWatchApi();
    const client = await staleAfterUpdate(api, {});
    expect((await client.get(Widgets, key)).spec?.color).toBe('red');
  });

  it('waits for the informer to reach the resourceVersion the write returned, then reads the cache', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const client = await staleAfterUpdate(api, { readYourWrites: { clock } });
    const read = track(client.get(Widgets, key));
    await settle();
    expect(read.settled()).toBe(false);
    api.release();
    expect((await read.promise).spec?.color).toBe('blue');
    expect(api.serverReads).toBe(0);
    expect(clock.now()).toBe(0);
  });

  it('reads the API server once the bound runs out, and not before', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const client = await staleAfterUpdate(api, { readYourWrites: { timeout: TIMEOUT, clock } });
    const read = track(client.get(Widgets, key));
    await clock.advance(TIMEOUT - 1);
    expect(read.settled()).toBe(false);
    expect(api.serverReads).toBe(0);
    await clock.advance(1);
    expect((await read.promise).spec?.color).toBe('blue');
    expect(api.serverReads).toBe(1);
  });

  it('reads the API server at once when the resourceVersions are not etcd revisions', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const client = await setUp(api, { readYourWrites: { clock } });
    api.opaqueVersions = true;
    await client.create(Widgets, widget('green'));
    expect((await client.get(Widgets, key)).spec?.color).toBe('green');
    expect(api.serverReads).toBe(1);
    expect(clock.now()).toBe(0);
  });

  it('is asked for per read: on for one read of a client without it, off for one read of a client with it', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const off = await staleAfterUpdate(api, { readYourWrites: false });
    expect((await off.get(Widgets, key)).spec?.color).toBe('red');
    const read = track(off.get(Widgets, key, { readYourWrites: true }));
    await settle();
    expect(read.settled()).toBe(false);
    api.release();
    expect((await read.promise).spec?.color).toBe('blue');

    const api2 = new SlowWatchApi();
    const on = await staleAfterUpdate(api2, { readYourWrites: { clock } });
    expect((await on.get(Widgets, key, { readYourWrites: false })).spec?.color).toBe('red');
  });

  it('sees its own delete as NotFound once the watch delivers it', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const client = await setUp(api, { readYourWrites: { clock } });
    await client.create(Widgets, widget('red'));
    api.release();
    await client.get(Widgets, key);
    await client.delete(Widgets, key);
    expect((await client.get(Widgets, key, { readYourWrites: false })).spec?.color).toBe('red');
    const read = track(
      client.get(Widgets, key).then(
        () => 'found',
        (err: unknown) => isNotFound(err),
      ),
    );
    await settle();
    expect(read.settled()).toBe(false);
    api.release();
    expect(await read.promise).toBe(true);
    expect(api.serverReads).toBe(0);
  });

  it('lists once the cache shows every write of the kind in the namespace', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const client = await setUp(api, { readYourWrites: { clock } });
    await client.create(Widgets, widget('red'));
    await client.create(Widgets, { ...widget('blue'), metadata: { namespace: 'ns', name: 'v' } });
    expect((await client.list(Widgets, { namespace: 'ns', readYourWrites: false })).items).toHaveLength(0);
    const read = track(client.list(Widgets, { namespace: 'ns' }));
    await settle();
    expect(read.settled()).toBe(false);
    api.release();
    expect((await read.promise).items.map((o) => o.metadata?.name)).toEqual(['v', 'w']);
    expect(api.serverReads).toBe(0);
  });

  it('forgets the writes of a client that never waits for them once its informer shows them', async () => {
    const api = new SlowWatchApi();
    const client = await setUp(api, {});
    const remembered = (): number => (client as unknown as { ownWrites: OwnWrites }).ownWrites.size;
    const created = await client.create(Widgets, widget('red'));
    await client.update(Widgets, { ...created, spec: { color: 'blue' } });
    expect(remembered()).toBe(1);
    api.release();
    await eventually(() => remembered() === 0, 'the informer to show the update');
  });

  it('does not count a dry run as a write', async () => {
    const api = new SlowWatchApi();
    const clock = new FakeClock();
    const client = await staleAfterUpdate(api, { readYourWrites: { clock } });
    api.release();
    expect((await client.get(Widgets, key)).spec?.color).toBe('blue');
    // The fake server stores even a dry run; the client must not wait for it, so the read settles at once.
    await client.update(Widgets, widget('yellow', '999'), { dryRun: true });
    expect((await client.get(Widgets, key)).spec?.color).toBe('blue');
    expect(clock.now()).toBe(0);
  });
});

describe('compareResourceVersions', () => {
  it('orders etcd revisions as numbers, past 2^53, and refuses anything else', () => {
    expect(compareResourceVersions('9', '10')).toBeLessThan(0);
    expect(compareResourceVersions('10', '10')).toBe(0);
    expect(compareResourceVersions('18446744073709551615', '18446744073709551614')).toBeGreaterThan(0);
    expect(compareResourceVersions('9007199254740993', '9007199254740992')).toBeGreaterThan(0);
    for (const bad of ['', '010', '-1', '1.5', 'abc', ' 1'])
      expect(compareResourceVersions(bad, '1'), bad).toBeUndefined();
  });
});

describe('OwnWrites', () => {
  it('remembers the latest write per object, and only the last `limit` writes', () => {
    const own = new OwnWrites(2);
    own.recordWrite(Widgets, widget('red', '5'));
    own.recordWrite(Widgets, widget('blue', '7'));
    expect(own.of(Widgets, key)?.resourceVersion).toBe('7');
    own.recordWrite(Widgets, { ...widget('a'), metadata: { namespace: 'ns', name: 'a', resourceVersion: '8' } });
    own.recordDelete(Widgets, { namespace: 'other', name: 'b' });
    expect(own.size).toBe(2);
    expect(own.of(Widgets, key)).toBeUndefined();
    expect(own.in(Widgets, 'ns').map((w) => w.key.name)).toEqual(['a']);
    expect(own.in(Widgets, undefined).map((w) => w.key.name)).toEqual(['a', 'b']);
  });

  it('tells whether a cached object shows a write', () => {
    const own = new OwnWrites();
    own.recordWrite(Widgets, widget('blue', '7'));
    const w = own.of(Widgets, key)!;
    expect(OwnWrites.shows(w, undefined)).toBe(false);
    expect(OwnWrites.shows(w, widget('red', '6'))).toBe(false);
    expect(OwnWrites.shows(w, widget('blue', '7'))).toBe(true);
    expect(OwnWrites.shows(w, widget('green', '12'))).toBe(true);
    expect(OwnWrites.shows(w, widget('green', 'x12'))).toBeUndefined();
    own.recordDelete(Widgets, key);
    const d = own.of(Widgets, key)!;
    expect(OwnWrites.shows(d, widget('blue', '7'))).toBe(false);
    expect(OwnWrites.shows(d, undefined)).toBe(true);
    const terminating = widget('blue', '9');
    terminating.metadata!.deletionTimestamp = new Date();
    expect(OwnWrites.shows(d, terminating)).toBe(true);
  });
});
