#!/usr/bin/env node
// Reconcile throughput, event-to-reconcile latency and heap over a churn run, for our Manager + controller
// (bench/runtime-reconcile-child.js) and a controller-runtime v0.25 manager (bench/go/reconcile), one after the other
// against the same Thing CRD on one control plane (envtest's kube-apiserver + etcd). Both run the same reconciler:
// read the Thing from the manager's cache, merge-patch its status (see bench/go/reconcile/main.go).
//
// 1. Throughput: for each of SIZES (default 1000,10000) a namespace holds that many Things; each peer starts with a
//    fresh status token, so every object needs one status patch. Reported: objects/s from the first reconcile to the
//    last object's patch, and start→done (process start, cache sync, all patches). Per WORKERS (default 1,4:
//    maxConcurrentReconciles / MaxConcurrentReconciles; both default to 1).
// 2. Latency: then, with the peer idle, LAT_SAMPLES (default 400) annotation updates at LAT_RATE per second (default
//    20), round robin over the objects, each stamped with its send time (µs since the epoch, taken just before the
//    PATCH is sent); the reconciler records now - stamp when it first sees a stamp. p50/p90/p99/max, next to the
//    PATCH round trips (the API server's share) and each sample minus its own round trip (the client side's share).
// 3. Churn (DURATION, default 2m; 0 skips): both peers at once, each on its own namespace seeded with CHURN_OBJECTS
//    (default 1000) Things, under the same churn applied to both namespaces: per second CHURN_UPDATES (default 10)
//    stamped updates and CHURN_REPLACES (default 2) creates of a new object plus deletes of the oldest, so keys keep
//    changing. Every 10 s each peer reports its live heap after a GC (V8 heapUsed; Go HeapAlloc) and RSS. Reported:
//    the series, least-squares slopes over the whole run and its second half, and whether it stays flat (the second
//    half's slope, extrapolated over the whole run, under 5% of the mean heap), plus latency under churn.
// Usage: npm run build && node bench/runtime-reconcile.js
//        SIZES=1000 WORKERS=1 DURATION=30m node bench/runtime-reconcile.js
//        HEAP_SNAPSHOTS=<dir>: our peer also writes V8 heap snapshots at the churn's midpoint and end, for
//        node bench/runtime-heapdiff.js <dir>/ours-mid.heapsnapshot <dir>/ours-end.heapsnapshot
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  Peer,
  SENT_ANNOTATION,
  THING,
  createThings,
  goBinary,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  percentile,
  printTable,
  ratio,
  startControlPlane,
  thing,
} from './runtime-lib.js';

const SIZES = (process.env.SIZES ?? '1000,10000')
  .split(',')
  .filter((x) => x.trim() !== '' && x.trim() !== '0')
  .map(Number);
const WORKERS = (process.env.WORKERS ?? '1,4').split(',').map(Number);
const LAT_SAMPLES = Number(process.env.LAT_SAMPLES ?? 400);
const LAT_RATE = Number(process.env.LAT_RATE ?? 20);
const CHURN_OBJECTS = Number(process.env.CHURN_OBJECTS ?? 1000);
const CHURN_UPDATES = Number(process.env.CHURN_UPDATES ?? 10);
const CHURN_REPLACES = Number(process.env.CHURN_REPLACES ?? 2);
const DURATION_MS = parseDuration(process.env.DURATION ?? '2m');
const SAMPLE_EVERY_MS = Number(process.env.SAMPLE_EVERY_MS ?? 10_000);
const HEAP_SNAPSHOTS = process.env.HEAP_SNAPSHOTS ? resolve(process.env.HEAP_SNAPSHOTS) : '';
const PEERS = ['ours', 'controller-runtime'];

function parseDuration(s) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) throw new Error(`bad DURATION ${s} (e.g. 90s, 2m, 30m)`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowUs = () => (performance.timeOrigin + performance.now()) * 1000;

function stampPatch(stamp = String(Math.round(nowUs()))) {
  return { metadata: { annotations: { [SENT_ANNOTATION]: stamp } } };
}

/**
 * Sends `count` stamped updates at `rate` per second, round robin over names; resolves when all have answered, with
 * each PATCH's round trip (the API server's share of the event-to-reconcile latency).
 */
async function sendStamps(client, res, namespace, names, count, rate) {
  const start = performance.now();
  const inflight = [];
  const rttByStamp = new Map();
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const t = performance.now();
    const stamp = String(Math.round(nowUs()));
    inflight.push(
      client.patch(res, { namespace, name: names[i % names.length] }, stampPatch(stamp), { type: 'merge' }).then(
        () => void rttByStamp.set(stamp, performance.now() - t),
        () => void errors++,
      ),
    );
  }
  await Promise.all(inflight);
  return { errors, rttByStamp };
}

