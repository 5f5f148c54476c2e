import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElector, type Lease, type LeaseClient } from '../../../src/runtime/leaderelection/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { isLeaderElectionLost } from '../../../src/runtime/errors.js';
import { ApiError } from '../../../src/runtime/rest/errors.js';
import type { KubeObject, ObjectKey, Resource } from '../../../src/runtime/rest/types.js';
import { FakeClock } from '../../support/clock.js';

/** An API server's view of Leases: resourceVersion checks on update, as the real one does. */
class LeaseStore {
  lease: Lease | undefined;
  private rv = 0;
  failing = false;
  writes = 0;
  /** When set, the next update is applied and then never answered until its caller gives up (aborts). */
  applyThenHang = false;
  client(): LeaseClient {
    const fail = (code: number, reason: string) => new ApiError({ kind: 'Status', code, reason, message: reason });
    const self = this as LeaseStore;
    return {
      async get<T extends KubeObject>(_r: Resource<T>, _k: ObjectKey): Promise<T> {
        if (self.failing) throw fail(500, 'InternalError');
        if (!self.lease) throw fail(404, 'NotFound');
        return structuredClone(self.lease) as T;
      },
      async create<T extends KubeObject>(_r: Resource<T>, obj: T): Promise<T> {
        if (self.failing) throw fail(500, 'InternalError');
        if (self.lease) throw fail(409, 'AlreadyExists');
        self.writes++;
        self.lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++self.rv) } };
        return structuredClone(self.lease) as T;
      },
      async update<T extends KubeObject>(_r: Resource<T>, obj: T, opts?: { signal?: AbortSignal }): Promise<T> {
        if (self.failing) throw fail(500, 'InternalError');
        if (obj.metadata?.resourceVersion !== self.lease?.metadata?.resourceVersion) throw fail(409, 'Conflict');
        self.writes++;
        self.lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++self.rv) } };
        if (self.applyThenHang) {
          self.applyThenHang = false;
          const signal = opts?.signal;
          await new Promise((_resolve, reject) => {
            if (signal?.aborted) reject(signal.reason);
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        }
        return structuredClone(self.lease) as T;
      },
    };
  }
}

const quiet = newLogger({ sink: () => {} });
const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

// controller-runtime's timings; the fake clock makes them cost nothing.
const LEASE = 15_000;
const RENEW_DEADLINE = 10_000;
const RETRY = 2_000;

function candidate(store: LeaseStore, clock: FakeClock, identity: string, extra: { releaseOnCancel?: boolean } = {}) {
  const state = {
    leading: false,
    leadSignal: undefined as AbortSignal | undefined,
    stopped: false,
    leaders: [] as string[],
  };
  const elector = new LeaderElector({
    client: store.client(),
    namespace: 'ns',
    name: 'lock',
    identity,
    leaseDuration: LEASE,
    renewDeadline: RENEW_DEADLINE,
    retryPeriod: RETRY,
    releaseOnCancel: extra.releaseOnCancel ?? true,
    log: quiet,
    clock,
    onStartedLeading: (s) => {
      state.leading = true;
      state.leadSignal = s;
    },
    onStoppedLeading: () => {
      state.stopped = true;
    },
    onNewLeader: (id) => state.leaders.push(id),
  });
  const ac = new AbortController();
  stops.push(ac);
  let finished = false;
  const done = elector.run(ac.signal).finally(() => (finished = true));
  return { elector, state, ac, done, finished: () => finished };
}

