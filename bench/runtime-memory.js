#!/usr/bin/env node
// Memory and start-up time of our Manager against a controller-runtime v0.25 manager, both run as a scaffolded
// project's config/default deploys them (metrics over HTTPS with authentication and authorization and a self-signed
// certificate, health probes, leader election), one peer at a time against one control plane (envtest). Both run the
// reconciler of bench/runtime-reconcile.js (read a Thing from the cache, merge-patch its status). Our peer runs with
// the Node options the scaffolded config/manager/manager.yaml gives the container (NODE_OPTIONS, resolved for its
// memory limit the way the kubelet resolves the Downward API), so what is measured is what users deploy.
//
// 1. Start → first reconcile: a namespace holding one Thing; RUNS (default 5) starts of each peer, alternating; the
//    time from spawning the process to its first reconcile. Median and best.
// 2. Idle: a peer started on an empty namespace; IDLE_MS (default 10000) later: RSS and live heap after a GC (V8
//    heapUsed; Go HeapAlloc), and peak RSS (VmHWM) since start.
// 3. For each of SIZES (default 1000,10000): a namespace holding that many Things; a peer started with all of them
//    to reconcile (one status patch each); SETTLE_MS (default 5000) after the last patch: RSS, heap and peak RSS.
// RSS and heap over a long churn run: bench/runtime-reconcile.js (DURATION).
// Usage: npm run build && node bench/runtime-memory.js
//        CHILD_NODE=/path/to/node22 node bench/runtime-memory.js   (the scaffolded image runs Node 22)
import {
  Peer,
  THING,
  createThings,
  deployedManagerResources,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  percentile,
  printTable,
  ratio,
  startControlPlane,
} from './runtime-lib.js';

const SIZES = (process.env.SIZES ?? '1000,10000').split(',').filter((x) => x.trim() !== '' && x.trim() !== '0').map(Number);
const RUNS = Number(process.env.RUNS ?? 5);
const IDLE_MS = Number(process.env.IDLE_MS ?? 10_000);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 5_000);
const PEERS = ['ours', 'controller-runtime'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const shipped = await deployedManagerResources();
const nodeFlags = shipped.nodeOptions;
console.log(machineLine());
console.log(
  `scaffolded manager.yaml: requests ${mib(shipped.requestBytes)} MiB, limit ${mib(shipped.limitBytes)} MiB; ` +
    `our peer runs with the node flags of the scaffolded Dockerfile's ENTRYPOINT and manager.yaml's NODE_OPTIONS: ${nodeFlags.join(' ') || '(none)'}`,
);

const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);
const Things = rt.defineResource(THING);
const Namespaces = rt.Namespaces;
let nsCount = 0;

async function namespaceWith(n, prefix) {
  const ns = `mem-${prefix}-${++nsCount}`;
  await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (n > 0) await createThings(client, Things, ns, 0, n);
  return ns;
}

const spawnPeer = (name, namespace, expect) =>
  new Peer(name, { kubeconfig: cp.kubeconfigPath, namespace, token: `mem-${name}-${Date.now()}`, expect, deployed: true, nodeFlags });

async function sample(peer) {
  const h = await peer.ask('heap');
  return { heap: h.heapBytes, rss: h.rssBytes, peak: peer.peakRssBytes() };
}

try {
  // 1. Start → first reconcile.
  const startNs = await namespaceWith(1, 'start');
  const starts = { ours: [], 'controller-runtime': [] };
  for (let run = 0; run < RUNS; run++) {
    for (const name of PEERS) {
      const peer = spawnPeer(name, startNs, 0);
      const first = await peer.next('first', 120_000);
      starts[name].push(first.receivedAt - peer.spawnedAt);
      await peer.stop();
    }
  }
  console.log(`\nStart → first reconcile (process spawn to its first reconcile; ${RUNS} runs each, alternating; ${loadLine()})`);
  const med = (name) => percentile(starts[name], 50);
  printTable(
    ['peer', 'median ms', 'best ms', 'ours ÷ c-r (median)'],
    PEERS.map((name) => [name, med(name).toFixed(0), Math.min(...starts[name]).toFixed(0), name === 'ours' ? ratio(med('ours'), med('controller-runtime')) : '']),
  );

  // 2. Idle, and 3. at each size.
  const rows = [];
  const results = {};
  const idleNs = await namespaceWith(0, 'idle');
  for (const name of PEERS) {
    const peer = spawnPeer(name, idleNs, 0);
    await sleep(IDLE_MS);
    results[`idle/${name}`] = await sample(peer);
    await peer.stop();
  }
  for (const n of SIZES) {
    const ns = await namespaceWith(n, String(n));
    for (const name of PEERS) {
      const peer = spawnPeer(name, ns, n);
      await peer.next('throughput');
      await sleep(SETTLE_MS);
      results[`${n}/${name}`] = await sample(peer);
      await peer.stop();
    }
  }
  for (const phase of ['idle', ...SIZES.map(String)]) {
    const o = results[`${phase}/ours`];
    const g = results[`${phase}/controller-runtime`];
    rows.push([
      phase === 'idle' ? 'idle, no objects' : `${Number(phase).toLocaleString('en')} objects`,
      mib(o.rss),
      mib(g.rss),
      ratio(o.rss, g.rss),
      mib(o.peak),
      mib(g.peak),
      ratio(o.peak, g.peak),
      mib(o.heap),
      mib(g.heap),
    ]);
  }
  console.log(`\nMemory (MiB; RSS and heap after a GC; peak = VmHWM since start; ${loadLine()})`);
  printTable(['phase', 'RSS ours', 'RSS c-r', 'ratio', 'peak ours', 'peak c-r', 'ratio', 'heap ours', 'heap c-r'], rows);
  const idle = results['idle/ours'];
  console.log(`\nGoals: idle RSS ≤ 64 MiB: ${mib(idle.rss)} MiB (${idle.rss <= 64 * 1048576 ? 'met' : 'not met'}); ` +
    `RSS ≤ 1.5× controller-runtime at ${SIZES.join(' and ')}: ` +
    SIZES.map((n) => ratio(results[`${n}/ours`].rss, results[`${n}/controller-runtime`].rss)).join(', ') +
    `; start → first reconcile ≤ 1.5×: ${ratio(med('ours'), med('controller-runtime'))}; ` +
    `peak at ${SIZES[0] ?? '-'} objects within the manifest's limit (${mib(shipped.limitBytes)} MiB): ` +
    (SIZES.length ? `${mib(results[`${SIZES[0]}/ours`].peak)} MiB` : '-'));
} finally {
  client.close();
  await cp.stop();
}
