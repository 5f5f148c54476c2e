// Whether the API server applies shardSelector, decided from what it sends, on a real kube-apiserver with the
// ShardedListAndWatch gate on and off: for ConfigMaps (whose lists carry metadata.shardInfo), for a custom resource
// (whose lists do not) and for metadata-only lists. Then a sharded InformerCache: with the gate on it receives and
// holds only its partition's objects; with it off it caches the kind whole; and when the gate is turned off while it
// runs (kube-apiserver restarted without it), it notices, says so, and loses no change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { InformerCache } from '../../../src/runtime/cache/informer-cache.js';
import { shardClientFilteredTotal, shardServerFiltering } from '../../../src/runtime/metrics/sharding.js';
import {
  ConfigMaps,
  Namespaces,
  defineResource,
  newClient,
  type KubeObject,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { partitionRanges } from '../../../src/runtime/sharding/hash.js';
import { inRanges } from '../../../src/runtime/sharding/selector.js';
import { probeServerFiltering, type ProbeClient } from '../../../src/runtime/sharding/server-filtering.js';
import { testCRD } from '../../support/crd.js';
import { minutes } from '../../support/commands.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

interface Ship extends KubeObject {
  spec?: { foo?: string };
}
const Ships = defineResource<Ship>({
  group: 'fleet.shard.test',
  version: 'v1',
  kind: 'Ship',
  plural: 'ships',
  namespaced: true,
});
const SHIP_CRD = testCRD({
  group: 'fleet.shard.test',
  kind: 'Ship',
  versions: [{ name: 'v1', spec: { foo: { type: 'string' } } }],
});
const SHIPS_ID = 'ships.fleet.shard.test/v1';
const PARTITIONS = 3;
const [FIRST] = partitionRanges(PARTITIONS);

let ringSeq = 0;
const gauge = async (ring: string): Promise<number | undefined> =>
  (await shardServerFiltering.get()).values.find((v) => v.labels.ring === ring && v.labels.resource === SHIPS_ID)
    ?.value;
const dropped = async (ring: string): Promise<number> =>
  (await shardClientFilteredTotal.get()).values
    .filter((v) => v.labels.ring === ring)
    .reduce((sum, v) => sum + v.value, 0);

const metadataClient = (c: RestClient): ProbeClient => ({
  list: (res, opts) => c.listMetadata(res, opts) as never,
});

async function createShips(c: RestClient, namespace: string, names: string[]): Promise<void> {
  for (const name of names) await c.create(Ships, { metadata: { namespace, name }, spec: { foo: '1' } });
}

/** The names of `namespace`'s Ships in partition 0, as the server has them, sorted. */
async function firstPartition(c: RestClient, namespace: string): Promise<string[]> {
  const all = await c.list(Ships, { namespace });
  return all.items
    .filter((o) => inRanges(o, 'uid', [FIRST!]))
    .map((o) => `${o.metadata!.name}=${o.spec?.foo}`)
    .sort();
}

/** A sharded cache holding partition 0 of the Ships of `namespace`. */
async function shardedCache(c: RestClient, namespace: string) {
  const ring = `filtering-${++ringSeq}`;
  const captured = captureLog(ring);
  const cache = new InformerCache({
    client: c,
    namespaces: [namespace],
    sharding: { ring, key: 'uid', partitions: PARTITIONS },
    log: captured.log,
  });
  cache.shardKind(Ships);
  cache.getInformer(Ships);
  const stop = new AbortController();
  const run = cache.start(stop.signal);
  expect(await cache.startPartition(0, stop.signal)).toBe(true);
  const held = (): string[] =>
    cache
      .objectsInPartition(Ships, 0)
      .map((o) => `${o.metadata!.name}=${o.spec?.foo}`)
      .sort();
  const keys = (): string[] => [...cache.getInformer(Ships).informers.keys()];
  return {
    ring,
    cache,
    captured,
    held,
    keys,
    stop: async () => {
      stop.abort();
      await run;
    },
  };
}

describe.each([true, false])('with ShardedListAndWatch=%s', (gate) => {
  let env: TestEnvironment | undefined;
  let c: RestClient;
  const ns = 'fleet';
  const expected = gate ? 'filters' : 'ignores';

  beforeAll(async () => {
    env = await TestEnvironment.start({
      crds: [SHIP_CRD],
      apiServerFlags: { 'feature-gates': `ShardedListAndWatch=${gate}` },
    });
    c = newClient(env.kubeConfig);
    await c.create(Namespaces, { metadata: { name: ns } });
    await c.create(Namespaces, { metadata: { name: 'empty' } });
    await createShips(
      c,
      ns,
      Array.from({ length: 30 }, (_, i) => `s${i}`),
    );
    for (let i = 0; i < 30; i++) await c.create(ConfigMaps, { metadata: { namespace: ns, name: `c${i}` } });
  }, minutes(2));
  afterAll(async () => {
    c?.close();
    await env?.stop();
  });

  it(`the probe says the server ${expected} for ConfigMaps, a custom resource and metadata-only lists`, async () => {
    const opts = { key: 'uid' as const, namespace: ns };
    expect(await probeServerFiltering(ConfigMaps, c, opts)).toBe(expected);
    expect(await probeServerFiltering(Ships, c, opts)).toBe(expected);
    expect(await probeServerFiltering(Ships, metadataClient(c), opts)).toBe(expected);
    expect(await probeServerFiltering(Ships, c, { key: 'namespace', namespace: ns })).toBe(expected);
    // Nothing to tell by.
    expect(await probeServerFiltering(Ships, c, { key: 'uid', namespace: 'empty' })).toBe('unknown');
  });

  it(
    gate
      ? 'a sharded cache receives and holds only its partition of the custom resource'
      : 'a sharded cache caches the custom resource whole, says so once, and hands out only its partition',
    async () => {
      const s = await shardedCache(c, ns);
      try {
        expect(s.held()).toEqual(await firstPartition(c, ns));
        expect(s.held().length).toBeGreaterThan(0);
        expect(await gauge(s.ring)).toBe(gate ? 1 : 0);
        if (gate) {
          expect(s.keys()).toEqual([`${ns}#0`]);
          // Nothing outside the partition reached this replica.
          expect(await dropped(s.ring)).toBe(0);
          expect(s.captured.lines.filter((l) => l.includes('filters by shardSelector'))).toHaveLength(1);
        } else {
          expect(s.keys()).toEqual([`${ns}#whole`]);
          expect(s.captured.lines.filter((l) => l.includes('ignores shardSelector'))).toHaveLength(1);
        }
      } finally {
        await s.stop();
      }
    },
  );

  it(`decides a kind that had no object when its partition started by the first object that arrives: the server ${expected}`, async () => {
    await c.create(Namespaces, { metadata: { name: 'late' } });
    const s = await shardedCache(c, 'late');
    try {
      expect(await gauge(s.ring)).toBeUndefined();
      expect(s.keys()).toEqual(['late#0']);
      await createShips(
        c,
        'late',
        Array.from({ length: 12 }, (_, i) => `l${i}`),
      );
      await eventually(async () => (await gauge(s.ring)) === (gate ? 1 : 0), {
        what: 'the cache to decide once objects arrived',
        timeoutMs: minutes(1),
        diagnose: () => s.captured.tail(),
      });
      const want = await firstPartition(c, 'late');
      await eventually(() => JSON.stringify(s.held()) === JSON.stringify(want), {
        what: "the cache to hold partition 0's objects",
        timeoutMs: minutes(1),
        diagnose: () => `held ${s.held().join(' ')}\nwant ${want.join(' ')}`,
      });
      expect(s.keys()).toEqual(gate ? ['late#0'] : ['late#whole']);
    } finally {
      await s.stop();
    }
  });
});

describe('a server that stops filtering while the cache runs', () => {
  let env: TestEnvironment | undefined;
  let c: RestClient;
  const ns = 'rollback';

  beforeAll(async () => {
    env = await TestEnvironment.start({
      crds: [SHIP_CRD],
      apiServerFlags: { 'feature-gates': 'ShardedListAndWatch=true' },
    });
    c = newClient(env.kubeConfig);
    await c.create(Namespaces, { metadata: { name: ns } });
    await createShips(
      c,
      ns,
      Array.from({ length: 30 }, (_, i) => `s${i}`),
    );
  }, minutes(2));
  afterAll(async () => {
    c?.close();
    await env?.stop();
  });

  it(
    'is noticed: the kind is cached whole from then on, the log and the gauge say so, and no change is lost',
    async () => {
      const s = await shardedCache(c, ns);
      try {
        expect(await gauge(s.ring)).toBe(1);
        expect(s.keys()).toEqual([`${ns}#0`]);
        // The gate turned off in a rollback: kube-apiserver restarted without it, on the same etcd.
        await env!.stopAPIServer();
        await env!.startAPIServer({ flags: { 'feature-gates': 'ShardedListAndWatch=false' } });
        // Changes after the rollback: new objects in and out of the partition, an update and a delete in it.
        await createShips(
          c,
          ns,
          Array.from({ length: 20 }, (_, i) => `n${i}`),
        );
        const before = await c.list(Ships, { namespace: ns });
        const mine = before.items.filter((o) => inRanges(o, 'uid', [FIRST!]));
        await c.patch(
          Ships,
          { namespace: ns, name: mine[0]!.metadata!.name! },
          { spec: { foo: '2' } },
          { type: 'merge' },
        );
        await c.delete(Ships, { namespace: ns, name: mine[1]!.metadata!.name! });
        await eventually(async () => (await gauge(s.ring)) === 0 && s.keys().every((k) => k.endsWith('#whole')), {
          what: 'the cache to notice the unfiltered server and move the kind to a whole informer',
          timeoutMs: minutes(1),
          diagnose: () => `informers: ${s.keys().join(', ')}\n${s.captured.tail()}`,
        });
        const want = await firstPartition(c, ns);
        await eventually(() => JSON.stringify(s.held()) === JSON.stringify(want), {
          what: "the cache to hold exactly partition 0's objects as the server has them",
          timeoutMs: minutes(1),
          diagnose: () => `held ${s.held().join(' ')}\nwant ${want.join(' ')}`,
        });
        expect(s.captured.lines.filter((l) => l.includes('stopped applying shardSelector'))).toHaveLength(1);
      } finally {
        await s.stop();
      }
    },
    minutes(3),
  );
});
