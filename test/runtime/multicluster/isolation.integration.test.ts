// Failure isolation of a multi-cluster manager, on one real API server: a cluster reached through a relay that the
// test cuts stops answering, while another goes on; a cluster without a CRD is engaged for the kinds it has; and a
// cluster disengaged leaves no informer, timer or socket behind.
import { describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import { enqueueRequestForObject } from '../../../src/runtime/controller/index.js';
import { registry } from '../../../src/runtime/metrics/index.js';
import {
  MultiClusterManager,
  StaticProvider,
  newMultiClusterControllerManagedBy,
  type ClusterRequest,
} from '../../../src/runtime/multicluster/index.js';
import {
  ClusterRoleBindings,
  ClusterRoles,
  ConfigMaps,
  defineResource,
  type KubeObject,
} from '../../../src/runtime/rest/index.js';
import { isLifecycleError } from '../../../src/runtime/errors.js';
import { TcpProxy } from '../cache/tcp-proxy.js';
import { useControlPlane } from '../../support/control-plane.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const plane = useControlPlane();
const namespace = plane.namespace;

const only = (ns: string) => ({ cache: { defaultNamespaces: [ns] } });

function start(
  label: string,
  provider: StaticProvider,
  // The relay refuses at once when cut, so a generous check timeout costs nothing and a loaded machine's slow answer
  // is not taken for silence.
  health = { interval: 200, timeout: 5_000, unreachableGracePeriod: 1_000 },
  kindRecheckInterval = 300,
) {
  const logs = captureLog(label);
  const mgr = new MultiClusterManager(
    new Manager({ kubeConfig: plane.env.kubeConfig, log: logs.log, gracefulShutdownTimeout: 2_000 }),
    { provider, health, kindRecheckInterval },
  );
  const seen: ClusterRequest[] = [];
  const ac = new AbortController();
  let done: Promise<void> | undefined;
  return {
    mgr,
    logs,
    seen,
    run: () => (done = mgr.start(ac.signal)),
    count: (cluster: string, name: string) => seen.filter((r) => r.cluster === cluster && r.name === name).length,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

describe('failure isolation', () => {
  it('a cluster that stops answering is suspended after the grace period and re-engaged when it answers, while another reconciles on', async () => {
    const [steady, flaky] = [await namespace('steady'), await namespace('flaky')];
    const url = new URL(plane.env.server);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port) });
    const port = await proxy.start();
    const provider = new StaticProvider();
    provider.set('steady', plane.env.kubeConfig, only(steady));
    provider.set('flaky', { ...plane.env.kubeConfig, server: `https://127.0.0.1:${port}` }, only(flaky));
    const m = start('isolation', provider);
    newMultiClusterControllerManagedBy(m.mgr)
      .for(ConfigMaps)
      .named('isolated')
      .complete({
        async reconcile(req) {
          m.seen.push(req);
        },
      });
    await plane.api.create(ConfigMaps, { metadata: { namespace: steady, name: 'before' } });
    await plane.api.create(ConfigMaps, { metadata: { namespace: flaky, name: 'before' } });
    m.run();
    try {
      await eventually(() => m.count('steady', 'before') > 0 && m.count('flaky', 'before') > 0, {
        what: 'both clusters reconciled',
        diagnose: () => m.logs.tail(),
      });
      proxy.cut();
      await eventually(() => m.mgr.clusterState('flaky') === 'suspended', {
        what: 'flaky suspended',
        diagnose: () => m.logs.tail(),
      });
      // Its controller stopped: its queue went with it.
      expect(
        m.logs.lines.some((l) => l.includes('"msg":"All workers finished"') && l.includes('"cluster":"flaky"')),
      ).toBe(true);
      expect(m.logs.lines.some((l) => l.includes('has not answered') && l.includes('"cluster":"steady"'))).toBe(false);
      // The healthy cluster is not held back: what changes there now is reconciled.
      for (let i = 0; i < 5; i++)
        await plane.api.create(ConfigMaps, { metadata: { namespace: steady, name: `during-${i}` } });
      await plane.api.create(ConfigMaps, { metadata: { namespace: flaky, name: 'during' } });
      await eventually(() => [0, 1, 2, 3, 4].every((i) => m.count('steady', `during-${i}`) > 0), {
        what: 'the healthy cluster reconciling during the outage',
        diagnose: () => m.logs.tail(),
      });
      expect(m.count('flaky', 'during')).toBe(0);
      proxy.restore();
      // Answering again: engaged anew, and what changed meanwhile is reconciled.
      await eventually(() => m.count('flaky', 'during') > 0, {
        what: 'flaky re-engaged and reconciling',
        diagnose: () => m.logs.tail(),
      });
      await eventually(() => m.mgr.clusterState('flaky') === 'engaged', 'flaky engaged');
      expect(m.logs.lines.some((l) => l.includes('Cluster answers again: engaging its controllers again'))).toBe(true);
      expect(await registry.metrics()).toMatch(/multicluster_engagements_total\{event="resumed"\} [1-9]/);
    } finally {
      await m.stop();
      await proxy.stop();
    }
  });

  it('a cluster that answers again retries its watches at once, and is not reported engaged until they are open', async () => {
    const ns = await namespace('returning');
    const url = new URL(plane.env.server);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port) });
    const port = await proxy.start();
    const provider = new StaticProvider();
    // The cluster's own log (its informers'), to see their failed attempts.
    const clusterLogs = captureLog('returning cluster');
    provider.set(
      'returning',
      { ...plane.env.kubeConfig, server: `https://127.0.0.1:${port}` },
      { ...only(ns), log: clusterLogs.log },
    );
    // A grace period longer than the test: the cluster is only failing, never suspended.
    const m = start('returning', provider, { interval: 200, timeout: 5_000, unreachableGracePeriod: 600_000 });
    newMultiClusterControllerManagedBy(m.mgr)
      .for(ConfigMaps)
      .named('returning')
      .complete({
        async reconcile(req) {
          m.seen.push(req);
        },
      });
    await plane.api.create(ConfigMaps, { metadata: { namespace: ns, name: 'before' } });
    m.run();
    // Every 5 ms: the state the manager reports beside the informers whose watch is down.
    const samples: { state: string | undefined; down: string[] }[] = [];
    const sampler = setInterval(() => {
      const state = m.mgr.clusterState('returning');
      if (state === undefined) return;
      samples.push({ state, down: m.mgr.getCluster('returning').getCache().watchesDown() });
    }, 5);
    try {
      await eventually(() => m.count('returning', 'before') > 0 && m.mgr.clusterState('returning') === 'engaged', {
        what: 'the cluster reconciled and engaged',
        diagnose: () => m.logs.tail(),
      });
      proxy.cut();
      const cache = m.mgr.getCluster('returning').getCache();
      await eventually(() => m.mgr.clusterState('returning') === 'unreachable' && cache.watchesDown().length > 0, {
        what: 'the cluster unreachable, its watch down',
        diagnose: () => m.logs.tail(),
      });
      // Its informer has failed again and again by now: its backoff is past the health check's interval.
      const failures = (): number =>
        clusterLogs.lines.filter((l) => /watch failed|list and watch failed/.test(l)).length;
      await eventually(() => failures() >= 3, { what: 'three failed attempts', diagnose: () => clusterLogs.tail() });
      await plane.api.create(ConfigMaps, { metadata: { namespace: ns, name: 'during' } });
      proxy.restore();
      const restoredAt = performance.now();
      await eventually(() => m.count('returning', 'during') > 0, {
        what: 'what changed during the outage reconciled',
        diagnose: () => `${m.logs.tail()}\n${clusterLogs.tail()}`,
      });
      console.log(`reconciled ${Math.round(performance.now() - restoredAt)} ms after the relay was restored`);
      await eventually(() => m.mgr.clusterState('returning') === 'engaged', 'engaged again');
      const engagedWhileDown = samples.filter((x) => x.state === 'engaged' && x.down.length > 0);
      expect(engagedWhileDown, 'reported engaged while a watch was down').toEqual([]);
      expect(samples.some((x) => x.state === 'unreachable')).toBe(true);
      expect(cache.watchesDown()).toEqual([]);
      expect(await registry.metrics()).toMatch(/multicluster_cluster_engaged\{cluster="returning",state="engaged"\} 1/);
    } finally {
      clearInterval(sampler);
      await m.stop();
      await proxy.stop();
    }
  });

  it('engages a cluster that lacks a watched CRD for the kinds it has, says which it lacks, and watches it as soon as the CRD is installed', async () => {
    // Ten minutes between discovery's rechecks: only the watch of CRDs can bring the kind within the test.
    await lacksAKind({ kindRecheckInterval: 600_000 });
  });

  it('asks about a lacking kind at the interval where the cluster does not let it watch CRDs', async () => {
    await lacksAKind({ kindRecheckInterval: 300, crdBlind: true });
  });

  it('leaves no informer, timer or socket behind a disengaged cluster', async () => {
    const ns = await namespace('tidy');
    await plane.api.create(ConfigMaps, { metadata: { namespace: ns, name: 'cm' } });
    const provider = new StaticProvider();
    const m = start('leaks', provider);
    newMultiClusterControllerManagedBy(m.mgr)
      .for(ConfigMaps)
      .named('tidy')
      .complete({
        async reconcile(req) {
          m.seen.push(req);
        },
      });
    const count = () => {
      const r = process.getActiveResourcesInfo();
      return {
        timers: r.filter((x) => x === 'Timeout').length,
        sockets: r.filter((x) => x === 'TCPSocketWrap' || x === 'TCPServerWrap').length,
      };
    };
    m.run();
    try {
      await eventually(() => m.mgr.getLocalManager().isLeader(), 'the manager running');
      const before = count();
      provider.set('passing', plane.env.kubeConfig, only(ns));
      await eventually(() => m.count('passing', 'cm') > 0, {
        what: 'the cluster reconciled',
        diagnose: () => m.logs.tail(),
      });
      const cluster = m.mgr.getCluster('passing');
      const [cache, rest] = [cluster.getCache(), cluster.getRESTClient()];
      expect(count().sockets).toBeGreaterThan(before.sockets);
      provider.delete('passing');
      await eventually(
        () => m.logs.lines.some((l) => l.includes('Disengaged cluster') && l.includes('"cluster":"passing"')),
        {
          what: 'the cluster disengaged',
          diagnose: () => m.logs.tail(),
        },
      );
      // Its cache stopped (no informer runs), its client is closed, its series are gone.
      expect(cache.started()).toBe(false);
      await expect(rest.get(ConfigMaps, { namespace: ns, name: 'cm' })).rejects.toSatisfy((err) =>
        isLifecycleError(err, 'Stopped'),
      );
      // Were it engaged again, it would run with a client and a cache of its own.
      expect(cluster.getCache()).not.toBe(cache);
      expect(await registry.metrics()).not.toContain('cluster="passing"');
      // Node lists a closed handle until libuv has freed it, a moment after the close callback.
      await eventually(() => count().sockets <= before.sockets && count().timers <= before.timers, {
        what: `sockets and timers released (before ${JSON.stringify(before)}, now ${JSON.stringify(count())})`,
        timeoutMs: 5_000,
      });
    } finally {
      await m.stop();
    }
  });
});

