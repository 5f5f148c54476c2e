// The providers on one real API server: kubeconfig Secrets, Cluster API Clusters, a folder of kubeconfig files and
// namespaces as clusters. Each engages what it finds while the manager runs, replaces what changes and disengages
// what goes; the clusters they make all point back at the test's API server.
import { mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/index.js';
import {
  ClusterAPIProvider,
  KubeconfigDirectoryProvider,
  KubeconfigSecretProvider,
  MultiClusterManager,
  NamespaceProvider,
  newMultiClusterControllerManagedBy,
  type ClusterRequest,
  type Provider,
} from '../../../src/runtime/multicluster/index.js';
import {
  ConfigMaps,
  Namespaces,
  Nodes,
  Secrets,
  defineResource,
  type KubeObject,
} from '../../../src/runtime/rest/index.js';
import { useControlPlane } from '../../support/control-plane.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const CAPI_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'clusters.cluster.x-k8s.io' },
  spec: {
    group: 'cluster.x-k8s.io',
    names: { kind: 'Cluster', plural: 'clusters', singular: 'cluster', listKind: 'ClusterList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const CAPIClusters = defineResource<KubeObject & { status?: { phase?: string } }>({
  group: 'cluster.x-k8s.io',
  version: 'v1beta1',
  kind: 'Cluster',
  plural: 'clusters',
  namespaced: true,
});

const plane = useControlPlane({ crds: [CAPI_CRD] });
const namespace = plane.namespace;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** A multi-cluster manager with one ConfigMap controller whose reconciles are recorded as `cluster:namespace/name`. */
function run(label: string, provider: Provider) {
  const logs = captureLog(label);
  const mgr = new MultiClusterManager(
    new Manager({ kubeConfig: plane.env.kubeConfig, log: logs.log, gracefulShutdownTimeout: 5_000 }),
    { provider, health: { interval: 0 } },
  );
  const seen: ClusterRequest[] = [];
  newMultiClusterControllerManagedBy(mgr)
    .for(ConfigMaps)
    .named(`${label}-configmaps`)
    .complete({
      async reconcile(req) {
        seen.push(req);
      },
    });
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  return {
    mgr,
    logs,
    seen,
    reconciledIn: (cluster: string, ns: string, name: string) =>
      seen.some((r) => r.cluster === cluster && r.namespace === ns && r.name === name),
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

describe('the kubeconfig Secret provider', () => {
  it('engages a cluster per labelled Secret, refuses a kubeconfig that runs a plugin, replaces one that changes and disengages one deleted', async () => {
    const [fleet, work] = [await namespace('fleet'), await namespace('work')];
    await plane.api.create(ConfigMaps, { metadata: { namespace: work, name: 'cm' } });
    const labels = { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' };
    await plane.api.create(Secrets, {
      metadata: { namespace: fleet, name: 'east', labels },
      data: { kubeconfig: b64(plane.env.kubeconfigYaml()) },
    });
    // Unlabelled: not a cluster.
    await plane.api.create(Secrets, {
      metadata: { namespace: fleet, name: 'ignored' },
      data: { kubeconfig: b64(plane.env.kubeconfigYaml()) },
    });
    const execConfig = [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: c, cluster: { server: '${plane.env.server}' } }]`,
      'users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, "touch /tmp/pwned"], interactiveMode: Never } } }]',
      'contexts: [{ name: x, context: { cluster: c, user: u } }]',
      'current-context: x',
    ].join('\n');
    await plane.api.create(Secrets, {
      metadata: { namespace: fleet, name: 'plugin', labels },
      data: { kubeconfig: b64(execConfig) },
    });
    // Not YAML at all: refused in one line that says why once, without the parser's code frame.
    await plane.api.create(Secrets, {
      metadata: { namespace: fleet, name: 'binary', labels },
      data: { kubeconfig: Buffer.from([0, 1, 2, 0]).toString('base64') },
    });
    const m = run(
      'secrets',
      new KubeconfigSecretProvider({ namespace: fleet, clusterOptions: { cache: { defaultNamespaces: [work] } } }),
    );
    try {
      await eventually(() => m.reconciledIn('east', work, 'cm'), {
        what: 'a reconcile in east',
        diagnose: () => m.logs.tail(),
      });
      expect(m.mgr.clusterNames()).toEqual(['east']);
      const refusal = m.logs.lines.find((l) => l.includes('"secret":"plugin"'));
      expect(refusal).toContain(`in Secret ${fleet}/plugin (key kubeconfig)`);
      expect(refusal).toContain('has an exec plugin (/bin/sh), which this kubeconfig may not run');
      const binary = m.logs.lines.find((l) => l.includes('"secret":"binary"'));
      const { error } = JSON.parse(binary ?? '{}') as { error?: string };
      expect(error).toContain(`${fleet}/binary`);
      expect(error).toContain('not valid YAML');
      expect(error?.split('null byte is not allowed').length).toBe(2);
      expect(error).not.toContain('\n');

      // A Secret created at run time is engaged without a restart.
      await plane.api.create(Secrets, {
        metadata: { namespace: fleet, name: 'west', labels },
        data: { kubeconfig: b64(plane.env.kubeconfigYaml()) },
      });
      await eventually(() => m.reconciledIn('west', work, 'cm'), {
        what: 'a reconcile in west',
        diagnose: () => m.logs.tail(),
      });

      // A changed kubeconfig replaces the cluster: a new Cluster, the same name.
      const before = m.mgr.getCluster('east');
      const changed = plane.env.kubeconfigYaml().replace(/current-context: .*/, (l) => `${l}\n# rotated`);
      const east = await plane.api.get(Secrets, { namespace: fleet, name: 'east' });
      await plane.api.update(Secrets, { ...east, data: { kubeconfig: b64(changed) } });
      await eventually(
        () => m.mgr.clusterNames().includes('east') && m.mgr.getCluster('east') !== before,
        'east replaced',
      );

      await plane.api.delete(Secrets, { namespace: fleet, name: 'west' });
      await eventually(() => m.mgr.clusterState('west') === undefined, {
        what: 'west disengaged',
        diagnose: () => m.logs.tail(),
      });
      expect(m.mgr.clusterNames()).toEqual(['east']);
    } finally {
      await m.stop();
    }
  });
});

describe('the Cluster API provider', () => {
  it('engages a Provisioned Cluster with its kubeconfig Secret as namespace/name, and disengages it when it leaves the phase', async () => {
    const [capi, work] = [await namespace('capi'), await namespace('capi-work')];
    await plane.api.create(ConfigMaps, { metadata: { namespace: work, name: 'cm' } });
    const created = await plane.api.create(CAPIClusters, {
      apiVersion: CAPIClusters.apiVersion,
      kind: 'Cluster',
      metadata: { namespace: capi, name: 'prod' },
    });
    await plane.api.create(Secrets, {
      metadata: { namespace: capi, name: 'prod-kubeconfig', labels: { 'cluster.x-k8s.io/cluster-name': 'prod' } },
      type: 'cluster.x-k8s.io/secret',
      data: { value: b64(plane.env.kubeconfigYaml()) },
    });
    const m = run(
      'capi',
      new ClusterAPIProvider({ namespace: capi, clusterOptions: { cache: { defaultNamespaces: [work] } } }),
    );
    const name = `${capi}/prod`;
    try {
      // Provisioning: not yet a cluster to engage.
      await eventually(
        () => m.logs.lines.some((l) => l.includes('Watching Cluster API Clusters')),
        'the provider running',
      );
      expect(m.mgr.clusterNames()).toEqual([]);
      await plane.api.status().update(CAPIClusters, { ...created, status: { phase: 'Provisioned' } });
      await eventually(() => m.reconciledIn(name, work, 'cm'), {
        what: 'a reconcile in the workload cluster',
        diagnose: () => m.logs.tail(),
      });
      const current = await plane.api.get(CAPIClusters, { namespace: capi, name: 'prod' });
      await plane.api.status().update(CAPIClusters, { ...current, status: { phase: 'Deleting' } });
      await eventually(() => m.mgr.clusterState(name) === undefined, {
        what: 'the cluster disengaged',
        diagnose: () => m.logs.tail(),
      });
    } finally {
      await m.stop();
    }
  });
});

describe('the kubeconfig directory provider', () => {
  it('engages a cluster per file, and engages and disengages as files come and go', async () => {
    const work = await namespace('dir-work');
    await plane.api.create(ConfigMaps, { metadata: { namespace: work, name: 'cm' } });
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfigs-'));
    writeFileSync(join(dir, 'east.yaml'), plane.env.kubeconfigYaml());
    writeFileSync(join(dir, 'broken.yaml'), 'clusters: [');
    writeFileSync(join(dir, '.hidden'), plane.env.kubeconfigYaml());
    const m = run(
      'dir',
      new KubeconfigDirectoryProvider({
        directory: dir,
        pollInterval: 200,
        clusterOptions: { cache: { defaultNamespaces: [work] } },
      }),
    );
    try {
      await eventually(() => m.reconciledIn('east', work, 'cm'), {
        what: 'a reconcile in east',
        diagnose: () => m.logs.tail(),
      });
      expect(m.mgr.clusterNames()).toEqual(['east']);
      expect(m.logs.lines.filter((l) => l.includes('broken.yaml'))).toHaveLength(1);
      writeFileSync(join(dir, 'west.kubeconfig'), plane.env.kubeconfigYaml());
      await eventually(() => m.reconciledIn('west', work, 'cm'), 'a reconcile in west');
      unlinkSync(join(dir, 'east.yaml'));
      await eventually(() => m.mgr.clusterState('east') === undefined, 'east disengaged');
      expect(m.mgr.clusterNames()).toEqual(['west']);
    } finally {
      await m.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the namespace provider', () => {
  it('engages each labelled namespace as a cluster whose clients reach that namespace alone', async () => {
    const tenant = { [`tenant-${process.pid}`]: 'yes' };
    const [t1, t2] = [await namespace('t1', tenant), await namespace('t2', tenant)];
    await plane.api.create(ConfigMaps, { metadata: { namespace: t1, name: 'one' } });
    await plane.api.create(ConfigMaps, { metadata: { namespace: t2, name: 'two' } });
    const m = run('namespaces', new NamespaceProvider({ labelSelector: `tenant-${process.pid}=yes` }));
    try {
      await eventually(() => m.reconciledIn(t1, t1, 'one') && m.reconciledIn(t2, t2, 'two'), {
        what: 'a reconcile in each namespace cluster',
        diagnose: () => m.logs.tail(),
      });
      // Each cluster's cache holds its namespace alone.
      expect(m.seen.every((r) => r.cluster === r.namespace)).toBe(true);
      const client = m.mgr.getCluster(t1).getClient();
      // An object that names no namespace goes into the cluster's.
      await client.create(ConfigMaps, { metadata: { name: 'made-here' } });
      expect((await plane.api.get(ConfigMaps, { namespace: t1, name: 'made-here' })).metadata?.namespace).toBe(t1);
      await expect(client.get(ConfigMaps, { namespace: t2, name: 'two' })).rejects.toThrow(
        `cluster ${t1} is the namespace ${t1}: ConfigMap ${t2}/… is in another namespace`,
      );
      await expect(client.list(Nodes)).rejects.toThrow('Node is cluster-scoped');
      await expect(m.mgr.getCluster(t1).getAPIReader().get(ConfigMaps, { namespace: t2, name: 'two' })).rejects.toThrow(
        'is in another namespace',
      );
      // A namespace deleted disengages its cluster.
      await plane.api.delete(Namespaces, { name: t2 });
      await eventually(() => m.mgr.clusterState(t2) === undefined, 't2 disengaged');
    } finally {
      await m.stop();
    }
  });
});
