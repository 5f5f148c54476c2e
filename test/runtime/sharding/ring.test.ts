import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/runtime/leaderelection/lease.js';
import { isShardTermEnded } from '../../../src/runtime/errors.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { ApiError } from '../../../src/runtime/rest/errors.js';
import type { KubeObject, ObjectList, WatchEvent } from '../../../src/runtime/rest/types.js';
import { PARTITIONS_ANNOTATION, RING_LABEL, parsePartitions } from '../../../src/runtime/sharding/membership.js';
import { ShardRing, validateRingOptions, type RingClient } from '../../../src/runtime/sharding/ring.js';
import { FakeClock } from '../../support/clock.js';

const LEASE = { leaseDuration: 4000, renewDeadline: 3000, retryPeriod: 500 };

/** The API server's view of the ring's Leases: resourceVersions, conflicts, consistent lists, and a watch. */
class LeaseStore {
  readonly leases = new Map<string, Lease>();
  private rv = 0;
  failing = false;
  /** Called after each write by the ring, before it returns. */
  afterWrite: ((l: Lease) => void) | undefined;
  private readonly events: { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; lease: Lease }[] = [];
  private wakeWatchers: (() => void)[] = [];

  put(l: Lease): Lease {
    const type = this.leases.has(l.metadata!.name!) ? 'MODIFIED' : 'ADDED';
    const stored = { ...structuredClone(l), metadata: { ...l.metadata, resourceVersion: String(++this.rv) } };
    this.leases.set(stored.metadata.name!, stored);
    this.emit(type, stored);
    return stored;
  }

  remove(name: string): void {
    const l = this.leases.get(name);
    if (!l) return;
    this.leases.delete(name);
    this.emit('DELETED', { ...l, metadata: { ...l.metadata, resourceVersion: String(++this.rv) } });
  }

  private emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease): void {
    this.events.push({ rv: Number(lease.metadata!.resourceVersion), type, lease: structuredClone(lease) });
    for (const wake of this.wakeWatchers.splice(0)) wake();
  }

  /** Another replica's Lease announcing `partitions`. */
  other(identity: string, partitions: number[]): void {
    const existing = this.leases.get(identity);
    this.put({
      metadata: {
        ...(existing?.metadata ?? {}),
        name: identity,
        labels: { [RING_LABEL]: 'crew' },
        annotations: { [PARTITIONS_ANNOTATION]: partitions.join(',') },
      },
      spec: { holderIdentity: identity, leaseDurationSeconds: 4 },
    });
  }

  /** A client of the store; while `down()` holds, every call fails as if the process could not reach the server. */
  client(down: () => boolean = () => false): RingClient {
    const fail = (code: number, reason: string) => new ApiError({ kind: 'Status', code, reason, message: reason });
    const self = this as LeaseStore;
    const check = (): void => {
      if (self.failing || down()) throw fail(500, 'InternalError');
    };
    const write = <T extends KubeObject>(obj: T): T => {
      const stored = self.put(obj as Lease);
      self.afterWrite?.(stored);
      return structuredClone(stored) as unknown as T;
    };
    return {
      async list<T extends KubeObject>(): Promise<ObjectList<T>> {
        check();
        return {
          items: [...self.leases.values()].map((l) => structuredClone(l)) as unknown as T[],
          metadata: { resourceVersion: String(self.rv) },
        };
      },
      async create<T extends KubeObject>(_r: unknown, obj: T): Promise<T> {
        check();
        if (self.leases.has(obj.metadata!.name!)) throw fail(409, 'AlreadyExists');
        return write(obj);
      },
      async update<T extends KubeObject>(_r: unknown, obj: T): Promise<T> {
        check();
        const cur = self.leases.get(obj.metadata!.name!);
        if (!cur) throw fail(404, 'NotFound');
        if (cur.metadata?.resourceVersion !== obj.metadata?.resourceVersion) throw fail(409, 'Conflict');
        return write(obj);
      },
      async delete(_r: unknown, key: { name: string }): Promise<void> {
        check();
        self.remove(key.name);
      },
      async *watch<T extends KubeObject>(
        _r: unknown,
        opts: { resourceVersion?: string; signal?: AbortSignal },
      ): AsyncGenerator<WatchEvent<T>> {
        check();
        let next = self.events.findIndex((e) => e.rv > Number(opts.resourceVersion ?? 0));
        if (next < 0) next = self.events.length;
        while (!opts.signal?.aborted) {
          if (down()) throw fail(500, 'InternalError');
          while (next < self.events.length) {
            const e = self.events[next++]!;
            yield { type: e.type, object: structuredClone(e.lease) as unknown as T };
          }
          await new Promise<void>((resolve) => {
            // Woken by a change or by the abort, whichever comes first; the other is then removed, as a real watch's
            // listener is, so that a long-lived signal does not collect one listener per wait.
            const wake = () => {
              opts.signal?.removeEventListener('abort', wake);
              resolve();
            };
            self.wakeWatchers.push(wake);
            opts.signal?.addEventListener('abort', wake, { once: true });
          });
        }
      },
    };
  }
}