/** Waits until the peer has run no reconcile for 2 s; returns its last status. */
async function settle(peer) {
  let last = await peer.ask('status');
  let since = performance.now();
  for (;;) {
    await sleep(250);
    const s = await peer.ask('status');
    if (s.reconciles !== last.reconciles) since = performance.now();
    last = s;
    if (performance.now() - since >= 2000) return s;
  }
}

function latencyCells(samples) {
  return [samples.length, ...[50, 90, 99, 100].map((p) => percentile(samples, p).toFixed(1))];
}

/** Least-squares slope (bytes per minute) of points {tMs, bytes}. */
function slopePerMin(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const xs = points.map((p) => p.tMs / 60_000);
  const ys = points.map((p) => p.bytes);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}

const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const Things = rt.defineResource(THING);
goBinary('reconcile');
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);
const nameOf = (i, prefix = 'thing') => `${prefix}-${String(i).padStart(6, '0')}`;

try {
  console.log(
    `reconcile throughput, latency and churn: ours vs controller-runtime v0.25.2 (client-go v0.37.1), Kubernetes ${cp.env.binaries.version} (envtest)`,
  );
  console.log(machineLine());
  for (const n of SIZES) {
    await client.create(rt.Namespaces, { metadata: { name: `bench-${n}` } });
    const ms = await createThings(client, Things, `bench-${n}`, 0, n);
    console.log(`created ${n} Things in bench-${n} in ${(ms / 1000).toFixed(1)} s`);
  }

  const tput = [];
  const lat = [];
  let run = 0;
  for (const n of SIZES) {
    const names = Array.from({ length: n }, (_, i) => nameOf(i));
    for (const workers of WORKERS) {
      // Alternate which peer goes first, so neither always meets a freshly written etcd.
      const order = run++ % 2 === 0 ? PEERS : [...PEERS].reverse();
      for (const name of order) {
        const token = `${name}-${n}-${workers}-${Date.now()}`;
        const peer = new Peer(name, {
          kubeconfig: cp.kubeconfigPath,
          namespace: `bench-${n}`,
          token,
          expect: n,
          workers,
        });
        try {
          const t = await peer.next('throughput');
          const settled = await settle(peer);
          tput.push({
            n,
            workers,
            name,
            ...t,
            settledMs: settled.firstToLastReconcileMs,
            settledReconciles: settled.reconciles,
            cpuMs: settled.cpuMs,
          });
          await sleep(1000);
          await peer.ask('latency'); // drops anything recorded so far
          const sent = await sendStamps(client, Things, `bench-${n}`, names, LAT_SAMPLES, LAT_RATE);
          await sleep(2000);
          const l = await peer.ask('latency');
          // What is left once the PATCH has returned: watch delivery, cache, queue and worker (negative when the event
          // beat the response).
          const afterResponse = l.samples
            .map((ms, i) => ms - (sent.rttByStamp.get(l.stamps[i]) ?? NaN))
            .filter(Number.isFinite);
          lat.push({
            n,
            workers,
            name,
            samples: l.samples,
            rtts: [...sent.rttByStamp.values()],
            afterResponse,
            sendErrors: sent.errors,
            errors: l.errors,
          });
          console.log(
            `  ${name}, ${n} objects, ${workers} worker(s): ${((n / t.firstToLastMs) * 1000).toFixed(0)} objects/s, ` +
              `latency p99 ${percentile(l.samples, 99).toFixed(1)} ms (${l.samples.length}/${LAT_SAMPLES} seen); ${loadLine()}`,
          );
        } finally {
          await peer.stop();
        }
      }
    }
  }

  if (tput.length > 0) report(tput, lat);
  if (DURATION_MS > 0) await churn();
} finally {
  client.close();
  await cp.stop();
}