describe('LeaderElector', () => {
  it('creates the lease and leads when none exists', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(store.lease?.spec?.renewTime).toBe('2026-01-01T00:00:00.000000Z');
    expect(a.elector.isLeader()).toBe(true);
  });

  it('lets exactly one of two candidates lead, renews every retry period, and hands over at once on a clean stop', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    const b = candidate(store, clock, 'b');
    await clock.advanceUntil(() => b.state.leaders.includes('a'), 'b observing a');
    // A whole lease duration later, a has kept renewing and b has not led.
    const writes = store.writes;
    await clock.advance(LEASE + RETRY);
    expect(store.writes - writes).toBeGreaterThanOrEqual(LEASE / RETRY);
    expect(b.state.leading).toBe(false);
    a.ac.abort();
    await a.done;
    expect(a.state.stopped).toBe(true);
    expect(a.state.leadSignal?.aborted).toBe(true);
    expect(store.lease?.spec?.holderIdentity).toBe('');
    // Released: b takes over at its next try, well before the old lease would have expired.
    const took = await clock.advanceUntil(() => b.state.leading, 'b leading');
    expect(took).toBeLessThanOrEqual(RETRY * 2.2);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('releases the lease on a stop that came while a renewal was in flight, which the server applied', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    // The next renewal reaches the server, whose answer is still on its way when the stop comes.
    store.applyThenHang = true;
    const writes = store.writes;
    await clock.advanceUntil(() => store.writes > writes, 'a renewal applied');
    a.ac.abort();
    await a.done;
    // a's copy of the Lease is a version behind: it reads it again and releases, rather than failing on a conflict.
    expect(store.lease?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });

  it('takes over a lease whose holder vanished without releasing it only once the lease expires', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a', { releaseOnCancel: false });
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    a.ac.abort();
    await a.done;
    expect(store.lease?.spec?.holderIdentity).toBe('a');
    const b = candidate(store, clock, 'b');
    const took = await clock.advanceUntil(() => b.state.leading, 'b leading');
    // b measures the lease from when it first saw it (its own clock, as client-go): never before a full duration.
    expect(took).toBeGreaterThanOrEqual(LEASE);
    expect(took).toBeLessThanOrEqual(LEASE + RETRY * 2.2);
  });

  it('gives up leadership after renewals fail for the renew deadline, and not before', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    await clock.advance(RETRY);
    store.failing = true;
    await clock.advance(RENEW_DEADLINE - RETRY * 2);
    expect(a.finished()).toBe(false);
    expect(a.state.leadSignal?.aborted).toBe(false);
    await clock.advanceUntil(() => a.finished(), 'a giving up', { limitMs: RENEW_DEADLINE + RETRY * 2 });
    await a.done;
    expect(a.state.leadSignal?.aborted).toBe(true);
    expect(a.state.stopped).toBe(true);
  });

  it('ends its term on resume from a pause longer than the renew deadline, before reading the lease again', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    expect(() => a.elector.checkLeading()).not.toThrow();
    const writes = store.writes;
    // Paused: time passes, nothing runs. The first thing to run after resuming asks whether a still leads.
    clock.jump(RENEW_DEADLINE + 1);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.state.leadSignal?.aborted).toBe(true);
    let refused: unknown;
    try {
      a.elector.checkLeading();
    } catch (err) {
      refused = err;
    }
    expect(isLeaderElectionLost(refused)).toBe(true);
    await clock.advanceUntil(() => a.finished(), 'a stopping');
    // It did not renew or release the Lease, which another candidate may hold by now.
    expect(store.writes).toBe(writes);
    expect(a.state.stopped).toBe(true);
  });

  it('ends its term when a timer it set before a pause fires first', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    clock.jump(LEASE * 2);
    // The overdue timers (its renewal's and its watchdog's) fire in one go, as Node fires them after SIGCONT.
    await clock.advance(0);
    expect(a.state.leadSignal?.aborted).toBe(true);
    expect(a.elector.isLeader()).toBe(false);
  });

  it('ends its term at once when it sees another holder, without waiting for the renew deadline', async () => {
    const store = new LeaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, 'a');
    await clock.advanceUntil(() => a.state.leading, 'a leading');
    // Another candidate took the Lease (a's renewals were lost, say): a learns of it on its next renewal.
    store.lease = {
      ...store.lease!,
      spec: { ...store.lease!.spec, holderIdentity: 'b' },
      metadata: { ...store.lease!.metadata, resourceVersion: '999' },
    };
    const took = await clock.advanceUntil(() => a.state.leadSignal?.aborted === true, 'a stepping down', {
      limitMs: RETRY * 2,
    });
    expect(took).toBeLessThanOrEqual(RETRY);
    expect(a.elector.isLeader()).toBe(false);
    await clock.advanceUntil(() => a.finished(), 'a stopping');
    expect(store.lease?.spec?.holderIdentity).toBe('b');
  });

  it('fences nothing before it leads', () => {
    const store = new LeaseStore();
    const b = new LeaderElector({
      client: store.client(),
      namespace: 'n',
      name: 'l',
      onStartedLeading: () => {},
      onStoppedLeading: () => {},
    });
    expect(() => b.checkLeading()).not.toThrow();
    expect(b.isLeader()).toBe(false);
  });

  it('rejects inconsistent durations', () => {
    expect(
      () =>
        new LeaderElector({
          client: new LeaseStore().client(),
          namespace: 'n',
          name: 'l',
          leaseDuration: 1000,
          renewDeadline: 2000,
          onStartedLeading: () => {},
          onStoppedLeading: () => {},
        }),
    ).toThrow(/leaseDuration must be greater/);
  });
});