/** What the rings of this file logged (errors only). */
const logged: string[] = [];

function newRing(
  store: LeaseStore,
  clock: FakeClock,
  events: string[] = [],
  { identity = 'me', down, timings = LEASE }: { identity?: string; down?: () => boolean; timings?: typeof LEASE } = {},
) {
  const ring: ShardRing = new ShardRing({
    client: store.client(down),
    namespace: 'ns',
    ring: 'crew',
    identity,
    partitions: 12,
    ...timings,
    clock,
    // A member made unreachable logs each cycle that fails; the lines are kept here rather than printed.
    log: newLogger({ level: 'error', sink: (line) => void logged.push(line) }),
    hooks: {
      start: async (p) => {
        events.push(`start ${p}`);
        return true;
      },
      stop: async (p) => {
        events.push(`stop ${p}`);
      },
      activated: (p) => events.push(`active ${p}`),
      deactivated: (p) => events.push(`inactive ${p}`),
    },
  });
  return ring;
}

const announced = (store: LeaseStore, ring: ShardRing): number[] => [
  ...parsePartitions(store.leases.get(ring.leaseName)?.metadata?.annotations?.[PARTITIONS_ANNOTATION]),
];

describe('ShardRing', () => {
  it('alone, claims every partition once its Lease is seen, and starts each before admitting reconciles', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const events: string[] = [];
    const ring = newRing(store, clock, events);
    const stop = new AbortController();
    const run = ring.run(stop.signal);
    expect(ring.enter(0)).toBeUndefined();
    await clock.advanceUntil(() => ring.activePartitions().length === 12, 'all 12 partitions active');
    expect(announced(store, ring)).toHaveLength(12);
    expect(events.indexOf('start 0')).toBeLessThan(events.indexOf('active 0'));
    const ticket = ring.enter(5);
    expect(ticket).toEqual({ partition: 5, epoch: expect.any(Number) });
    ring.leave(ticket!);
    stop.abort();
    await run;
    // A clean stop stops every partition and deletes the Lease: the others take over at once.
    expect(events.filter((e) => e.startsWith('stop'))).toHaveLength(12);
    expect(store.leases.has(ring.leaseName)).toBe(false);
  });

  it('leaves a partition another live Lease announces until that Lease has been unchanged for its duration', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    store.other('gone', [...Array(12).keys()]);
    const ring = newRing(store, clock);
    const stop = new AbortController();
    const run = ring.run(stop.signal);
    await clock.advance(3500);
    expect(ring.activePartitions()).toEqual([]);
    const took = await clock.advanceUntil(() => ring.activePartitions().length === 12, 'the partitions taken over');
    // Not before the other Lease's 4 s, counted from when this replica first saw it.
    expect(3500 + took).toBeGreaterThanOrEqual(LEASE.leaseDuration);
    stop.abort();
    await run;
  });

  it('ends its term when it cannot renew past renewDeadline: nothing is admitted, admitted writes are refused', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const events: string[] = [];
    const ring = newRing(store, clock, events);
    const stop = new AbortController();
    const run = ring.run(stop.signal);
    await clock.advanceUntil(() => ring.activePartitions().length === 12, 'all partitions active');
    const ticket = ring.enter(3)!;
    await ring.runAdmitted(ticket, async () => ring.checkTerm());
    // A pause (SIGSTOP) past the term: the first check after it refuses, before any timer has run.
    clock.jump(LEASE.renewDeadline + 1);
    const write = ring.runAdmitted(ticket, async () => ring.checkTerm());
    await expect(write).rejects.toSatisfy(isShardTermEnded);
    expect(ring.enter(4)).toBeUndefined();
    expect(ring.activePartitions()).toEqual([]);
    // The controllers drop what is queued for every partition at once, long before the partitions stop.
    expect(events.filter((e) => e.startsWith('inactive'))).toHaveLength(12);
    // Outside an admitted reconcile nothing is fenced (other controllers, the event recorder).
    expect(() => ring.checkTerm()).not.toThrow();
    // Its partitions are stopped only once the reconcile in flight has left; then it rejoins with a new term.
    await clock.advance(1000);
    expect(events).not.toContain('stop 3');
    ring.leave(ticket);
    await clock.advanceUntil(() => ring.activePartitions().length === 12, 'the partitions back after rejoining');
    expect(events).toContain('stop 3');
    // A reconcile admitted in the old term may not write in the new one.
    await expect(ring.runAdmitted(ticket, async () => ring.checkTerm())).rejects.toSatisfy(isShardTermEnded);
    stop.abort();
    await run;
  });

  it('keeps announcing a partition it gives up until its in-flight reconciles have finished', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const events: string[] = [];
    const ring = newRing(store, clock, events);
    const stop = new AbortController();
    const run = ring.run(stop.signal);
    await clock.advanceUntil(() => ring.activePartitions().length === 12, 'all partitions active');
    const tickets = [...Array(12).keys()].map((p) => ring.enter(p)!);
    // A second replica joins: about half the partitions are now its.
    store.other('newcomer', []);
    await clock.advanceUntil(() => ring.activePartitions().length === 6, 'half the partitions closed');
    await clock.advance(2000);
    expect(announced(store, ring)).toHaveLength(12);
    expect(events.filter((e) => e.startsWith('stop'))).toEqual([]);
    // Their queues closed as soon as they did: only what is in flight still runs.
    const closed = [...Array(12).keys()].filter((p) => !ring.activePartitions().includes(p));
    expect(events.filter((e) => e.startsWith('inactive')).sort()).toEqual(closed.map((p) => `inactive ${p}`).sort());
    for (const t of tickets) ring.leave(t);
    await clock.advanceUntil(() => announced(store, ring).length === 6, 'the released partitions dropped');
    expect(announced(store, ring).sort((a, b) => a - b)).toEqual(ring.activePartitions().sort((a, b) => a - b));
    stop.abort();
    await run;
  });

  it('withdraws a claim when the read after writing it shows another live claim', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const events: string[] = [];
    const ring = newRing(store, clock, events);
    let raced = false;
    store.afterWrite = (l) => {
      // The first claim of partition 0 races with another replica's claim of it.
      if (
        !raced &&
        l.metadata?.name === ring.leaseName &&
        parsePartitions(l.metadata?.annotations?.[PARTITIONS_ANNOTATION]).has(0)
      ) {
        raced = true;
        store.other('racer', [0]);
      }
    };
    const stop = new AbortController();
    const run = ring.run(stop.signal);
    await clock.advanceUntil(() => raced && ring.activePartitions().length > 0, 'the claims settled');
    expect(ring.activePartitions()).not.toContain(0);
    expect(events).not.toContain('start 0');
    stop.abort();
    await run;
  });
});

