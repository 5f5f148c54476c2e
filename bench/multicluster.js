#!/usr/bin/env node
// One operator over a fleet of clusters, ours against multicluster-runtime's, side by side on the same three envtest
// control planes (each its own etcd and kube-apiserver, started in parallel; the first, the hub, holds the kubeconfig
// Secrets). Both peers (bench/multicluster-child.js, ours: MultiClusterManager + KubeconfigSecretProvider, the runtime
// from its build; bench/go/multicluster: multicluster-runtime v0.24.1's mcmanager + its kubeconfig provider, on
// controller-runtime v0.25.2) run one controller for ConfigMaps whose reconciler reads the object from its cluster's
// cache, each engaged cluster caching one namespace. Per run and peer:
//   - engage: a fresh process watching a fresh Secret namespace; ENGAGE Secrets (default 9: three clusters on each
//     control plane, each engagement with its own cache, informers and client) are created one after the other, each
//     once the one before has had its first reconcile. Secret → first reconcile is from this script's clock just
//     before the Secret's create to the `at` of the process's own `first` line for that cluster (both clocks are
//     this machine's). RSS per engaged idle cluster = (RSS with ENGAGE clusters − RSS with none) ÷ ENGAGE, each read by
//     the process after a GC (ours runs with --expose-gc) once its clusters are idle: every cluster's namespace holds
//     one ConfigMap (envtest runs no kube-controller-manager to add kube-root-ca.crt).
//   - throughput: a fresh process; three Secrets (one per control plane) created at once, OBJECTS ConfigMaps
//     (default 2,000) in each cluster's namespace; reconciles per second from the first reconcile to the last of the
//     3 × OBJECTS distinct objects, timed by the process's own `throughput` line.
// RUNS (default 1) runs, alternating the peers; IMPLS (default ours,multicluster-runtime).
// Usage: npm run build && node bench/multicluster.js;  RUNS=3 ENGAGE=15 OBJECTS=5000 node bench/multicluster.js
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pool } from './replica-lib.js';
import {
  childNode,
  goBinary,
  importEnvtest,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  percentile,
  printTable,
  ratio,
} from './runtime-lib.js';

const RUNS = Number(process.env.RUNS ?? 1);
const ENGAGE = Number(process.env.ENGAGE ?? 9);
const OBJECTS = Number(process.env.OBJECTS ?? 2000);
const IMPLS = (process.env.IMPLS ?? 'ours,multicluster-runtime').split(',');
const LABEL = { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' };
const BOUND_MS = 180_000;
const ours = fileURLToPath(new URL('./multicluster-child.js', import.meta.url));

console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), 'ks-multicluster-'));
if (IMPLS.includes('multicluster-runtime')) goBinary('multicluster'); // built before anything is timed
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const planes = await Promise.all([0, 1, 2].map(() => TestEnvironment.start({ startTimeout: 180_000 })));
const clients = planes.map((p) => rt.newClient(p.kubeConfig));
const hub = clients[0];
const kubeconfig = join(dir, 'hub.kubeconfig');
writeFileSync(kubeconfig, planes[0].kubeconfigYaml());
const kubeconfigs = planes.map((p) => Buffer.from(p.kubeconfigYaml()).toString('base64'));

const configMap = (namespace, name) => ({ metadata: { namespace, name }, data: { want: name } });
await Promise.all(
  clients.map(async (c) => {
    for (const ns of ['idle', 'load']) await c.create(rt.Namespaces, { metadata: { name: ns } });
    await c.create(rt.ConfigMaps, configMap('idle', 'idle-0'));
    const names = Array.from({ length: OBJECTS }, (_, i) => `o${i}`);
    await pool(names, 8, (n) => c.create(rt.ConfigMaps, configMap('load', n)));
  }),
);
console.log(`3 control planes; ${OBJECTS} ConfigMaps in each one's namespace load; ${loadLine()}`);

/** One peer's process and its lines. */
class Peer {
  constructor(impl, secretNamespace, namespace, expect) {
    this.impl = impl;
    const [command, args] =
      impl === 'multicluster-runtime'
        ? [
            goBinary('multicluster'),
            ['-kubeconfig-file', kubeconfig, '-secret-namespace', secretNamespace, '-namespace', namespace],
          ]
        : [childNode(), ['--expose-gc', ours, kubeconfig, secretNamespace, namespace]];
    if (expect) args.push(...(impl === 'multicluster-runtime' ? ['-expect', String(expect)] : [String(expect)]));
    this.p = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.handlers = new Set();
    this.stderr = '';
    this.p.stderr.on('data', (d) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    this.exited = new Promise((resolve) => this.p.once('close', (code, signal) => resolve(code ?? signal)));
    createInterface({ input: this.p.stdout }).on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      for (const h of [...this.handlers]) h(msg);
    });
  }

  /** The next line for which `match` holds; rejects if the process exits first or after BOUND_MS. */
  next(match, what) {
    return new Promise((resolve, reject) => {
      const fail = (why) => {
        this.handlers.delete(h);
        clearTimeout(timer);
        reject(new Error(`${this.impl}: ${why} before ${what}\n${this.stderr}`));
      };
      const h = (msg) => {
        if (!match(msg)) return;
        this.handlers.delete(h);
        clearTimeout(timer);
        resolve(msg);
      };
      const timer = setTimeout(() => fail(`no line in ${BOUND_MS} ms`), BOUND_MS);
      this.handlers.add(h);
      void this.exited.then((code) => fail(`exited (${code})`));
    });
  }

  async rss() {
    const answer = this.next((m) => m.type === 'rss', 'an rss line');
    this.p.stdin.write('rss\n');
    return (await answer).rssBytes;
  }

  async stop() {
    this.p.stdin.end('stop\n');
    const killer = setTimeout(() => this.p.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(killer);
  }
}

