#!/usr/bin/env node
// What one cached object costs, ours against a client-go informer's: for each case below, OBJECTS (default 10,000)
// objects are created in a namespace of their own on one control plane (envtest), then each peer, alone in its
// process and one after the other, caches them with one informer:
//   ours       bench/cache-object-cost-child.js: SharedIndexInformer with its default transform (what the Manager's
//              cache uses: objects as served, equal strings and managedFields field sets shared), run as deployed:
//              CHILD_NODE (the image runs Node 22) with the scaffolded Dockerfile's and manager.yaml's node flags;
//   client-go  bench/go/objectcost: a typed informer, as a client-go operator builds one (SharedInformerFactory for
//              the built-in kinds, bench/go/thing's structs for the custom kind).
// Each peer is also run on an empty namespace of the same resource; RSS per object is (RSS with the objects − RSS
// empty) ÷ objects, read from /proc/<pid>/status SETTLE_MS (default 2000) after the peer reports it has synced and
// collected garbage twice. Live heap per object (V8 heapUsed, Go HeapAlloc, both after GCs) is given beside it.
// Cases: ConfigMaps and Secrets with 256 B, 1 KiB and 8 KiB of data, Deployments (one container, ports, env,
// resources), and Things (a custom kind with a ~1 KiB spec, as `create api` makes one). CASES picks some, e.g.
// CASES=configmap-1k,deployment.
// Usage: npm run build && CHILD_NODE=/path/to/node22 node bench/cache-object-cost.js
//        OBJECTS=2000 CASES=configmap-256 node bench/cache-object-cost.js     (a quick run)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  THING,
  childNode,
  deployedManagerResources,
  goBinary,
  importRuntime,
  machineLine,
  mib,
  printTable,
  ratio,
  startControlPlane,
  thing,
  configData as dataOf,
} from './runtime-lib.js';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 2000);
const childScript = fileURLToPath(new URL('./cache-object-cost-child.js', import.meta.url));

// Object bodies vary per index, as real ones do (names, values), so that nothing is shared by accident.
const labels = (i) => ({ 'app.kubernetes.io/name': 'bench', 'app.kubernetes.io/instance': `instance-${i % 50}` });
const configMap = (size) => (ns, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: ns, labels: labels(i) },
  data: dataOf(i, size),
});
const secret = (size) => (ns, i) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `secret-${i}`, namespace: ns, labels: labels(i) },
  type: 'Opaque',
  stringData: dataOf(i, size),
});
const deployment = (ns, i) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `deploy-${i}`, namespace: ns, labels: labels(i) },
  spec: {
    replicas: 1 + (i % 3),
    selector: { matchLabels: { app: `app-${i}` } },
    template: {
      metadata: { labels: { app: `app-${i}`, 'app.kubernetes.io/name': 'bench' } },
      spec: {
        containers: [
          {
            name: 'server',
            image: `registry.example.com/team-${i % 9}/service:v1.${i % 40}`,
            args: ['--config=/etc/app/config.yaml', `--shard=${i % 32}`],
            ports: [
              { name: 'http', containerPort: 8080 },
              { name: 'metrics', containerPort: 9090 },
            ],
            env: [
              { name: 'APP_INSTANCE', value: `instance-${i}` },
              { name: 'REGION', value: ['eu-west-1', 'us-east-1'][i % 2] },
              { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `secret-${i}`, key: 'password' } } },
            ],
            envFrom: [{ configMapRef: { name: `cm-${i}` } }],
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
            volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
          },
        ],
        volumes: [{ name: 'config', configMap: { name: `cm-${i}` } }],
      },
    },
  },
});

const ALL_CASES = {
  'configmap-256': { resource: 'configmaps', make: configMap(256), what: 'ConfigMap, 256 B of data' },
  'configmap-1k': { resource: 'configmaps', make: configMap(1024), what: 'ConfigMap, 1 KiB of data' },
  'configmap-8k': { resource: 'configmaps', make: configMap(8192), what: 'ConfigMap, 8 KiB of data' },
  'secret-256': { resource: 'secrets', make: secret(256), what: 'Secret, 256 B of data' },
  'secret-1k': { resource: 'secrets', make: secret(1024), what: 'Secret, 1 KiB of data' },
  'secret-8k': { resource: 'secrets', make: secret(8192), what: 'Secret, 8 KiB of data' },
  deployment: { resource: 'deployments', make: deployment, what: 'Deployment' },
  thing: { resource: 'things', make: (ns, i) => thing(ns, i), what: 'Thing (custom kind, ~1 KiB spec)' },
};
const CASES = process.env.CASES ? process.env.CASES.split(',').map((s) => s.trim()) : Object.keys(ALL_CASES);
for (const c of CASES) {
  if (!ALL_CASES[c]) throw new Error(`unknown case ${c}; one of ${Object.keys(ALL_CASES).join(', ')}`);
}