describe('the sharding options', () => {
  it('are refused with the option named when they cannot work', () => {
    const ok = { ring: 'crew', partitions: 12, ...LEASE };
    expect(() => validateRingOptions(ok)).not.toThrow();
    expect(() => validateRingOptions({ ...ok, ring: 'Crew_1' })).toThrow(/sharding.ring "Crew_1" must be a DNS label/);
    expect(() => validateRingOptions({ ...ok, partitions: 0 })).toThrow(/sharding.partitions must be an integer/);
    expect(() => validateRingOptions({ ...ok, renewDeadline: 4000 })).toThrow(
      /sharding.leaseDuration must be greater than sharding.renewDeadline/,
    );
    expect(() => validateRingOptions({ ...ok, retryPeriod: 2900 })).toThrow(/retryPeriod\*1.2/);
  });
});

describe('a ring of several replicas', () => {
  /** Replicas on one LeaseStore and clock; kill() cuts one off from the server, as kill -9 leaves its Lease behind. */
  function crew(timings: typeof LEASE = LEASE) {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const members = new Map<string, { ring: ShardRing; stop: AbortController; run: Promise<void>; dead: boolean }>();
    const doubles: string[] = [];
    const start = (identity: string): void => {
      const m = { dead: false } as { ring: ShardRing; stop: AbortController; run: Promise<void>; dead: boolean };
      m.ring = newRing(store, clock, [], { identity, down: () => m.dead, timings });
      m.stop = new AbortController();
      m.run = m.ring.run(m.stop.signal);
      members.set(identity, m);
    };
    const announcedBy = (identity: string): Set<number> =>
      parsePartitions(
        store.leases.get(members.get(identity)!.ring.leaseName)?.metadata?.annotations?.[PARTITIONS_ANNOTATION],
      );
    /** Every partition announced by exactly one of `ids` and active there; records any partition active twice. */
    const settled = (ids: string[]): boolean => {
      const live = [...members].filter(([, m]) => !m.dead);
      for (let p = 0; p < 12; p++) {
        const active = live.filter(([, m]) => m.ring.activePartitions().includes(p)).map(([id]) => id);
        if (active.length > 1) doubles.push(`partition ${p} active on ${active.join(' and ')} at ${clock.now()} ms`);
      }
      for (let p = 0; p < 12; p++) {
        const holders = ids.filter((id) => announcedBy(id).has(p));
        if (holders.length !== 1 || !members.get(holders[0]!)!.ring.activePartitions().includes(p)) return false;
      }
      return ids.every((id) => announcedBy(id).size > 0);
    };
    const stopAll = async (): Promise<void> => {
      for (const m of members.values()) m.stop.abort();
      await clock.advance(10);
      await Promise.all([...members.values()].map((m) => m.run));
    };
    return {
      store,
      clock,
      start,
      kill: (id: string) => void (members.get(id)!.dead = true),
      settled,
      doubles,
      stopAll,
    };
  }

  it('after a kill -9 and then a join, every partition has a live owner within leaseDuration + retryPeriod of the kill', async () => {
    const c = crew();
    for (const id of ['a', 'b', 'c']) c.start(id);
    await c.clock.advanceUntil(() => c.settled(['a', 'b', 'c']), 'the partitions spread over a, b and c');
    // Let every replica renew a few times, so that the kill falls between two renewals as it would.
    await c.clock.advance(1234);
    c.kill('c');
    const killedAt = c.clock.now();
    // The newcomer joins while c's Lease is still within its duration: by its own clock alone it would count c live
    // for a full duration after it first saw that Lease.
    await c.clock.advance(LEASE.leaseDuration / 2);
    c.start('d');
    await c.clock.advanceUntil(() => c.settled(['a', 'b', 'd']), 'the partitions spread over a, b and d', {
      stepMs: 10,
    });
    expect(c.clock.now() - killedAt).toBeLessThanOrEqual(LEASE.leaseDuration + LEASE.retryPeriod);
    expect(c.doubles).toEqual([]);
    await c.stopAll();
  });

  it('starts a partition that moves because of a join on its new owner within 1 s of the join, with the default timings', async () => {
    const c = crew({ leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 });
    for (const id of ['a', 'b']) c.start(id);
    await c.clock.advanceUntil(() => c.settled(['a', 'b']), 'the partitions spread over a and b');
    await c.clock.advance(777);
    const joinedAt = c.clock.now();
    c.start('d');
    await c.clock.advanceUntil(() => c.settled(['a', 'b', 'd']), 'the partitions spread over a, b and d', {
      stepMs: 10,
    });
    expect(c.clock.now() - joinedAt).toBeLessThan(1000);
    expect(c.doubles).toEqual([]);
    await c.stopAll();
  });
});
