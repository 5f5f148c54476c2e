// The multi-cluster manager on one real API server whose namespaces stand in for clusters: each "cluster" is a
// Cluster of its own (its own client, cache and informers) confined to one namespace, so what one reconciles the
// others cannot see. Real control planes, several of them, are test/runtime/multicluster/fleet.integration.test.ts's.
import { describe, expect, it } from 'vitest';
import { Manager, isNotFound, type k8s, type Reconciler, type Request } from '../../../src/runtime/index.js';
import { registry } from '../../../src/runtime/metrics/index.js';
import {
  MultiClusterManager,
  StaticProvider,
  isClusterNotFound,
  newMultiClusterControllerManagedBy,
  perCluster,
  type ClusterRequest,
} from '../../../src/runtime/multicluster/index.js';
import { enqueueRequestsFromMapFunc } from '../../../src/runtime/controller/index.js';
import { ConfigMaps } from '../../../src/runtime/rest/index.js';
import type { Client } from '../../../src/runtime/client/index.js';
import { setControllerReference } from '../../../src/runtime/client/index.js';
import { useControlPlane } from '../../support/control-plane.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const plane = useControlPlane();
const namespace = plane.namespace;

/** Options of a cluster that caches only one namespace of the shared API server: a cluster of its own, for a test. */
function onlyNamespace(ns: string) {
  return { cache: { defaultNamespaces: [ns] } };
}

