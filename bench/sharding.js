#!/usr/bin/env node
// Sharded controllers against the active-passive manager, on one control plane with the ShardedListAndWatch gate on
// (GATE=off: off, so each replica filters on its side). OBJECTS labelled ConfigMaps (default 10,000, PAYLOAD bytes of
// data each, default 512) in 30 namespaces, the first of each owning a Secret. Each configuration reconciles every
// object once (a merge patch recording it), then a tenth of them again after a change:
//   - ours, active-passive: test/runtime/fixtures/sharded-replica.ts in 'leader' mode (leader election, 1 replica);
//   - ours, sharded by uid: the same controller with ManagerOptions.sharding, 1, 2 and 3 replicas (REPLICAS=1,2,3);
//   - controller-runtime, active-passive: bench/go/shardpeer (controller-runtime has no sharding).
// Per replica: RSS at the end (VmRSS; ours after a full GC, with the scaffolded manager's heap flags) and ours' V8 heap
// in use, bytes read from its sockets and files from start to end (/proc/PID/io rchar,
// less what it read before its manager started), watch events delivered after its first sync, and objects cached.
// Per configuration: objects/s of the first pass (first reconcile write to last, seen through a watch).
// MODE=memory (for 100,000 objects, where writing each would take an hour): the replicas reconcile without writing
// (SHARD_READ_ONLY, shardpeer -read-only); each configuration is measured once its replicas have reconciled every
// object (their reconcile counts, asked with SIGUSR2, add up to OBJECTS and stop moving), with no second round. A
// replica of ours that runs out of the manifest's heap is reported so, and its configuration run again with
// --max-old-space-size=BIG_HEAP_MB (default 1024) for its figures.
// Usage: npm run build && node bench/sharding.js;  OBJECTS=100000 MODE=memory REPLICAS=3 node bench/sharding.js
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../scripts/lib/bundle-for-node.js';
import { childNode, goBinary, importEnvtest, importRuntime, loadLine, machineLine, printTable } from './runtime-lib.js';

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const PAYLOAD = Number(process.env.PAYLOAD ?? 512);
const GATE = process.env.GATE !== 'off';
const REPLICAS = (process.env.REPLICAS ?? '1,2,3').split(',').map(Number);
const MEMORY_MODE = process.env.MODE === 'memory';
const BIG_HEAP_MB = Number(process.env.BIG_HEAP_MB ?? 1024);
const NAMESPACES = 30;
// controller-runtime's default lease: a loaded machine can stall a process for seconds while it lists 10,000 objects.
const LEASE_MS = Number(process.env.LEASE_MS ?? 15_000);
// Ours runs as the scaffolded manager.yaml runs it (its NODE_OPTIONS), and can be asked for a full GC before measuring.
const nodeFlags = (heapMb) => ['--expose-gc', `--max-old-space-size=${heapMb}`, '--max-semi-space-size=2'];
const MANIFEST_HEAP_MB = 96;
const LABEL = 'shard.kubescaffold.dev/test';
const fixture = fileURLToPath(new URL('../test/runtime/fixtures/sharded-replica.ts', import.meta.url));

console.log(machineLine());
console.log(
  `${OBJECTS} ConfigMaps of ${PAYLOAD} B data in ${NAMESPACES} namespaces, ShardedListAndWatch ${GATE ? 'on' : 'off'}`,
);
const dir = mkdtempSync(join(tmpdir(), 'ks-sharding-'));
const ours = join(dir, 'sharded-replica.mjs');
await bundleForNode(fixture, ours);
const peerBinary = goBinary('shardpeer');
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

