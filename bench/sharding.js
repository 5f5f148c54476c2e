#!/usr/bin/env node
// Sharded controllers against the active-passive manager, on one control plane with the ShardedListAndWatch gate on
// (GATE=off: off, so each replica filters on its side). OBJECTS labelled objects (default 10,000, PAYLOAD bytes of
// padding each, default 512) in 30 namespaces, the first of each owning a Secret, of one kind: KIND=configmap
// (default: ConfigMaps, want in data.want, padding in data.pad) or KIND=crd (the operator's own kind: one made by
// `scaffold create api` with this checkout's CLI, its generated CRD installed and served first; want in spec.foo,
// padding in spec.pad, a string field added beside the scaffold's foo). Each configuration reconciles every object
// once (a merge patch recording it), then a tenth of them again after a change:
//   - ours, active-passive: test/runtime/fixtures/sharded-replica.ts in 'leader' mode (leader election, 1 replica);
//   - ours, sharded by uid: the same controller with ManagerOptions.sharding, 1, 2 and 3 replicas (REPLICAS=1,2,3);
//   - controller-runtime, active-passive: bench/go/shardpeer (controller-runtime has no sharding).
// Per replica: RSS at the end (VmRSS; ours after a full GC, with the scaffolded manager's heap flags) and its peak
// (VmHWM), ours' V8 heap in use, bytes read from its sockets and files from start to end (/proc/PID/io rchar, less what
// it read before its manager started), CPU seconds (utime + stime) from its spawn to the end of the first pass,
// reconciles run by the end (more than its objects when the owned Secrets' events, a change, or partitions moving
// while the ring formed made it reconcile some again), watch events delivered after its first sync, and objects cached
// (ours: its informers' indexer sizes).
// Per configuration: the kube-apiserver's CPU seconds over the first pass, objects/s of the first pass (first
// reconcile write to last, seen through a watch) and its end from the replicas' spawn.
// MODE=memory (for 100,000 objects, where writing each would take an hour): the replicas reconcile without writing
// (SHARD_READ_ONLY, shardpeer -read-only), and each configuration is timed by the replicas themselves: from their
// spawn (this script's Date.now()) to the `at` (the replica's Date.now()) of the progress line that brings the sum of
// their reconcile counts to OBJECTS; nothing asks them anything during the pass, and their figures (SIGUSR2) are taken
// once at its end, with no second round. A replica of ours that runs out of the manifest's heap is reported so, and
// its configuration run again with --max-old-space-size=BIG_HEAP_MB (default 1024) for its figures.
// Usage: npm run build && node bench/sharding.js;  OBJECTS=100000 MODE=memory REPLICAS=3 KIND=crd node bench/sharding.js
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LABEL,
  Replica,
  allReconciled,
  apiServerPid,
  bundleReplica,
  cpuSeconds,
  createObjects,
  guardRun,
  ourNodeFlags,
  pool,
  procStats,
  reconciledKind,
} from './replica-lib.js';
import { goBinary, importEnvtest, importRuntime, loadLine, machineLine, printTable } from './runtime-lib.js';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const PAYLOAD = Number(process.env.PAYLOAD ?? 512);
const KIND = process.env.KIND ?? 'configmap';
const GATE = process.env.GATE !== 'off';
const REPLICAS = (process.env.REPLICAS ?? '1,2,3').split(',').map(Number);
const MEMORY_MODE = process.env.MODE === 'memory';
const BIG_HEAP_MB = Number(process.env.BIG_HEAP_MB ?? 1024);
const NAMESPACES = 30;
// controller-runtime's default lease: a loaded machine can stall a process for seconds while it lists 10,000 objects.
const LEASE_MS = Number(process.env.LEASE_MS ?? 15_000);