function manager(label: string, provider?: StaticProvider) {
  const logs = captureLog(label);
  const local = new Manager({
    kubeConfig: plane.env.kubeConfig,
    log: logs.log,
    metrics: { bindAddress: '0' },
    healthProbe: { bindAddress: '0' },
    gracefulShutdownTimeout: 5_000,
  });
  const mgr = new MultiClusterManager(local, {
    ...(provider ? { provider } : {}),
    health: { interval: 0 },
  });
  const ac = new AbortController();
  let done: Promise<void> | undefined;
  return {
    mgr,
    logs,
    start: () => (done = mgr.start(ac.signal)),
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

describe('a multi-cluster manager', () => {
  it('without a provider, reconciles in its own cluster, named ""', async () => {
    const ns = await namespace('local');
    await plane.api.create(ConfigMaps, { metadata: { namespace: ns, name: 'a' } });
    const m = manager('local');
    const seen: ClusterRequest[] = [];
    newMultiClusterControllerManagedBy(m.mgr)
      .for(ConfigMaps)
      .named('local-only')
      .complete({
        async reconcile(req) {
          if (req.namespace === ns) seen.push(req);
        },
      });
    m.start();
    try {
      await eventually(() => seen.length > 0, {
        what: 'a reconcile in the local cluster',
        diagnose: () => m.logs.tail(),
      });
      expect(seen[0]).toEqual({ cluster: '', namespace: ns, name: 'a' });
      expect(m.mgr.getCluster('')).toBe(m.mgr.getCluster(''));
      expect(m.mgr.clusterNames()).toEqual([]);
    } finally {
      await m.stop();
    }
  });

  it("reconciles each provider cluster's objects with that cluster's name, client, logs and metrics", async () => {
    const [east, west] = [await namespace('east'), await namespace('west')];
    await plane.api.create(ConfigMaps, { metadata: { namespace: east, name: 'e1' } });
    await plane.api.create(ConfigMaps, { metadata: { namespace: west, name: 'w1' } });
    const provider = new StaticProvider();
    provider.set('east', plane.env.kubeConfig, onlyNamespace(east));
    provider.set('west', plane.env.kubeConfig, onlyNamespace(west));
    const m = manager('fleet', provider);
    const home: Record<string, string> = { east, west };
    const seen: ClusterRequest[] = [];
    newMultiClusterControllerManagedBy(m.mgr)
      .for(ConfigMaps)
      .named('fleet-configmaps')
      .complete({
        async reconcile(req, ctx) {
          // Each cluster sees its own namespace only.
          expect(req.namespace).toBe(home[req.cluster]);
          // The request's cluster's client reads that cluster's cache.
          const cm = await m.mgr.getCluster(req.cluster).getClient().get(ConfigMaps, req);
          seen.push(req);
          ctx.log.info('reconciled in a cluster', { object: cm.metadata?.name });
        },
      });
    m.start();
    try {
      await eventually(() => seen.length >= 2, { what: 'a reconcile in each cluster', diagnose: () => m.logs.tail() });
      expect(seen.map((r) => `${r.cluster}:${r.name}`).sort()).toEqual(['east:e1', 'west:w1']);
      expect(m.mgr.clusterNames()).toEqual(['east', 'west']);
      await eventually(() => m.mgr.clusterState('east') === 'engaged', 'east engaged');
      // Log lines carry the cluster; metrics are labelled with it.
      const lines = m.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const reconciled = lines.filter((l) => l.msg === 'reconciled in a cluster');
      expect(reconciled.map((l) => l.cluster).sort()).toEqual(['east', 'west']);
      expect(reconciled[0]).toMatchObject({ controller: 'fleet-configmaps' });
      const text = await registry.metrics();
      expect(text).toMatch(
        /controller_runtime_reconcile_total\{controller="fleet-configmaps",result="success",cluster="east"\} [1-9]/,
      );
      expect(text).toMatch(
        /workqueue_adds_total\{name="fleet-configmaps",controller="fleet-configmaps",cluster="west"\} [1-9]/,
      );
      expect(text).toContain('multicluster_cluster_engaged{cluster="east",state="engaged"} 1');
    } finally {
      await m.stop();
    }
    // Disengaged at stop: the cluster's series are gone.
    const after = await registry.metrics();
    expect(after).not.toContain('cluster="east"');
  });

  it('gives each cluster a reconciler of its own with perCluster, and owns() requeues the owner in its cluster', async () => {
    const ns = await namespace('owned');
    await plane.api.create(ConfigMaps, { metadata: { namespace: ns, name: 'owner' } });
    const provider = new StaticProvider({
      clusters: { north: plane.env.kubeConfig },
      clusterOptions: { cache: { defaultNamespaces: [ns] } },
    });
    const m = manager('owned', provider);
    const made: string[] = [];
    const owners: string[] = [];
    class CopyReconciler implements Reconciler {
      constructor(private readonly client: Client) {}
      async reconcile(req: Request): Promise<void> {
        if (req.name !== 'owner') return;
        owners.push(req.name);
        const owner = await this.client.get(ConfigMaps, req);
        const copy = { metadata: { namespace: ns, name: 'owner-copy' } };
        setControllerReference(owner, copy);
        try {
          await this.client.get(ConfigMaps, { namespace: ns, name: 'owner-copy' });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          await this.client.create(ConfigMaps, copy);
        }
      }
    }
    newMultiClusterControllerManagedBy(m.mgr)
      .for(ConfigMaps)
      .owns(ConfigMaps)
      .named('owner-copies')
      .complete(
        perCluster((cluster) => {
          made.push(cluster.name);
          return new CopyReconciler(cluster.getClient());
        }),
      );
    m.start();
    try {
      await eventually(async () => {
        try {
          await plane.api.get(ConfigMaps, { namespace: ns, name: 'owner-copy' });
          return true;
        } catch {
          return false;
        }
      }, 'the owned copy');
      // Deleting the copy is an event of the owned kind: its owner is reconciled again, in the same cluster.
      const before = owners.length;
      await plane.api.delete(ConfigMaps, { namespace: ns, name: 'owner-copy' });
      await eventually(() => owners.length > before, {
        what: 'the owner reconciled again',
        diagnose: () => m.logs.tail(),
      });
      expect(made).toEqual(['north']);
    } finally {
      await m.stop();
    }
  });

  it('engages a cluster added at run time, disengages one removed, and fans a local object out to every cluster', async () => {
    const [hub, a, b] = [await namespace('hub'), await namespace('a'), await namespace('b')];
    await plane.api.create(ConfigMaps, { metadata: { namespace: hub, name: 'shared' }, data: { v: '1' } });
    const namespaces: Record<string, string> = { a, b };
    const providerA = new StaticProvider();
    providerA.set('a', plane.env.kubeConfig, onlyNamespace(a));
    const m = manager('fanout', providerA);
    const copied: string[] = [];
    // Reads the local cluster (the hub's ConfigMap), writes the request's cluster.
    newMultiClusterControllerManagedBy(m.mgr)
      .named('fan-out')
      .watches(
        ConfigMaps,
        () =>
          enqueueRequestsFromMapFunc<k8s.V1ConfigMap, ClusterRequest>((cm) =>
            cm.metadata?.namespace === hub
              ? m.mgr.clusterNames().map((cluster) => ({ cluster, namespace: '', name: cm.metadata?.name ?? '' }))
              : [],
          ),
        { engageWithLocalCluster: true, engageWithProviderClusters: false },
      )
      .complete({
        async reconcile(req) {
          const source = await m.mgr.getCluster('').getClient().get(ConfigMaps, { namespace: hub, name: req.name });
          const target = m.mgr.getCluster(req.cluster).getClient();
          const key = { namespace: namespaces[req.cluster]!, name: req.name };
          try {
            await target.get(ConfigMaps, key);
          } catch (err) {
            if (!isNotFound(err)) throw err;
            await target.create(ConfigMaps, { metadata: key, data: source.data ?? {} });
          }
          copied.push(req.cluster);
        },
      });
    m.start();
    try {
      await eventually(() => copied.includes('a'), { what: 'the copy in a', diagnose: () => m.logs.tail() });
      // A cluster set at run time is engaged, and the hub's objects are run through the fan-out again for it.
      providerA.set('b', plane.env.kubeConfig, onlyNamespace(b));
      await eventually(() => copied.includes('b'), { what: 'the copy in b', diagnose: () => m.logs.tail() });
      expect((await plane.api.get(ConfigMaps, { namespace: b, name: 'shared' })).data).toEqual({ v: '1' });
      expect(m.mgr.clusterNames()).toEqual(['a', 'b']);
      providerA.delete('b');
      await eventually(() => m.mgr.clusterState('b') === undefined, 'b disengaged');
      expect(() => m.mgr.getCluster('b')).toThrow(/cluster "b" is not engaged/);
      try {
        m.mgr.getCluster('b');
      } catch (err) {
        expect(isClusterNotFound(err)).toBe(true);
      }
    } finally {
      await m.stop();
    }
  });
});
