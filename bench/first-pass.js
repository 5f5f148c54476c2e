#!/usr/bin/env node
// The first full pass of ONE unsharded replica, ours against controller-runtime's, side by side: from the process's
// spawn until it has reconciled every object once, on one envtest control plane. OBJECTS labelled objects (default
// 25,000; a comma list such as 25000,100000 runs each size, creating only the objects each adds) in 30 namespaces,
// PAYLOAD bytes of padding each (default 512), the first of each namespace owning a Secret, of each kind in KIND
// (default configmap,crd): 'configmap' (ConfigMaps, want in data.want, padding in data.pad) and 'crd' (the operator's
// own kind: one made by `scaffold create api` with this checkout's CLI, its generated CRD installed and served first;
// want in spec.foo, padding in spec.pad, a string field added beside the scaffold's foo).
//   - ours: test/runtime/fixtures/sharded-replica.ts in 'leader' mode (leader election, as config/default runs a
//     manager), bundled, run with the Node flags the scaffolded manager.yaml (and Dockerfile ENTRYPOINT) give it, the
//     heap's --max-old-space-size raised to HEAP_MB if set;
//   - controller-runtime: bench/go/shardpeer, the same controller (leader election; the custom kind as unstructured).
// Both reconcile read-only (SHARD_READ_ONLY, shardpeer -read-only): a read of the object and of the owned Secret from
// the cache, no write. RUNS (default 3) runs of each, alternating ours and controller-runtime's, each on a Lease of its
// own. Each run is timed by the replica itself: from its spawn (this script's Date.now()) to the `at` of its
// `reconciled` line (its Date.now() once SHARD_EXPECT=OBJECTS reconciles are done); nothing asks it anything before.
// The reconcile phase, per object: from its first progress line at 1,000 reconciles or more (its caches synced, every
// object queued) to that `reconciled` line, by its own clock, divided by the reconciles in between. Per run, read from
// /proc when that line arrives: the replica's CPU seconds (utime + stime, from spawn), the
// kube-apiserver's CPU seconds since the spawn, bytes the replica read (rchar, less what it had read at its `started`
// line), and its peak RSS (VmHWM); then ours' V8 heap in use after a full GC (asked with SIGUSR2 after the line). A
// replica of ours that aborts out of heap is reported 'out of heap' for that run.
// Prints each run, then min / median / max per configuration and the ratio of the medians, ours ÷ controller-runtime.
// SEMI_MB replaces the manifest's --max-semi-space-size for ours.
// LIMIT=1 runs each replica of ours inside a memory cgroup (root; cgroup v2 or v1's memory hierarchy) of manager.yaml's
// memory limit (192 Mi), as the kubelet runs the container, and prints each run's peak there (the cgroup's, which
// counts the process's own memory but not the node binary's pages already cached by an earlier process; the kernel
// reclaims those under the limit anyway) beside its peak RSS; the script then exits 1 if a run of ours did not
// complete its first pass inside the limit (out of heap, or killed by the kernel's OOM killer). Its heap flag is the
// one Node derives from the cgroup with the manifest's percentage. `OBJECTS=100000 IMPLS=ours RUNS=1 LIMIT=1` is the
// check that 100,000 objects of each kind fit the scaffolded manifest.
// Usage: npm run build && node bench/first-pass.js;  OBJECTS=100000 KIND=crd HEAP_MB=1024 node bench/first-pass.js
//        IMPLS=ours,ours+ VS_FLAGS=--invocation-count-for-turbofan=30000 KIND=configmap RUNS=5 node bench/first-pass.js
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Replica,
  apiServerPid,
  bundleReplica,
  cpuSeconds,
  createObjects,
  ourNodeFlags,
  procStats,
  reconciledKind,
} from './replica-lib.js';
import {
  deployedManagerResources,
  goBinary,
  importCli,
  importEnvtest,
  importRuntime,
  loadLine,
  machineLine,
  percentile,
  printTable,
} from './runtime-lib.js';