async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-${i}`);
const keys = Array.from({ length: OBJECTS }, (_, i) => ({
  namespace: namespaces[i % NAMESPACES],
  name: `o${Math.floor(i / NAMESPACES)}`,
}));
const t0 = performance.now();
await pool(namespaces, 8, (name) => client.create(rt.Namespaces, { metadata: { name } }));
await pool(keys, 24, (k) =>
  client.create(rt.ConfigMaps, {
    metadata: { ...k, labels: { [LABEL]: '1' } },
    data: { want: '1', pad: 'x'.repeat(PAYLOAD) },
  }),
);
await pool(namespaces, 8, async (namespace) => {
  const owner = await client.get(rt.ConfigMaps, { namespace, name: 'o0' });
  await client.create(rt.Secrets, {
    metadata: {
      namespace,
      name: 'o0',
      labels: { [LABEL]: '1' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o0', uid: owner.metadata.uid, controller: true }],
    },
    stringData: { v: '1' },
  });
});
console.log(`created in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${loadLine()}`);

/** /proc figures of a process. */
function procStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return {
    rss: Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024,
    rchar: Number(/rchar:\s+(\d+)/.exec(io)[1]),
  };
}

/** Starts one replica; resolves with it once it printed its start line (its rchar then is its baseline). */
function startReplica(kind, identity, leaseNamespace, doneKey, heapMb) {
  const procEnv = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    SHARD_DONE_KEY: doneKey,
    SHARD_STATS_GC: '1',
    ...(MEMORY_MODE ? { SHARD_READ_ONLY: '1' } : {}),
  };
  const p =
    kind === 'controller-runtime'
      ? spawn(
          peerBinary,
          [
            '-kubeconfig-file',
            kubeconfig,
            '-lease-namespace',
            leaseNamespace,
            '-identity',
            identity,
            '-lease-duration',
            `${LEASE_MS}ms`,
            ...(MEMORY_MODE ? ['-read-only'] : []),
          ],
          {
            env: procEnv,
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        )
      : spawn(childNode(), [...nodeFlags(heapMb), ours, leaseNamespace, identity, kind, String(LEASE_MS)], {
          env: procEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let stderrTail = '';
  p.stderr?.on('data', (d) => {
    process.stderr.write(d);
    stderrTail = (stderrTail + d.toString()).slice(-4000);
  });
  const lines = createInterface({ input: p.stdout });
  const waiters = [];
  lines.on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    for (const w of waiters.splice(0)) w(msg);
  });
  const next = (type) =>
    new Promise((resolve) => {
      const wait = (msg) => (msg.type === type ? resolve(msg) : waiters.push(wait));
      waiters.push(wait);
    });
  const stats = () => {
    const answer = next('stats');
    p.kill('SIGUSR2');
    return answer;
  };
  return next('started').then(() => ({
    p,
    identity,
    base: procStats(p.pid),
    next,
    stats,
    outOfHeap: () => /heap out of memory|Reached heap limit/.test(stderrTail),
  }));
}

/** MODE=memory: resolves once the replicas' reconcile counts add up to every object and stopped moving. */
async function reconciledCounts(replicas) {
  let last = -1;
  for (;;) {
    const counts = await Promise.all(replicas.map((r) => r.stats().then((s) => s.reconciles)));
    const sum = counts.reduce((a, b) => a + b, 0);
    if (sum >= keys.length && sum === last) return;
    last = sum;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** Watches the ConfigMaps; resolves when every object carries doneKey = want/secret, with the first and last write times. */
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
  const note = (cm) => {
    const k = `${cm.metadata.namespace}/${cm.metadata.name}`;
    const want = `${cm.data?.want}/${expected(k)}`;
    const done = cm.metadata.annotations?.[doneKey];
    if (done !== undefined) {
      first ??= performance.now();
      last = performance.now();
    }
    state.set(k, done === want);
  };
  const ready = (async () => {
    const list = await client.list(rt.ConfigMaps, { labelSelector: LABEL });
    for (const cm of list.items) note(cm);
    void (async () => {
      try {
        for await (const ev of client.watch(rt.ConfigMaps, {
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
  { name: 'ours, active-passive (leader election)', kind: 'leader', replicas: 1 },
  ...REPLICAS.map((n) => ({ name: `ours, sharded by uid, ${n} replica${n > 1 ? 's' : ''}`, kind: 'uid', replicas: n })),
  { name: 'controller-runtime, active-passive', kind: 'controller-runtime', replicas: 1 },
];
const secretV = new Map(namespaces.map((ns) => [`${ns}/o0`, '1']));
const rows = [];
let round = 1;
let run = 0;

/** Runs one configuration with ours at `heapMb` of old space; resolves with its rows, or 'out of heap'. */
async function measure(cfg, heapMb) {
  const i = run++;
  const doneKey = `shard.kubescaffold.dev/done-${i}`;
  const leaseNamespace = `bench-ring-${i}`;
  await client.create(rt.Namespaces, { metadata: { name: leaseNamespace } });
  const watch = MEMORY_MODE ? undefined : reconciledWatch(doneKey, (k) => secretV.get(k) ?? '-');
  await watch?.ready;
  const replicas = await Promise.all(
    Array.from({ length: cfg.replicas }, (_, r) =>
      startReplica(cfg.kind, `r${r + 1}`, leaseNamespace, doneKey, heapMb),
    ),
  );
  let stopping = false;
  // A replica that exits (a lost lease, out of heap) ends the run: its figures would be another process's.
  const died = Promise.race(
    replicas.map(
      (r) =>
        new Promise((_, reject) =>
          r.p.once('exit', (code, signal) => {
            if (stopping) return;
            const err = new Error(`${cfg.name}: ${r.identity} exited (${code ?? signal}) during the run`);
            err.outOfHeap = r.outOfHeap();
            reject(err);
          }),
        ),
    ),
  );
  died.catch(() => {}); // raced below; a replica exiting between the races must not end the process unexplained
  const stopAll = () => {
    stopping = true;
    return Promise.all(
      replicas.map(
        (r) =>
          new Promise((resolve) => {
            if (r.p.exitCode !== null || r.p.signalCode !== null) return resolve();
            r.p.once('exit', resolve);
            r.p.kill('SIGTERM');
          }),
      ),
    );
  };
  const started = performance.now();
  let firstPass;
  try {
    if (MEMORY_MODE) {
      await Promise.race([reconciledCounts(replicas), died]);
      firstPass = { total: (performance.now() - started) / 1000, rate: undefined };
    } else {
      await Promise.race([watch.all(), died]);
      const { first, last } = watch.times();
      firstPass = { total: (last - started) / 1000, rate: keys.length / ((last - first) / 1000) };
      // A change to a tenth of the objects and to the owned Secrets: watch events reach the replicas.
      round++;
      watch.reset();
      const changed = keys.filter((_, j) => j % 10 === round % 10);
      const second = reconciledWatch(doneKey, (k) => secretV.get(k) ?? '-');
      await second.ready;
      await pool(changed, 24, (k) =>
        client.patch(rt.ConfigMaps, k, { data: { want: String(round) } }, { type: 'merge' }),
      );
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
  const heapNote = heapMb === MANIFEST_HEAP_MB ? '' : ` (heap ${heapMb} MiB)`;
  const out = [];
  for (const r of replicas) {
    const stats = cfg.kind === 'controller-runtime' ? {} : await r.stats();
    const now = procStats(r.p.pid);
    out.push([
      `${cfg.name}${heapNote}: ${r.identity}`,
      (now.rss / 2 ** 20).toFixed(1),
      stats.heapUsed === undefined ? '' : (stats.heapUsed / 2 ** 20).toFixed(1),
      ((now.rchar - r.base.rchar) / 2 ** 20).toFixed(1),
      stats.watchEvents ?? '',
      stats.cached ?? '',
      stats.partitions ? stats.partitions.length : '',
      firstPass.rate === undefined ? '' : firstPass.rate.toFixed(0),
      firstPass.total.toFixed(1),
    ]);
  }
  await stopAll();
  return out;
}

try {
  for (const cfg of configs) {
    let result = await measure(cfg, MANIFEST_HEAP_MB);
    if (result === 'out of heap') {
      console.log(`${cfg.name}: out of the manifest's ${MANIFEST_HEAP_MB} MiB heap; again with ${BIG_HEAP_MB} MiB`);
      rows.push([
        `${cfg.name}: out of heap at --max-old-space-size=${MANIFEST_HEAP_MB}`,
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
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
    'heap MiB',
    'read MiB',
    'watch events',
    'cached',
    'partitions',
    'first pass obj/s',
    MEMORY_MODE ? 'all reconciled s' : 'first pass s',
  ],
  rows,
);