const statusBytes = (pid, field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs one peer over a namespace until it has synced; returns its object count, heap and RSS once settled. */
async function measure(peer, kubeconfigPath, namespace, resource, flags = nodeFlags) {
  const [cmd, args] =
    peer === 'ours'
      ? [childNode(), ['--expose-gc', ...flags, childScript, kubeconfigPath, namespace, resource]]
      : [goBinary('objectcost'), ['-kubeconfig', kubeconfigPath, '-namespace', namespace, '-resource', resource]];
  const proc = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`${peer} exited (${code}) before it synced ${namespace}`)));
  });
  const { objects, heapBytes } = JSON.parse(line);
  await sleep(SETTLE_MS);
  const rss = statusBytes(proc.pid, 'VmRSS');
  const anon = statusBytes(proc.pid, 'RssAnon');
  proc.stdin.end();
  await exited;
  return { objects, heapBytes, rss, anon };
}

const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const shipped = await deployedManagerResources();
const nodeFlags = shipped.nodeOptions;
const deployedHeapMb = Number(/--max-old-space-size=(\d+)/.exec(nodeFlags.join(' '))?.[1] ?? 96);
const RAISED_HEAP_MB = 384;
console.log(machineLine());
console.log(`ours runs on ${childNode()} with ${nodeFlags.join(' ')}; ${OBJECTS} objects per case`);

const plane = await startControlPlane();
const client = rt.newClient(rt.loadKubeConfig({ kubeconfig: plane.kubeconfigPath }));
const resources = {
  configmaps: rt.ConfigMaps,
  secrets: rt.Secrets,
  deployments: rt.Deployments,
  things: rt.defineResource(THING),
};
const rows = [];
try {
  const empty = {};
  for (const [n, c] of CASES.map((k) => [k, ALL_CASES[k]])) {
    const res = resources[c.resource];
    if (!empty[c.resource]) {
      const ns = `empty-${c.resource}`;
      await client.create(rt.Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      empty[c.resource] = {
        ours: await measure('ours', plane.kubeconfigPath, ns, c.resource),
        go: await measure('go', plane.kubeconfigPath, ns, c.resource),
      };
      const e = empty[c.resource];
      console.log(`${c.resource}, empty namespace: RSS ours ${mib(e.ours.rss)} MiB, client-go ${mib(e.go.rss)} MiB`);
    }
    const ns = `cost-${n}`;
    await client.create(rt.Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    let next = 0;
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        while (next < OBJECTS) await client.create(res, c.make(ns, next++));
      }),
    );
    // The objects' JSON as served (managedFields included), from one page of the list.
    const page = await client.list(res, { namespace: ns, limit: 100 });
    const jsonBytes = page.items.reduce((a, o) => a + Buffer.byteLength(JSON.stringify(o)), 0) / page.items.length;
    // Objects whose JSON comes near the manifest's heap do not fit in it (the manager would stop with the heap
    // guard's line): for those, ours runs with a larger heap, as the memory guide tells users to give it.
    const raised = (jsonBytes * OBJECTS) / 1048576 > 0.4 * deployedHeapMb;
    const flags = raised
      ? [...nodeFlags.filter((f) => !f.startsWith('--max-old-space-size')), `--max-old-space-size=${RAISED_HEAP_MB}`]
      : nodeFlags;
    const ours = await measure('ours', plane.kubeconfigPath, ns, c.resource, flags);
    const go = await measure('go', plane.kubeconfigPath, ns, c.resource);
    for (const [peer, m] of [
      ['ours', ours],
      ['go', go],
    ]) {
      if (m.objects !== OBJECTS) throw new Error(`${peer} cached ${m.objects} of ${OBJECTS} objects in ${ns}`);
    }
    const per = (m, e, key) => (m[key] - e[key]) / OBJECTS;
    const o = { rss: per(ours, empty[c.resource].ours, 'rss'), heap: per(ours, empty[c.resource].ours, 'heapBytes') };
    const g = { rss: per(go, empty[c.resource].go, 'rss'), heap: per(go, empty[c.resource].go, 'heapBytes') };
    rows.push([
      raised ? `${c.what} (heap ${RAISED_HEAP_MB} MiB)` : c.what,
      jsonBytes.toFixed(0),
      o.rss.toFixed(0),
      g.rss.toFixed(0),
      ratio(o.rss, g.rss),
      o.heap.toFixed(0),
      g.heap.toFixed(0),
    ]);
    console.log(
      `${n}: JSON ${jsonBytes.toFixed(0)} B; RSS/object ours ${o.rss.toFixed(0)} B, client-go ${g.rss.toFixed(0)} B; ` +
        `heap/object ours ${o.heap.toFixed(0)} B, client-go ${g.heap.toFixed(0)} B`,
    );
    await client.delete(rt.Namespaces, { name: ns });
  }
} finally {
  client.close();
  await plane.stop();
}
console.log(
  '\nBytes per cached object at %d objects (RSS and live heap, each minus the same peer on an empty namespace)',
  OBJECTS,
);
printTable(['object', 'JSON B', 'ours RSS B', 'client-go RSS B', 'RSS ratio', 'ours heap B', 'client-go heap B'], rows);