const SIZES = (process.env.OBJECTS ?? '25000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const KINDS = (process.env.KIND ?? 'configmap,crd').split(',');
const RUNS = Number(process.env.RUNS ?? 3);
const PAYLOAD = Number(process.env.PAYLOAD ?? 512);
const NAMESPACES = 30;
const LEASE_MS = Number(process.env.LEASE_MS ?? 15_000);
// IMPLS=ours runs ours alone (comparing our own settings, such as SEMI_MB). 'ours+' is ours with the node flags in
// VS_FLAGS added, so that IMPLS=ours,ours+ compares a flag with what ships, run for run on the same objects.
const IMPLS = (process.env.IMPLS ?? 'ours,controller-runtime').split(',');
const VS_FLAGS = (process.env.VS_FLAGS ?? '').split(' ').filter((f) => f !== '');
const isOurs = (impl) => impl === 'ours' || impl === 'ours+';
const LIMIT = process.env.LIMIT === '1';
if (IMPLS.includes('ours+') && VS_FLAGS.length === 0) throw new Error("IMPLS has 'ours+': give its flags in VS_FLAGS");

const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), 'ks-first-pass-'));
const script = await bundleReplica(dir);
goBinary('shardpeer'); // built before anything is timed
const { manifestHeapMb, flags } = await ourNodeFlags();
const heapMb = Number(process.env.HEAP_MB ?? manifestHeapMb);
const nodeFlags = flags(heapMb);
console.log(`ours runs with ${nodeFlags.join(' ')} (manager.yaml's heap: ${manifestHeapMb} MiB)`);
const { limitBytes } = await deployedManagerResources();
const { createMemoryCgroup } = LIMIT ? await importCli('cluster/cgroup.js') : {};
if (LIMIT) console.log(`ours runs inside a memory cgroup of manager.yaml's limit, ${mib(limitBytes)} MiB`);
if (IMPLS.includes('ours+')) console.log(`ours+ runs with those and ${VS_FLAGS.join(' ')}`);
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const env = await TestEnvironment.start({ startTimeout: 180_000 });
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, env.kubeconfigYaml());
const client = rt.newClient(env.kubeConfig);
const apiPid = apiServerPid(env);

let leases = 0;

/** One run of one implementation over `objects` objects of `kind`: its figures, or { outOfHeap: true }. */
async function runOnce(impl, kind, objects) {
  const leaseNamespace = `first-pass-lease-${leases++}`;
  await client.create(rt.Namespaces, { metadata: { name: leaseNamespace } });
  const apiCpuBefore = cpuSeconds(apiPid);
  const cgroup =
    LIMIT && isOurs(impl) ? createMemoryCgroup(`ks-first-pass-${process.pid}-${leases}`, limitBytes) : undefined;
  const r = new Replica(isOurs(impl) ? 'leader' : impl, {
    identity: impl,
    leaseNamespace,
    kubeconfig,
    kind,
    leaseMs: LEASE_MS,
    readOnly: true,
    expect: objects,
    doneKey: 'shard.kubescaffold.dev/first-pass',
    script,
    nodeFlags: impl === 'ours+' ? [...nodeFlags, ...VS_FLAGS] : nodeFlags,
    wrap: cgroup?.wrap,
  });
  // Asked for before anything is awaited, so that the line cannot come unseen.
  const reconciled = r.next('reconciled');
  reconciled.catch(() => {});
  // The reconcile phase: from the first progress line at 1,000 reconciles or more (the caches synced, the queue full)
  // to the last reconcile, by the replica's own clock, per object reconciled in between.
  let firstProgress;
  const offProgress = r.onLine((msg) => {
    if (msg.type === 'progress' && msg.reconciles >= 1000 && firstProgress === undefined) firstProgress = msg;
  });
  try {
    const base = await r.started;
    const line = await reconciled;
    const now = procStats(r.p.pid);
    const figures = {
      wall: (line.at - r.spawnedAt) / 1000,
      cpu: now.cpu,
      apiCpu: cpuSeconds(apiPid) - apiCpuBefore,
      read: now.rchar - base.rchar,
      peakRss: now.peakRss,
    };
    if (firstProgress !== undefined && firstProgress.reconciles < objects)
      figures.perReconcile = ((line.at - firstProgress.at) * 1000) / (objects - firstProgress.reconciles);
    if (cgroup) figures.cgroupPeak = cgroup.peakBytes();
    if (isOurs(impl)) {
      const stats = await r.stats();
      figures.heap = stats.heapUsed;
      if (stats.cached !== objects) throw new Error(`ours cached ${stats.cached} objects, not ${objects}`);
    }
    return figures;
  } catch (err) {
    // Exited on its own (a line awaited rejects then): out of heap or killed for memory is a result, anything else
    // an error.
    if (!r.running && r.outOfHeap()) return { outOfHeap: r.outOfHeap() };
    if (!r.running && cgroup && cgroup.oomKills() > 0) return { outOfHeap: 'oom-killed' };
    throw err;
  } finally {
    offProgress();
    await r.stop();
    cgroup?.remove();
  }
}

const METRICS = [
  { key: 'wall', header: 'spawn → all reconciled s', fmt: (v) => v.toFixed(2) },
  { key: 'cpu', header: 'CPU s', fmt: (v) => v.toFixed(2) },
  { key: 'perReconcile', header: 'reconcile phase µs/object', fmt: (v) => v.toFixed(1) },
  { key: 'apiCpu', header: 'API server CPU s', fmt: (v) => v.toFixed(2) },
  { key: 'read', header: 'read MiB', fmt: mib },
  { key: 'peakRss', header: 'peak RSS MiB', fmt: mib },
  ...(LIMIT ? [{ key: 'cgroupPeak', header: 'cgroup peak MiB', fmt: mib }] : []),
  { key: 'heap', header: 'heap MiB', fmt: mib },
];
const results = []; // { objects, kind, impl, runs: [figures] }
const runRows = [];

