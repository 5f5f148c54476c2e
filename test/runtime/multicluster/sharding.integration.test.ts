// Clusters as the unit of a shard ring, on one real API server: two replicas with the same clusters engage each
// only the clusters of its partitions; a replica cut off from the ring's Leases stops writing to its clusters before
// the other takes them over (fencing), and the other reconciles them then.
import { describe, expect, it } from 'vitest';
import { Manager, isShardTermEnded } from '../../../src/runtime/index.js';
import { assignPartitions } from '../../../src/runtime/manager/index.js';
import {
  MultiClusterManager,
  StaticProvider,
  newMultiClusterControllerManagedBy,
  type ClusterRequest,
} from '../../../src/runtime/multicluster/index.js';
import { clusterPartition } from '../../../src/runtime/multicluster/sharding.js';
import { ConfigMaps } from '../../../src/runtime/rest/index.js';
import { isNotFound } from '../../../src/runtime/rest/index.js';
import { TcpProxy } from '../cache/tcp-proxy.js';
import { useControlPlane } from '../../support/control-plane.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const plane = useControlPlane();
const namespace = plane.namespace;

const PARTITIONS = 2;
const timings = { leaseDuration: 4_000, renewDeadline: 3_000, retryPeriod: 500 };

/** The first cluster names `prefix-0`, `prefix-1`, ... that fall in each partition. */
function namesByPartition(prefix: string): string[] {
  const out: string[] = [];
  for (let i = 0; out.filter(Boolean).length < PARTITIONS; i++) {
    const name = `${prefix}-${i}`;
    const p = clusterPartition(name, PARTITIONS);
    out[p] ??= name;
  }
  return out;
}

interface Replica {
  mgr: MultiClusterManager;
  logs: ReturnType<typeof captureLog>;
  stop(): Promise<void>;
}

