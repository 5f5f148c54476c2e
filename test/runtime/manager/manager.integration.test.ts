import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ConfigMaps,
  CoreEvents,
  Deployments,
  DaemonSets,
  Namespaces,
  Pods,
  ReplicaSets,
  Secrets,
  ServiceAccounts,
  Services,
  StatefulSets,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { LeaderElectionLostError, LeaseResource, microTime, runnableFunc } from '../../../src/runtime/manager/index.js';
import {
  Manager,
  defineResource,
  newControllerManagedBy,
  newClient,
  type ManagerOptions,
  type Resource,
} from '../../../src/runtime/index.js';
import { getControllerOf, isStatusConditionTrue, retryOnConflict } from '../../../src/runtime/client/index.js';
import { registry as metricsRegistry } from '../../../src/runtime/metrics/index.js';
import { recentEvents, recordHistory } from '../../support/cluster.js';
import { testCRD } from '../../support/crd.js';
import { eventually } from '../../support/eventually.js';
import { captureLog, type CapturedLog } from '../../support/logs.js';
import { APPSERVICE_CRD, AppServiceReconciler, AppServices, FINALIZER, type AppService } from './appservice.js';

let env: TestEnvironment;
let api: RestClient;

beforeAll(async () => {
  env = await TestEnvironment.start({ crds: [APPSERVICE_CRD] });
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

let nsSeq = 0;
async function namespace(): Promise<string> {
  const name = `t${process.pid}-${++nsSeq}`;
  await api.create(Namespaces, { metadata: { name } });
  return name;
}

function app(ns: string, name: string, replicas = 1): AppService {
  return {
    apiVersion: AppServices.apiVersion,
    kind: AppServices.kind,
    metadata: { namespace: ns, name },
    spec: { replicas, image: 'nginx:1' },
  };
}

/**
 * Starts a manager whose log lines are kept (for a failure's diagnostics); the returned stop() aborts it and waits
 * for start() to settle.
 */
function run(opts: Partial<ManagerOptions>, setup: (mgr: Manager) => void, label = 'manager') {
  const logs: CapturedLog = captureLog(label);
  const mgr = new Manager({ kubeConfig: env.kubeConfig, log: logs.log, ...opts });
  setup(mgr);
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  const outcome = done.then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    mgr,
    ac,
    done,
    logs,
    stop: async () => {
      ac.abort();
      return outcome;
    },
  };
}

describe('Manager on a real control plane', () => {
  it('reconciles 100 AppServices to their desired state and reports status', async () => {
    const ns = await namespace();
    let reconciler!: AppServiceReconciler;
    const m = run({}, (mgr) => {
      reconciler = new AppServiceReconciler(mgr.getClient());
      reconciler.setupWithManager(mgr);
    });
    try {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => api.create(AppServices, app(ns, `app-${i}`, (i % 3) + 1))),
      );
      // Generous: 100 reconciles, each writing a Deployment, a Service and status, take a few seconds when idle.
      await eventually(() => reconciler.reconciled.length >= 100, { what: 'reconciles started', timeoutMs: 60_000 });
      const done = async (): Promise<boolean> => {
        const list = await api.list(AppServices, { namespace: ns });
        return (
          list.items.length === 100 && list.items.every((a) => a.status?.observedGeneration === a.metadata.generation)
        );
      };
      await eventually(done, { what: 'status observed for every object', timeoutMs: 90_000 });
      const deps = await api.list(Deployments, { namespace: ns });
      const svcs = await api.list(Services, { namespace: ns });
      expect(deps.items).toHaveLength(100);
      expect(svcs.items).toHaveLength(100);
      const d7 = await api.get(Deployments, { namespace: ns, name: 'app-7' });
      expect(d7.spec?.replicas).toBe(2);
      expect(getControllerOf(d7)).toMatchObject({ kind: 'AppService', name: 'app-7', controller: true });
      const a7 = await api.get(AppServices, { namespace: ns, name: 'app-7' });
      expect(a7.metadata.finalizers).toContain(FINALIZER);
      expect(a7.status?.availableReplicas).toBe(0);
      expect(isStatusConditionTrue(a7.status?.conditions, 'Available')).toBe(false);
    } finally {
      expect(await m.stop()).toBeUndefined();
    }
  });

  it('updates owned objects when the spec changes and recreates a deleted Deployment', async () => {
    const ns = await namespace();
    const m = run({}, (mgr) => new AppServiceReconciler(mgr.getClient()).setupWithManager(mgr));
    try {
      await api.create(AppServices, app(ns, 'web'));
      const key = { namespace: ns, name: 'web' };
      await eventually(async () => (await tryGet(() => api.get(Deployments, key))) !== undefined, 'deployment created');
      await api.patch(AppServices, key, { spec: { replicas: 4, image: 'nginx:2' } }, { type: 'merge' });
      await eventually(async () => (await api.get(Deployments, key)).spec?.replicas === 4, 'deployment scaled');
      expect((await api.get(Deployments, key)).spec?.template.spec?.containers[0]?.image).toBe('nginx:2');
      const before = (await api.get(Deployments, key)).metadata?.uid;
      await api.delete(Deployments, key);
      await eventually(async () => {
        const d = await tryGet(() => api.get(Deployments, key));
        return d !== undefined && d.metadata?.uid !== before;
      }, 'deployment recreated');
    } finally {
      await m.stop();
    }
  });

  it('runs finalizer cleanup before the object goes away', async () => {
    const ns = await namespace();
    let reconciler!: AppServiceReconciler;
    const m = run({}, (mgr) => {
      reconciler = new AppServiceReconciler(mgr.getClient());
      reconciler.setupWithManager(mgr);
    });
    try {
      const key = { namespace: ns, name: 'doomed' };
      await api.create(AppServices, app(ns, 'doomed'));
      await eventually(
        async () => (await api.get(AppServices, key)).metadata.finalizers?.includes(FINALIZER) ?? false,
        'finalizer added',
      );
      await api.delete(AppServices, key);
      await eventually(async () => (await tryGet(() => api.get(AppServices, key))) === undefined, 'object gone');
      // A reconcile reading a cache that lags the finalizer removal may run cleanup once more (its patch then
      // conflicts): cleanup must be idempotent, as in controller-runtime.
      expect(reconciler.cleanedUp.length).toBeGreaterThanOrEqual(1);
      expect(new Set(reconciler.cleanedUp)).toEqual(new Set([`${ns}/doomed`]));
    } finally {
      await m.stop();
    }
  });

  it('records Events, aggregating repeats into one Event with a count', async () => {
    const ns = await namespace();
    const m = run({}, () => {});
    try {
      const recorder = m.mgr.getEventRecorderFor('appservice-controller');
      const obj = await api.create(AppServices, app(ns, 'noisy'));
      for (let i = 0; i < 3; i++) recorder.event(obj, 'Warning', 'Degraded', 'replicas unavailable');
      recorder.event(obj, 'Normal', 'Scaled', 'scaled to 1');
      const events = async () => (await api.list(CoreEvents, { namespace: ns })).items;
      await eventually(async () => {
        const evs = await events();
        return evs.length === 2 && evs.some((e) => e.reason === 'Degraded' && e.count === 3);
      }, 'events written');
      const degraded = (await events()).find((e) => e.reason === 'Degraded');
      expect(degraded).toMatchObject({
        type: 'Warning',
        message: 'replicas unavailable',
        involvedObject: { kind: 'AppService', name: 'noisy', namespace: ns, uid: obj.metadata.uid },
        source: { component: 'appservice-controller' },
      });
    } finally {
      await m.stop();
    }
  });

  it('fails to start when a watched kind cannot be listed within the cache sync timeout', async () => {
    const Missing = defineResource({
      group: 'missing.kubescaffold.io',
      version: 'v1',
      kind: 'Ghost',
      plural: 'ghosts',
      namespaced: true,
    });
    const m = run({ cache: { syncTimeout: 1500 } }, (mgr) => {
      newControllerManagedBy(mgr)
        .for(Missing)
        .complete({ reconcile: async () => ({}) });
    });
    await expect(m.done).rejects.toThrow(/waiting for caches to sync: ghosts.missing.kubescaffold.io\/v1/);
  });

  it('a cached read of a kind that cannot sync fails after the timeout instead of hanging', async () => {
    const Missing = defineResource({
      group: 'missing.kubescaffold.io',
      version: 'v1',
      kind: 'Ghost',
      plural: 'ghosts',
      namespaced: true,
    });
    const m = run({ cache: { syncTimeout: 1000 } }, () => {});
    try {
      await m.mgr.elected();
      await expect(m.mgr.getClient().get(Missing, { namespace: 'default', name: 'x' })).rejects.toThrow(
        /timed out .* to sync/,
      );
    } finally {
      await m.stop();
    }
  });

  it('in namespaced mode watches and reconciles only the listed namespaces', async () => {
    const watched = await namespace();
    const other = await namespace();
    let reconciler!: AppServiceReconciler;
    const m = run({ cache: { defaultNamespaces: [watched] } }, (mgr) => {
      reconciler = new AppServiceReconciler(mgr.getClient());
      reconciler.setupWithManager(mgr);
    });
    try {
      await api.create(AppServices, app(other, 'ignored'));
      await api.create(AppServices, app(watched, 'seen'));
      await eventually(
        async () => (await tryGet(() => api.get(Deployments, { namespace: watched, name: 'seen' }))) !== undefined,
        'watched namespace reconciled',
      );
      expect(reconciler.reconciled.every((r) => r.namespace === watched)).toBe(true);
      expect(await tryGet(() => api.get(Deployments, { namespace: other, name: 'ignored' }))).toBeUndefined();
      await expect(m.mgr.getClient().list(AppServices, { namespace: other })).rejects.toThrow(
        /not covered by the cache/,
      );
    } finally {
      await m.stop();
    }
  });

  it('releases every timer and socket it opened once start() resolves', async () => {
    const ns = await namespace();
    await api.create(AppServices, app(ns, 'tidy'));
    const count = () => {
      const r = process.getActiveResourcesInfo();
      return {
        timers: r.filter((x) => x === 'Timeout').length,
        sockets: r.filter((x) => x === 'TCPSocketWrap' || x === 'TCPServerWrap').length,
      };
    };
    const before = count();
    let reconciler!: AppServiceReconciler;
    const m = run(
      {
        leaderElection: { enabled: true, id: 'tidy', namespace: ns },
        healthProbe: { bindAddress: '127.0.0.1:0' },
        metrics: { bindAddress: '127.0.0.1:0' },
      },
      (mgr) => {
        reconciler = new AppServiceReconciler(mgr.getClient());
        reconciler.setupWithManager(mgr);
      },
    );
    await eventually(() => reconciler.reconciled.length > 0 && m.mgr.metricsAddress() !== undefined, {
      what: 'manager working',
    });
    expect(count().sockets).toBeGreaterThan(before.sockets);
    expect(await m.stop()).toBeUndefined();
    // Node lists a closed handle until libuv has freed it, a moment after the close callback (one loop turn; the
    // bound allows for a busy machine).
    await eventually(() => count().sockets <= before.sockets, { what: 'sockets released', timeoutMs: 5_000 });
    expect(count().timers).toBeLessThanOrEqual(before.timers);
  });

  it('starts ten controllers on ten kinds without a process warning (no abort listeners pile up on its signal)', async () => {
    const ns = await namespace();
    await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'seen' } });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const kinds = [
      ConfigMaps,
      Secrets,
      Services,
      Deployments,
      CoreEvents,
      ServiceAccounts,
      Pods,
      StatefulSets,
      DaemonSets,
      ReplicaSets,
    ] as readonly Resource[];
    const reconciled = new Set<string>();
    const m = run({}, (mgr) => {
      for (const kind of kinds)
        newControllerManagedBy(mgr)
          .for(kind)
          .named(`warnings-${kind.plural}`)
          .complete({
            reconcile: async (req) => {
              reconciled.add(`${kind.plural}/${req.namespace}/${req.name}`);
              return {};
            },
          });
    });
    try {
      await eventually(() => reconciled.has(`configmaps/${ns}/seen`), 'the first ConfigMap reconciled');
    } finally {
      expect(await m.stop()).toBeUndefined();
      // Node emits a warning on the tick after the listener that crossed the limit: one more turn of the loop.
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('lets two writers racing on one object both land through retryOnConflict', async () => {
    const ns = await namespace();
    const key = { namespace: ns, name: 'shared' };
    await api.create(ConfigMaps, { metadata: key, data: {} });
    const writer = (field: string) =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          retryOnConflict(
            async () => {
              const cm = await api.get(ConfigMaps, key);
              cm.data = { ...cm.data, [`${field}${i}`]: 'x' };
              await api.update(ConfigMaps, cm);
            },
            { backoff: { steps: 50, duration: 5, factor: 1, jitter: 1 } },
          ),
        ),
      );
    await Promise.all([writer('a'), writer('b')]);
    const cm = await api.get(ConfigMaps, key);
    expect(Object.keys(cm.data ?? {})).toHaveLength(20);
  });

  it('with leader election, exactly one of two managers reconciles, and a clean stop hands over', async () => {
    const ns = await namespace();
    // controller-runtime's lease and renew durations: the handover below follows the leader's release on a clean stop,
    // so long leases cost nothing here, while a 3 s renew deadline could expire on a loaded CI machine.
    const le: Partial<ManagerOptions> = {
      leaderElection: {
        enabled: true,
        id: `le-${ns}`,
        namespace: ns,
        leaseDuration: 15_000,
        renewDeadline: 10_000,
        retryPeriod: 500,
      },
    };
    const recs: AppServiceReconciler[] = [];
    const lease = recordHistory(api, LeaseResource, ns, `le-${ns}`);
    const a = run(
      le,
      (mgr) => {
        const r = new AppServiceReconciler(mgr.getClient());
        recs.push(r);
        r.setupWithManager(mgr);
      },
      'manager a',
    );
    await a.mgr.elected();
    const b = run(
      le,
      (mgr) => {
        const r = new AppServiceReconciler(mgr.getClient());
        recs.push(r);
        r.setupWithManager(mgr);
      },
      'manager b',
    );
    const [ra, rb] = recs as [AppServiceReconciler, AppServiceReconciler];
    // On a timeout: what both managers logged, how the Lease changed hands, and what the controllers reconciled.
    const diagnose = async (): Promise<string> =>
      [
        `reconciled by a: ${ra.reconciled.map((r) => r.name).join(', ') || '(none)'}; by b: ${rb.reconciled.map((r) => r.name).join(', ') || '(none)'}`,
        lease.describe(
          (l) =>
            `holder=${l.spec?.holderIdentity ?? ''} renew=${String(l.spec?.renewTime ?? '')} transitions=${l.spec?.leaseTransitions ?? 0}`,
        ),
        a.logs.tail(),
        b.logs.tail(),
        await recentEvents(api, ns),
      ].join('\n');
    try {
      for (let i = 0; i < 5; i++) await api.create(AppServices, app(ns, `le-${i}`));
      // Only this namespace counts: the managers watch every namespace, and earlier tests' objects are reconciled too.
      const ours = (r: AppServiceReconciler): Set<string> =>
        new Set(r.reconciled.filter((q) => q.namespace === ns).map((q) => q.name));
      await eventually(() => ours(ra).size === 5, { what: 'the leader to reconcile all 5 AppServices', diagnose });
      expect(rb.reconciled).toEqual([]);
      expect([a.mgr.isLeader(), b.mgr.isLeader()]).toEqual([true, false]);
      expect((await api.get(LeaseResource, { namespace: ns, name: `le-${ns}` })).spec?.holderIdentity).toBe(
        a.mgr.identity,
      );
      expect(a.mgr.identity).not.toBe(b.mgr.identity);
      let bLeads = false;
      void b.mgr.elected().then(() => (bLeads = true));
      expect(bLeads).toBe(false);
      expect(await a.stop()).toBeUndefined();
      await b.mgr.elected();
      await api.create(AppServices, app(ns, 'after-handover'));
      await eventually(() => rb.reconciled.some((r) => r.name === 'after-handover'), {
        what: 'the new leader to reconcile',
        diagnose,
      });
    } finally {
      lease.stop();
      await a.stop();
      expect(await b.stop()).toBeUndefined();
    }
  });

  it('with leader election and sharding together, every replica reconciles its partitions and leader-only runnables run on the leader alone', async () => {
    const ns = await namespace();
    const timings = { leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 500 };
    const reconciledBy = new Map<string, Set<string>>();
    const leaderWork: string[] = [];
    const replica = (identity: string) =>
      run(
        {
          leaderElection: { enabled: true, id: 'le', namespace: ns, identity, ...timings },
          sharding: { ring: 'crew', key: 'uid', namespace: ns, identity, ...timings },
        },
        (mgr) => {
          newControllerManagedBy(mgr)
            .for(ConfigMaps)
            .complete({
              reconcile: async (req) => {
                if (req.namespace !== ns) return;
                const by = reconciledBy.get(req.name) ?? new Set<string>();
                reconciledBy.set(req.name, by.add(identity));
              },
            });
          mgr.add({
            start: async (signal) => {
              leaderWork.push(identity);
              await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
            },
            needLeaderElection: () => true,
          });
        },
        `replica ${identity}`,
      );
    const a = replica('a');
    await a.mgr.elected();
    const b = replica('b');
    const diagnose = (): string =>
      [
        `partitions: a=[${a.mgr.shardPartitions().join(',')}] b=[${b.mgr.shardPartitions().join(',')}]`,
        `reconciled: ${[...reconciledBy].map(([n, by]) => `${n}:${[...by].join('+')}`).join(' ')}`,
        a.logs.tail(),
        b.logs.tail(),
      ].join('\n');
    try {
      await eventually(() => a.mgr.shardPartitions().length === 6 && b.mgr.shardPartitions().length === 6, {
        what: 'the 12 partitions shared by both replicas, the follower included',
        diagnose,
      });
      const names = Array.from({ length: 24 }, (_, i) => `cm-${i}`);
      for (const name of names) await api.create(ConfigMaps, { metadata: { namespace: ns, name } });
      await eventually(() => names.every((n) => reconciledBy.has(n)), { what: 'every ConfigMap reconciled', diagnose });
      const byReplica = (id: string): string[] => names.filter((n) => reconciledBy.get(n)!.has(id));
      expect(
        names.filter((n) => reconciledBy.get(n)!.size > 1),
        'reconciled on both replicas',
      ).toEqual([]);
      expect(byReplica('a').length).toBeGreaterThan(0);
      expect(byReplica('b').length).toBeGreaterThan(0);
      expect([a.mgr.isLeader(), b.mgr.isLeader()]).toEqual([true, false]);
      expect(leaderWork).toEqual(['a']);
      // One queue per partition, each with its own workqueue series under the controller's name.
      const text = await metricsRegistry.metrics();
      const queues = new Set(
        [...text.matchAll(/^workqueue_adds_total\{name="configmap-partition-(\d+)",controller="configmap"\}/gm)].map(
          (m) => Number(m[1]),
        ),
      );
      expect([...queues].sort((x, y) => x - y)).toEqual([...Array(12).keys()]);
      // A controller added once the partitions are open starts with their queues open.
      const lateBy = new Map<string, string>();
      for (const [m, id] of [
        [a.mgr, 'a'],
        [b.mgr, 'b'],
      ] as const) {
        newControllerManagedBy(m)
          .named('late')
          .for(Secrets)
          .complete({
            reconcile: async (req) => {
              if (req.namespace === ns) lateBy.set(req.name, id);
            },
          });
      }
      const secrets = Array.from({ length: 12 }, (_, i) => `s-${i}`);
      for (const name of secrets) await api.create(Secrets, { metadata: { namespace: ns, name } });
      await eventually(() => secrets.every((n) => lateBy.has(n)), {
        what: 'every Secret reconciled by the late controller',
        diagnose,
      });
    } finally {
      expect(await b.stop()).toBeUndefined();
      expect(await a.stop()).toBeUndefined();
    }
  });

  it('seeks the Lease while its caches list, and starts leader-elected runnables once they have synced', async () => {
    const ns = await namespace();
    // A kind whose CRD comes later: its informer cannot list until then.
    const lateCRD = testCRD({ group: 'late.kubescaffold.io', kind: 'Late', versions: [{ name: 'v1' }] });
    const Lates = defineResource({
      group: 'late.kubescaffold.io',
      version: 'v1',
      kind: 'Late',
      plural: 'lates',
      namespaced: true,
    });
    let runnableStarted = false;
    const m = run(
      {
        leaderElection: { enabled: true, id: 'early', namespace: ns, retryPeriod: 200 },
        cache: { syncTimeout: 120_000 },
      },
      (mgr) => {
        newControllerManagedBy(mgr)
          .for(Lates)
          .complete({ reconcile: async () => ({}) });
        mgr.add(runnableFunc(async () => void (runnableStarted = true)));
      },
    );
    try {
      const held = async (): Promise<boolean> => {
        const lease = await api.get(LeaseResource, { namespace: ns, name: 'early' }).catch(() => undefined);
        return lease?.spec?.holderIdentity === m.mgr.identity;
      };
      await eventually(held, 'the Lease held while the cache cannot list');
      expect(m.mgr.isLeader()).toBe(false);
      expect(runnableStarted).toBe(false);
      await env.installCRDs([lateCRD]);
      await m.mgr.elected();
      await eventually(() => runnableStarted, 'the leader-elected runnable');
      expect(m.mgr.isLeader()).toBe(true);
    } finally {
      expect(await m.stop()).toBeUndefined();
    }
  });

  it('a follower takes over a lease its holder stopped renewing without releasing it', async () => {
    const ns = await namespace();
    const le: Partial<ManagerOptions> = {
      leaderElection: {
        enabled: true,
        id: 'crash',
        namespace: ns,
        releaseOnCancel: false,
        leaseDuration: 3000,
        renewDeadline: 2000,
        retryPeriod: 500,
      },
    };
    const a = run(le, () => {});
    await a.mgr.elected();
    // Stopping without release leaves the Lease as a crashed leader would.
    expect(await a.stop()).toBeUndefined();
    const lease = await api.get(LeaseResource, { namespace: ns, name: 'crash' });
    expect(lease.spec?.holderIdentity).not.toBe('');
    const b = run(le, () => {});
    try {
      await b.mgr.elected();
      const after = await api.get(LeaseResource, { namespace: ns, name: 'crash' });
      expect(after.spec?.holderIdentity).not.toBe(lease.spec?.holderIdentity);
      expect(after.spec?.leaseTransitions).toBe((lease.spec?.leaseTransitions ?? 0) + 1);
    } finally {
      await b.stop();
    }
  });

  it('stops with LeaderElectionLostError when another holder takes the lease', async () => {
    const ns = await namespace();
    const m = run(
      {
        leaderElection: {
          enabled: true,
          id: 'stolen',
          namespace: ns,
          leaseDuration: 3000,
          renewDeadline: 2000,
          retryPeriod: 500,
        },
      },
      () => {},
    );
    await m.mgr.elected();
    await retryOnConflict(async () => {
      const lease = await api.get(LeaseResource, { namespace: ns, name: 'stolen' });
      lease.spec = {
        ...lease.spec,
        holderIdentity: 'intruder',
        leaseDurationSeconds: 60,
        renewTime: microTime(new Date()),
      };
      await api.update(LeaseResource, lease);
    });
    await expect(m.done).rejects.toBeInstanceOf(LeaderElectionLostError);
  });
});

async function tryGet<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}