try {
  const kinds = [];
  for (const name of KINDS) {
    const kind = await reconciledKind(name, { rt, env, dir });
    kinds.push({ kind, namespaces: Array.from({ length: NAMESPACES }, (_, i) => `${name}-${i}`), created: 0 });
    console.log(`KIND=${name}: ${kind.describe}`);
  }
  for (const objects of SIZES) {
    for (const k of kinds) {
      const t0 = performance.now();
      await createObjects(client, rt, k.kind, {
        namespaces: k.namespaces,
        from: k.created,
        to: objects,
        payload: PAYLOAD,
      });
      k.created = objects;
      console.log(
        `${objects} ${k.kind.kind} objects of ${PAYLOAD} B padding: created in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${loadLine()}`,
      );
      const byImpl = new Map(IMPLS.map((impl) => [impl, { objects, kind: k.kind.kind, impl, runs: [] }]));
      for (let run = 1; run <= RUNS; run++) {
        for (const impl of IMPLS) {
          const figures = await runOnce(impl, k.kind, objects);
          byImpl.get(impl).runs.push(figures);
          const label = `${objects} ${k.kind.kind}, ${impl}, run ${run}`;
          runRows.push(
            figures.outOfHeap
              ? [
                  `${label}: out of memory at --max-old-space-size=${heapMb} (${{ stopped: 'the manager stopped with its one line', 'oom-killed': "killed by the kernel's OOM killer at the memory limit" }[figures.outOfHeap] ?? "V8's abort"})`,
                  ...METRICS.map(() => ''),
                ]
              : [label, ...METRICS.map((m) => (figures[m.key] === undefined ? '' : m.fmt(figures[m.key])))],
          );
          console.log(`${label}: done; ${loadLine()}`);
        }
      }
      results.push(...byImpl.values());
    }
  }
} finally {
  client.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}

const median = (values) => percentile(values, 50);
console.log();
printTable(['run', ...METRICS.map((m) => m.header)], runRows);
console.log();
printTable(
  ['configuration (min / median / max)', ...METRICS.map((m) => m.header)],
  results.map((res) => {
    const ok = res.runs.filter((f) => !f.outOfHeap);
    const heapNote = isOurs(res.impl) && heapMb !== manifestHeapMb ? ` (heap ${heapMb} MiB)` : '';
    const oom = res.runs.length - ok.length;
    const label = `${res.objects} ${res.kind}, ${res.impl}${heapNote}${oom ? `, ${oom} of ${res.runs.length} out of heap` : ''}`;
    return [
      label,
      ...METRICS.map((m) => {
        const values = ok.map((f) => f[m.key]).filter((v) => v !== undefined);
        if (values.length === 0) return '';
        return [Math.min(...values), median(values), Math.max(...values)].map(m.fmt).join(' / ');
      }),
    ];
  }),
);
console.log();
const ratioMetrics = METRICS.filter((m) => m.key !== 'heap');
if (IMPLS.includes('controller-runtime'))
  printTable(
    ['ours ÷ controller-runtime (medians)', ...ratioMetrics.map((m) => m.header)],
    results
      .filter((res) => isOurs(res.impl))
      .map((ours) => {
        const peer = results.find(
          (p) => p.impl === 'controller-runtime' && p.objects === ours.objects && p.kind === ours.kind,
        );
        const med = (res, key) => median(res.runs.filter((f) => !f.outOfHeap).map((f) => f[key]));
        return [
          `${ours.objects} ${ours.kind}${ours.impl === 'ours+' ? ` (ours+ ${VS_FLAGS.join(' ')})` : ''}`,
          ...ratioMetrics.map((m) => {
            const a = med(ours, m.key);
            const b = med(peer, m.key);
            return Number.isFinite(a) && b > 0 ? `${(a / b).toFixed(2)}×` : '-';
          }),
        ];
      }),
  );

// LIMIT=1: a run of ours that did not complete its first pass inside the memory limit fails the script.
if (LIMIT) {
  const failed = results.filter((res) => isOurs(res.impl)).flatMap((res) => res.runs.filter((f) => f.outOfHeap));
  console.log(
    failed.length === 0
      ? `every run of ours completed its first pass inside manager.yaml's ${mib(limitBytes)} MiB limit`
      : `${failed.length} run(s) of ours did not complete their first pass inside manager.yaml's ${mib(limitBytes)} MiB limit`,
  );
  if (failed.length > 0) process.exitCode = 1;
}