/** A replica of the ring with every cluster (each a namespace of the API server), reconciling with `reconcile`. */
function replica(
  identity: string,
  ringNamespace: string,
  clusters: Record<string, string>,
  reconcile: (req: ClusterRequest, mgr: MultiClusterManager) => Promise<void>,
  hostServer = plane.env.server,
): Replica {
  const logs = captureLog(identity);
  const provider = new StaticProvider();
  for (const [name, ns] of Object.entries(clusters))
    provider.set(name, plane.env.kubeConfig, { cache: { defaultNamespaces: [ns] } });
  const mgr = new MultiClusterManager(
    new Manager({
      kubeConfig: { ...plane.env.kubeConfig, server: hostServer },
      log: logs.log,
      gracefulShutdownTimeout: 5_000,
    }),
    {
      provider,
      health: { interval: 0 },
      sharding: { ring: 'fleet', partitions: PARTITIONS, namespace: ringNamespace, identity, ...timings },
    },
  );
  newMultiClusterControllerManagedBy(mgr)
    .for(ConfigMaps)
    .named('sharded')
    .complete({ reconcile: (req) => reconcile(req, mgr) });
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  return {
    mgr,
    logs,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

describe('a cluster ring', () => {
  it('engages each cluster on the one replica holding its partition', async () => {
    const ring = await namespace('ring');
    const names = namesByPartition('spread');
    const clusters: Record<string, string> = {};
    for (const name of names) {
      clusters[name] = await namespace(name);
      await plane.api.create(ConfigMaps, { metadata: { namespace: clusters[name], name: 'cm' } });
    }
    const reconciledBy = new Map<string, Set<string>>();
    const record = (who: string) => async (req: ClusterRequest) => {
      if (req.name !== 'cm') return;
      const set = reconciledBy.get(req.cluster) ?? new Set<string>();
      set.add(who);
      reconciledBy.set(req.cluster, set);
    };
    const a = replica('replica-a', ring, clusters, record('replica-a'));
    const b = replica('replica-b', ring, clusters, record('replica-b'));
    const owner = assignPartitions(['replica-a', 'replica-b'], PARTITIONS);
    try {
      await eventually(() => names.every((n) => reconciledBy.has(n)), {
        what: 'every cluster reconciled',
        diagnose: () => `${a.logs.tail(30)}\n${b.logs.tail(30)}`,
      });
      // Each cluster by the replica whose partition it is in, and by no other.
      for (const name of names)
        expect([...reconciledBy.get(name)!]).toEqual([owner[clusterPartition(name, PARTITIONS)]]);
      const engagedOn = (r: Replica) => r.mgr.clusterNames();
      expect([...engagedOn(a), ...engagedOn(b)].sort()).toEqual([...names].sort());
      expect(engagedOn(a)).toEqual(names.filter((n) => owner[clusterPartition(n, PARTITIONS)] === 'replica-a'));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('fences a replica cut off from the ring: its writes to a cluster stop before the other replica takes the cluster over', async () => {
    const ring = await namespace('fence');
    const names = namesByPartition('fenced');
    const clusters: Record<string, string> = {};
    for (const name of names) clusters[name] = await namespace(name);
    // Replica a reaches the ring's Leases through a relay the test cuts; its clusters it reaches directly.
    const url = new URL(plane.env.server);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port) });
    const port = await proxy.start();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding = false;
    let refused: unknown;
    const write = async (mgr: MultiClusterManager, req: ClusterRequest, who: string) => {
      const client = mgr.getCluster(req.cluster).getClient();
      const name = `written-by-${who}`;
      try {
        await client.get(ConfigMaps, { namespace: clusters[req.cluster]!, name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await client.create(ConfigMaps, { metadata: { namespace: clusters[req.cluster]!, name } });
      }
    };
    const owner = assignPartitions(['replica-a', 'replica-b'], PARTITIONS);
    // A cluster of replica a's partitions, where its reconcile waits until the test lets it go.
    const target = names.find((n) => owner[clusterPartition(n, PARTITIONS)] === 'replica-a')!;
    const a = replica(
      'replica-a',
      ring,
      clusters,
      async (req, mgr) => {
        if (req.cluster !== target || req.name !== 'trigger') return;
        holding = true;
        await released;
        try {
          await write(mgr, req, 'a');
        } catch (err) {
          refused = err;
        }
      },
      `https://127.0.0.1:${port}`,
    );
    const b = replica('replica-b', ring, clusters, async (req, mgr) => {
      if (req.cluster === target && req.name === 'trigger') await write(mgr, req, 'b');
    });
    const exists = async (name: string) => {
      try {
        await plane.api.get(ConfigMaps, { namespace: clusters[target]!, name });
        return true;
      } catch {
        return false;
      }
    };
    try {
      await eventually(() => a.mgr.clusterNames().includes(target), {
        what: `a engaging ${target}`,
        diagnose: () => a.logs.tail(),
      });
      await plane.api.create(ConfigMaps, { metadata: { namespace: clusters[target]!, name: 'trigger' } });
      await eventually(() => holding, { what: 'a reconciling the trigger', diagnose: () => a.logs.tail() });
      proxy.cut();
      await eventually(() => a.logs.lines.some((l) => l.includes('term ended')), {
        what: "a's term ending",
        timeoutMs: 30_000,
        diagnose: () => a.logs.tail(),
      });
      release();
      await eventually(() => refused !== undefined, { what: "a's write refused", diagnose: () => a.logs.tail() });
      expect(isShardTermEnded(refused)).toBe(true);
      // b takes the cluster over once a's Lease has expired, and reconciles it.
      await eventually(() => exists('written-by-b'), {
        what: 'b writing to the cluster',
        timeoutMs: 30_000,
        diagnose: () => b.logs.tail(),
      });
      expect(await exists('written-by-a')).toBe(false);
      expect(b.mgr.clusterNames()).toContain(target);
    } finally {
      release();
      await Promise.all([a.stop(), b.stop()]);
      await proxy.stop();
    }
  });
});