/**
 * A cluster without the Gadget CRD that a controller watches: engaged for ConfigMaps, saying what it lacks; then the CRD
 * is installed and the kind watched. `crdBlind`: the cluster's identity may not list CRDs (impersonating a user that
 * may read ConfigMaps and Gadgets only).
 */
async function lacksAKind(opts: { kindRecheckInterval: number; crdBlind?: boolean }): Promise<void> {
  const ns = await namespace(opts.crdBlind ? 'blind' : 'nocrd');
  await plane.api.create(ConfigMaps, { metadata: { namespace: ns, name: 'cm' } });
  const group = `g${opts.crdBlind ? 'b' : ''}${process.pid}.test.io`;
  const Gadgets = defineResource<KubeObject>({
    group,
    version: 'v1',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: true,
  });
  const provider = new StaticProvider();
  const user = `crd-blind-${process.pid}`;
  if (opts.crdBlind) {
    await plane.api.create(ClusterRoles, {
      metadata: { name: user },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [group], resources: ['gadgets'], verbs: ['get', 'list', 'watch'] },
      ],
    });
    await plane.api.create(ClusterRoleBindings, {
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
  }
  const base = plane.env.kubeConfig;
  const kubeConfig = opts.crdBlind ? { ...base, auth: { ...base.auth, impersonate: { user } } } : base;
  provider.set('bare', kubeConfig, only(ns));
  const m = start(
    'missing-kinds',
    provider,
    { interval: 0, timeout: 500, unreachableGracePeriod: 1_000 },
    opts.kindRecheckInterval,
  );
  newMultiClusterControllerManagedBy(m.mgr)
    .for(ConfigMaps)
    .watches(Gadgets, enqueueRequestForObject())
    .named('gadget-aware')
    .complete({
      async reconcile(req) {
        m.seen.push(req);
      },
    });
  m.run();
  try {
    await eventually(() => m.count('bare', 'cm') > 0, {
      what: 'the ConfigMap reconciled',
      diagnose: () => m.logs.tail(),
    });
    await eventually(() => m.mgr.clusterState('bare') === 'engaged', 'bare engaged');
    const said = m.logs.lines.find((l) => l.includes('does not serve some kinds'));
    expect(said).toContain(`"missingKinds":["Gadget.${group}/v1"]`);
    expect(said).toContain('"cluster":"bare"');
    expect(await registry.metrics()).toContain(
      `multicluster_missing_kind{cluster="bare",controller="gadget-aware",kind="Gadget.${group}/v1"} 1`,
    );
    // Where it may not watch CRDs, it says it asks at an interval instead.
    if (opts.crdBlind)
      await eventually(() => m.logs.lines.some((l) => l.includes('cannot watch CustomResourceDefinitions')), {
        what: 'the line saying it asks at an interval',
        diagnose: () => m.logs.tail(),
      });
    const installing = performance.now();
    await plane.env.installCRDs([
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `gadgets.${group}` },
        spec: {
          group,
          names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
    ]);
    await eventually(() => m.logs.lines.some((l) => l.includes('the cluster serves a kind it lacked')), {
      what: 'the kind watched once served',
      diagnose: () => m.logs.tail(),
    });
    console.log(`CRD installed to its kind watched: ${Math.round(performance.now() - installing)} ms`);
    await plane.api.create(Gadgets, {
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { namespace: ns, name: 'g1' },
    });
    await eventually(() => m.count('bare', 'g1') > 0, {
      what: 'the Gadget event reconciled',
      diagnose: () => m.logs.tail(),
    });
    expect(await registry.metrics()).not.toContain('multicluster_missing_kind{cluster="bare"');
    expect(m.logs.lines.some((l) => l.includes('cannot watch CustomResourceDefinitions'))).toBe(opts.crdBlind === true);
  } finally {
    await m.stop();
  }
}