function report(tput, lat) {
  console.log(
    '\nthroughput: one status patch per object, from the first reconcile to the last object patched; "reconciles then"',
  );
  console.log(
    'counts the reconciles run by then; "settled" is the last reconcile before 2 s of quiet (each patch brings one no-op reconcile);',
  );
  console.log("CPU is the peer process's user + system time from its start until settled, per object");
  printTable(
    [
      'objects',
      'workers',
      'peer',
      'reconcile s',
      'objects/s',
      'vs controller-runtime',
      'start→done s',
      'reconciles then',
      'settled s',
      'reconciles',
      'CPU ms/object',
      'errors',
    ],
    tput.map((t) => {
      const cr = tput.find((x) => x.n === t.n && x.workers === t.workers && x.name === 'controller-runtime');
      return [
        t.n,
        t.workers,
        t.name,
        (t.firstToLastMs / 1000).toFixed(2),
        ((t.n / t.firstToLastMs) * 1000).toFixed(0),
        cr ? ratio(cr.firstToLastMs, t.firstToLastMs) : '-',
        (t.startToLastMs / 1000).toFixed(2),
        t.reconciles,
        (t.settledMs / 1000).toFixed(2),
        t.settledReconciles,
        (t.cpuMs / t.n).toFixed(2),
        t.errors,
      ];
    }),
  );
  console.log(
    `\nevent-to-reconcile latency, ms (${LAT_SAMPLES} stamped updates at ${LAT_RATE}/s). PATCH RTT is the sender's request round trip (the`,
  );
  console.log(
    "API server's share); 'after response' is each sample minus its own PATCH round trip: watch delivery, cache, queue, worker",
  );
  printTable(
    [
      'objects',
      'workers',
      'peer',
      'samples',
      'p50',
      'p90',
      'p99',
      'max',
      'p99 vs controller-runtime',
      'PATCH RTT p50',
      'RTT p99',
      'after response p50',
      'p99',
    ],
    lat.map((l) => {
      const cr = lat.find((x) => x.n === l.n && x.workers === l.workers && x.name === 'controller-runtime');
      return [
        l.n,
        l.workers,
        l.name,
        ...latencyCells(l.samples),
        cr ? ratio(percentile(l.samples, 99), percentile(cr.samples, 99)) : '-',
        percentile(l.rtts, 50).toFixed(1),
        percentile(l.rtts, 99).toFixed(1),
        percentile(l.afterResponse, 50).toFixed(1),
        percentile(l.afterResponse, 99).toFixed(1),
      ];
    }),
  );
  const oursT = tput.filter((t) => t.name === 'ours');
  const worst = Math.min(
    ...oursT.map((t) => {
      const cr = tput.find((x) => x.n === t.n && x.workers === t.workers && x.name === 'controller-runtime');
      return cr.firstToLastMs / t.firstToLastMs;
    }),
  );
  const worstP99 = Math.max(...lat.filter((l) => l.name === 'ours').map((l) => percentile(l.samples, 99)));
  const worstAfter = Math.max(...lat.filter((l) => l.name === 'ours').map((l) => percentile(l.afterResponse, 99)));
  console.log(
    `goals (ours): throughput within 1.5× of controller-runtime (worst case ours/c-r = ${worst.toFixed(2)}): ${worst >= 1 / 1.5 ? 'met' : 'NOT met'}; ` +
      `p99 under 50 ms (worst ${worstP99.toFixed(1)} ms; after the PATCH response ${worstAfter.toFixed(1)} ms): ${worstP99 < 50 ? 'met' : 'NOT met'}`,
  );
}