console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), 'ks-sharding-'));
const script = await bundleReplica(dir);
goBinary('shardpeer'); // built before anything is timed
// Ours runs as the scaffolded manager.yaml runs it (its NODE_OPTIONS), and can be asked for a full GC before measuring.
const { manifestHeapMb, flags: nodeFlags } = await ourNodeFlags();
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const env = await TestEnvironment.start({
  apiServerFlags: { 'feature-gates': `ShardedListAndWatch=${GATE}` },
  startTimeout: 180_000,
});
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, env.kubeconfigYaml());
const client = rt.newClient(env.kubeConfig);
const apiPid = apiServerPid(env);
const kind = await reconciledKind(KIND, { rt, env, dir });
console.log(
  `${OBJECTS} ${kind.describe}, ${PAYLOAD} B of padding, in ${NAMESPACES} namespaces, ShardedListAndWatch ${GATE ? 'on' : 'off'}`,
);

const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-${i}`);
const t0 = performance.now();
const keys = await createObjects(client, rt, kind, { namespaces, to: OBJECTS, payload: PAYLOAD });
console.log(`created in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${loadLine()}`);

/** Watches the objects; resolves when every one carries doneKey = want/secret, with the first and last write times. */
function reconciledWatch(doneKey, expected) {
  const ac = new AbortController();
  const state = new Map();
  let first;
  let last;
  let resolveAll;
  const all = new Promise((r) => (resolveAll = r));
  const check = () => {
    if (state.size === keys.length && [...state.values()].every((ok) => ok)) resolveAll();
  };
  const note = (obj) => {
    const k = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const want = `${kind.want(obj)}/${expected(k)}`;
    const done = obj.metadata.annotations?.[doneKey];
    if (done !== undefined) {
      first ??= performance.now();
      last = performance.now();
    }
    state.set(k, done === want);
  };
  const ready = (async () => {
    const list = await client.list(kind.resource, { labelSelector: LABEL });
    for (const obj of list.items) note(obj);
    void (async () => {
      try {
        for await (const ev of client.watch(kind.resource, {
          labelSelector: LABEL,
          resourceVersion: list.metadata.resourceVersion,
          signal: ac.signal,
        })) {
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
            note(ev.object);
            check();
          }
        }
      } catch {
        // stopped
      }
    })();
    check();
  })();
  return {
    ready,
    all: () => all,
    times: () => ({ first, last }),
    reset: () => {
      first = undefined;
      last = undefined;
    },
    stop: () => ac.abort(),
  };
}

const configs = [
  { name: 'ours, active-passive (leader election)', impl: 'leader', replicas: 1 },
  ...REPLICAS.map((n) => ({ name: `ours, sharded by uid, ${n} replica${n > 1 ? 's' : ''}`, impl: 'uid', replicas: n })),
  { name: 'controller-runtime, active-passive', impl: 'controller-runtime', replicas: 1 },
];
const secretV = new Map(namespaces.map((ns) => [`${ns}/o0`, '1']));
const rows = [];
let round = 1;
let run = 0;
const s = (seconds) => seconds.toFixed(1);
const cpu = (seconds) => seconds.toFixed(2);
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

/** Runs one configuration with ours at `heapMb` of old space; resolves with its rows, or 'out of heap'. */
async function measure(cfg, heapMb) {
  const i = run++;
  const doneKey = `shard.kubescaffold.dev/done-${i}`;
  const leaseNamespace = `bench-ring-${i}`;
  await client.create(rt.Namespaces, { metadata: { name: leaseNamespace } });
  const watch = MEMORY_MODE ? undefined : reconciledWatch(doneKey, (k) => secretV.get(k) ?? '-');
  await watch?.ready;
  const apiCpuBefore = cpuSeconds(apiPid);
  const spawned = performance.now();
  const replicas = Array.from(
    { length: cfg.replicas },
    (_, r) =>
      new Replica(cfg.impl, {
        identity: `r${r + 1}`,
        leaseNamespace,
        kubeconfig,
        kind,
        leaseMs: LEASE_MS,
        readOnly: MEMORY_MODE,
        expect: MEMORY_MODE && cfg.replicas === 1 ? keys.length : undefined,
        doneKey,
        script,
        nodeFlags: nodeFlags(heapMb),
      }),
  );
  const spawnedAt = Math.min(...replicas.map((r) => r.spawnedAt));
  // A replica that exits (a lost lease, out of heap) ends the run.
  const { died, stopAll } = guardRun(replicas, cfg.name);
  let firstPass;
  let passCpu;
  let apiCpu;
  const passEnded = () => {
    passCpu = replicas.map((r) => cpuSeconds(r.p.pid));
    apiCpu = cpuSeconds(apiPid) - apiCpuBefore;
  };
  // Subscribed before anything is awaited: no line can come unseen.
  const reconciled = MEMORY_MODE ? allReconciled(replicas, keys.length, died) : undefined;
  reconciled?.catch(() => {});
  let bases;
  try {
    bases = await Promise.race([Promise.all(replicas.map((r) => r.started)), died]);
    if (MEMORY_MODE) {
      const { at } = await reconciled;
      passEnded();
      firstPass = { total: (at - spawnedAt) / 1000, rate: undefined };
    } else {
      await Promise.race([watch.all(), died]);
      passEnded();
      const { first, last } = watch.times();
      firstPass = {
        total: (last - spawned) / 1000,
        rate: keys.length / ((last - first) / 1000),
      };
      // A change to a tenth of the objects and to the owned Secrets: watch events reach the replicas.
      round++;
      watch.reset();
      const changed = keys.filter((_, j) => j % 10 === round % 10);
      const second = reconciledWatch(doneKey, (k) => secretV.get(k) ?? '-');
      await second.ready;
      await pool(changed, 24, (k) => client.patch(kind.resource, k, kind.wantPatch(String(round)), { type: 'merge' }));
      await pool(namespaces, 8, async (namespace) => {
        secretV.set(`${namespace}/o0`, String(round));
        await client.patch(
          rt.Secrets,
          { namespace, name: 'o0' },
          { stringData: { v: String(round) } },
          { type: 'merge' },
        );
      });
      await Promise.race([second.all(), died]);
      second.stop();
      watch.stop();
    }
  } catch (err) {
    watch?.stop();
    await stopAll();
    if (err.outOfHeap) return 'out of heap';
    throw err;
  }
  const heapNote = heapMb === manifestHeapMb ? '' : ` (heap ${heapMb} MiB)`;
  const out = [];
  for (const [j, r] of replicas.entries()) {
    const stats = await r.stats();
    const now = procStats(r.p.pid);
    out.push([
      `${cfg.name}${heapNote}: ${r.identity}`,
      mib(now.rss),
      mib(now.peakRss),
      stats.heapUsed === undefined ? '' : mib(stats.heapUsed),
      mib(now.rchar - bases[j].rchar),
      cpu(passCpu[j]),
      j === 0 ? cpu(apiCpu) : '',
      stats.reconciles,
      stats.watchEvents ?? '',
      stats.cached ?? '',
      stats.partitions ? stats.partitions.length : '',
      firstPass.rate === undefined ? '' : firstPass.rate.toFixed(0),
      s(firstPass.total),
    ]);
  }
  await stopAll();
  return out;
}

try {
  for (const cfg of configs) {
    let result = await measure(cfg, manifestHeapMb);
    if (result === 'out of heap') {
      console.log(`${cfg.name}: out of the manifest's ${manifestHeapMb} MiB heap; again with ${BIG_HEAP_MB} MiB`);
      rows.push([`${cfg.name}: out of heap at --max-old-space-size=${manifestHeapMb}`, ...Array(12).fill('')]);
      result = await measure(cfg, BIG_HEAP_MB);
      if (result === 'out of heap') throw new Error(`${cfg.name}: out of heap at ${BIG_HEAP_MB} MiB too`);
    }
    rows.push(...result);
    console.log(`${cfg.name}: done; ${loadLine()}`);
  }
} finally {
  client.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log();
printTable(
  [
    'configuration: replica',
    'RSS MiB',
    'peak RSS MiB',
    'heap MiB',
    'read MiB',
    'CPU s',
    'API server CPU s',
    'reconciles',
    'watch events',
    'cached',
    'partitions',
    'first pass obj/s',
    MEMORY_MODE ? 'all reconciled s' : 'first pass s',
  ],
  rows,
);
