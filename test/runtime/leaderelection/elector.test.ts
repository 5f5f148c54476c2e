import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElector, type Lease, type LeaseClient } from '../../../src/runtime/leaderelection/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { ApiError } from '../../../src/runtime/rest/errors.js';
import type { KubeObject, ObjectKey, Resource } from '../../../src/runtime/rest/types.js';
import { eventually } from '../controller/fakes.js';

/** An API server's view of Leases: resourceVersion checks on update, as the real one does. */
class LeaseStore {
  lease: Lease | undefined;
  private rv = 0;
  failing = false;
  writes = 0;
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
      async update<T extends KubeObject>(_r: Resource<T>, obj: T): Promise<T> {
        if (self.failing) throw fail(500, 'InternalError');
        if (obj.metadata?.resourceVersion !== self.lease?.metadata?.resourceVersion) throw fail(409, 'Conflict');
        self.writes++;
        self.lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++self.rv) } };
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

function candidate(store: LeaseStore, identity: string, extra: { client?: LeaseClient; releaseOnCancel?: boolean } = {}) {
  const state = { leading: false, leadSignal: undefined as AbortSignal | undefined, stopped: false, leaders: [] as string[] };
  const elector = new LeaderElector({
    client: extra.client ?? store.client(),
    namespace: 'ns',
    name: 'lock',
    identity,
    leaseDuration: 1000,
    renewDeadline: 500,
    retryPeriod: 100,
    releaseOnCancel: extra.releaseOnCancel ?? true,
    log: quiet,
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
  const done = elector.run(ac.signal);
  return { elector, state, ac, done };
}

describe('LeaderElector', () => {
  it('creates the lease and leads when none exists', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await eventually(() => a.state.leading, 'a leads');
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(store.lease?.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(a.elector.isLeader()).toBe(true);
  });

  it('lets exactly one of two candidates lead, and hands over at once on a clean stop', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await eventually(() => a.state.leading);
    const b = candidate(store, 'b');
    await eventually(() => b.state.leaders.includes('a'), 'b observed a');
    // b keeps observing a renewing lease; it must not lead meanwhile.
    const writes = store.writes;
    await eventually(() => store.writes >= writes + 3, 'a renewed a few times');
    expect(b.state.leading).toBe(false);
    a.ac.abort();
    await a.done;
    expect(a.state.stopped).toBe(true);
    expect(a.state.leadSignal?.aborted).toBe(true);
    expect(store.lease?.spec?.holderIdentity).not.toBe('a');
    await eventually(() => b.state.leading, 'b takes over');
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('takes over an expired lease when the leader vanishes without releasing', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a', { releaseOnCancel: false });
    await eventually(() => a.state.leading);
    a.ac.abort();
    await a.done;
    expect(store.lease?.spec?.holderIdentity).toBe('a');
    const b = candidate(store, 'b');
    await eventually(() => b.state.leading, 'b takes the expired lease');
  });

  it('gives up leadership when renewals fail for the renew deadline', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await eventually(() => a.state.leading);
    store.failing = true;
    await a.done;
    expect(a.state.leadSignal?.aborted).toBe(true);
    expect(a.state.stopped).toBe(true);
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