const secret = (namespace, name, plane) => ({
  metadata: { namespace, name, labels: LABEL },
  data: { kubeconfig: kubeconfigs[plane] },
});

async function engageRun(impl, run) {
  const ns = `engage-${impl === 'ours' ? 'ours' : 'mcr'}-${run}`;
  await hub.create(rt.Namespaces, { metadata: { name: ns } });
  const peer = new Peer(impl, ns, 'idle');
  try {
    await peer.next((m) => m.type === 'started', 'its started line');
    const rss0 = await peer.rss();
    const latencies = [];
    for (let i = 0; i < ENGAGE; i++) {
      const name = `c${i}`;
      const first = peer.next((m) => m.type === 'first' && m.cluster === name, `the first reconcile in ${name}`);
      const t0 = Date.now();
      await hub.create(rt.Secrets, secret(ns, name, i % 3));
      latencies.push((await first).at - t0);
    }
    const rssN = await peer.rss();
    return { rss0, rssN, perCluster: (rssN - rss0) / ENGAGE, latencies };
  } finally {
    await peer.stop();
  }
}

async function throughputRun(impl, run) {
  const ns = `load-${impl === 'ours' ? 'ours' : 'mcr'}-${run}`;
  await hub.create(rt.Namespaces, { metadata: { name: ns } });
  const expect = 3 * OBJECTS;
  const peer = new Peer(impl, ns, 'load', expect);
  try {
    await peer.next((m) => m.type === 'started', 'its started line');
    const done = peer.next((m) => m.type === 'throughput', 'its throughput line');
    await Promise.all([0, 1, 2].map((i) => hub.create(rt.Secrets, secret(ns, `p${i}`, i))));
    const line = await done;
    return { perSecond: (line.reconciles / line.firstToLastMs) * 1000, ms: line.firstToLastMs };
  } finally {
    await peer.stop();
  }
}

const results = Object.fromEntries(IMPLS.map((i) => [i, { engage: [], throughput: [] }]));
try {
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? IMPLS : [...IMPLS].reverse();
    for (const impl of order) {
      const e = await engageRun(impl, run);
      results[impl].engage.push(e);
      console.log(
        `run ${run + 1} ${impl}: RSS ${mib(e.rss0)} → ${mib(e.rssN)} MiB with ${ENGAGE} clusters (${mib(e.perCluster)} MiB each); Secret → first reconcile ms: ${e.latencies.map((l) => Math.round(l)).join(' ')}`,
      );
      const t = await throughputRun(impl, run);
      results[impl].throughput.push(t);
      console.log(
        `run ${run + 1} ${impl}: ${Math.round(t.perSecond)} reconciles/s across 3 clusters (${Math.round(t.ms)} ms)`,
      );
    }
  }
} finally {
  for (const c of clients) c.close();
  await Promise.all(planes.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs) => percentile(xs, 50);
const figures = Object.fromEntries(
  IMPLS.map((impl) => {
    const r = results[impl];
    return [
      impl,
      {
        rss0: median(r.engage.map((e) => e.rss0)),
        perCluster: median(r.engage.map((e) => e.perCluster)),
        p50: median(r.engage.flatMap((e) => e.latencies)),
        max: Math.max(...r.engage.flatMap((e) => e.latencies)),
        perSecond: median(r.throughput.map((t) => t.perSecond)),
      },
    ];
  }),
);
const peer = figures['multicluster-runtime'];
console.log(`\n${RUNS} run(s), medians; ${loadLine()}`);
printTable(
  [
    'peer',
    'RSS, no cluster MiB',
    'RSS per idle cluster MiB',
    'Secret → 1st reconcile p50 ms',
    'max ms',
    'reconciles/s, 3 clusters',
  ],
  IMPLS.map((impl) => {
    const f = figures[impl];
    return [impl, mib(f.rss0), mib(f.perCluster), Math.round(f.p50), Math.round(f.max), Math.round(f.perSecond)];
  }),
);
if (peer && figures.ours) {
  const o = figures.ours;
  console.log(
    `ours ÷ multicluster-runtime: RSS per cluster ${ratio(o.perCluster, peer.perCluster)}, Secret → first reconcile ${ratio(o.p50, peer.p50)}, throughput ${ratio(o.perSecond, peer.perSecond)}`,
  );
}