async function churn() {
  const namespaces = { ours: 'churn-ours', 'controller-runtime': 'churn-go' };
  if (HEAP_SNAPSHOTS) mkdirSync(HEAP_SNAPSHOTS, { recursive: true });
  for (const ns of Object.values(namespaces)) {
    await client.create(rt.Namespaces, { metadata: { name: ns } });
    await createThings(client, Things, ns, 0, CHURN_OBJECTS, { prefix: 'churn' });
  }
  const workers = WORKERS[0];
  console.log(
    `\nchurn: ${(DURATION_MS / 60_000).toFixed(1)} min, ${CHURN_OBJECTS} live Things per peer, per second ${CHURN_UPDATES} updates and ` +
      `${CHURN_REPLACES} creates + deletes per namespace, ${workers} worker(s), both peers at once; ${loadLine()}`,
  );
  const peers = PEERS.map(
    (name) =>
      new Peer(name, {
        kubeconfig: cp.kubeconfigPath,
        namespace: namespaces[name],
        token: `churn-${name}-${Date.now()}`,
        expect: 0,
        workers,
      }),
  );
  try {
    // Let each settle on the seeded objects (one patch and one no-op reconcile each).
    for (const p of peers) {
      const deadline = performance.now() + 5 * 60_000;
      while ((await p.ask('latency')).reconciles < 2 * CHURN_OBJECTS && performance.now() < deadline) await sleep(1000);
    }
    const state = Object.fromEntries(
      Object.values(namespaces).map((ns) => [
        ns,
        { live: Array.from({ length: CHURN_OBJECTS }, (_, i) => nameOf(i, 'churn')), nextId: CHURN_OBJECTS, cursor: 0 },
      ]),
    );
    const series = Object.fromEntries(PEERS.map((n) => [n, []]));
    const lats = Object.fromEntries(PEERS.map((n) => [n, []]));
    let inflight = 0;
    let skipped = 0;
    let writeErrors = 0;
    let writes = 0;
    const fire = (p) => {
      inflight++;
      writes++;
      p.catch(() => void writeErrors++).finally(() => void inflight--);
    };
    const start = performance.now();
    let nextSample = start;
    let updatesDue = 0;
    let replacesDue = 0;
    let midSnapshot = !HEAP_SNAPSHOTS;
    for (let tick = 0; ; tick++) {
      const now = performance.now();
      if (!midSnapshot && now - start >= DURATION_MS / 2) {
        midSnapshot = true;
        console.log(
          `  wrote ${(await peers[0].ask(`snapshot ${join(HEAP_SNAPSHOTS, 'ours-mid.heapsnapshot')}`)).path}`,
        );
      }
      if (now >= nextSample) {
        const tMs = now - start;
        for (const p of peers) {
          const h = await p.ask('heap');
          series[p.name].push({ tMs, bytes: h.heapBytes, rss: h.rssBytes });
        }
        nextSample += SAMPLE_EVERY_MS;
      }
      if (now - start >= DURATION_MS) break;
      updatesDue += CHURN_UPDATES / 10;
      replacesDue += CHURN_REPLACES / 10;
      if (inflight > 200) {
        skipped++;
      } else {
        for (; updatesDue >= 1; updatesDue--) {
          for (const ns of Object.values(namespaces)) {
            const s = state[ns];
            const name = s.live[s.cursor++ % s.live.length];
            fire(client.patch(Things, { namespace: ns, name }, stampPatch(), { type: 'merge' }));
          }
        }
        for (; replacesDue >= 1; replacesDue--) {
          for (const ns of Object.values(namespaces)) {
            const s = state[ns];
            const fresh = thing(ns, s.nextId++, 'churn');
            s.live.push(fresh.metadata.name);
            fire(client.create(Things, fresh));
            fire(client.delete(Things, { namespace: ns, name: s.live.shift() }));
          }
        }
      }
      const wait = start + (tick + 1) * 100 - performance.now();
      if (wait > 0) await sleep(wait);
    }
    while (inflight > 0) await sleep(50);
    if (HEAP_SNAPSHOTS)
      console.log(`  wrote ${(await peers[0].ask(`snapshot ${join(HEAP_SNAPSHOTS, 'ours-end.heapsnapshot')}`)).path}`);
    await sleep(2000);
    for (const p of peers) lats[p.name] = (await p.ask('latency')).samples;
    console.log(
      `churn writes: ${writes} (${writeErrors} failed, ${skipped} ticks skipped with over 200 writes in flight); ${loadLine()}`,
    );
    const rows = [];
    for (const p of peers) {
      const pts = series[p.name];
      const heap = pts.map((x) => x.bytes);
      const mean = heap.reduce((a, b) => a + b, 0) / heap.length;
      const slope = slopePerMin(pts);
      const late = slopePerMin(pts.slice(Math.floor(pts.length / 2)));
      const spanMin = (pts[pts.length - 1].tMs - pts[0].tMs) / 60_000;
      const growth = (late * spanMin) / mean;
      const rssSlope = slopePerMin(pts.map((x) => ({ tMs: x.tMs, bytes: x.rss })));
      rows.push([
        p.name,
        pts.length,
        mib(heap[0]),
        mib(heap[heap.length - 1]),
        `${mib(Math.min(...heap))}..${mib(Math.max(...heap))}`,
        (slope / 1024).toFixed(1),
        (late / 1024).toFixed(1),
        `${(growth * 100).toFixed(1)}%`,
        Math.abs(growth) < 0.05 ? 'flat' : growth > 0 ? 'GROWING' : 'shrinking',
        `${mib(pts[0].rss)}→${mib(pts[pts.length - 1].rss)}`,
        (rssSlope / 1024).toFixed(1),
        ...latencyCells(lats[p.name]).map(String),
      ]);
    }
    console.log('');
    printTable(
      [
        'peer',
        'samples',
        'heap MiB first',
        'last',
        'min..max',
        'heap slope KiB/min',
        '2nd half',
        '2nd-half growth over run',
        'verdict',
        'RSS MiB first→last',
        'RSS slope KiB/min',
        'latency n',
        'p50 ms',
        'p90',
        'p99',
        'max',
      ],
      rows,
    );
    for (const p of peers) {
      const pts = series[p.name];
      const step = Math.max(1, Math.ceil(pts.length / 25));
      console.log(
        `  ${p.name} heap MiB every ${(SAMPLE_EVERY_MS * step) / 1000} s: ${pts
          .filter((_, i) => i % step === 0)
          .map((x) => mib(x.bytes))
          .join(' ')}`,
      );
      console.log(
        `  ${p.name} RSS MiB every ${(SAMPLE_EVERY_MS * step) / 1000} s: ${pts
          .filter((_, i) => i % step === 0)
          .map((x) => mib(x.rss))
          .join(' ')}`,
      );
    }
  } finally {
    for (const p of peers) await p.stop();
  }
}
