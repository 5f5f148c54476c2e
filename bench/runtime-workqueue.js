#!/usr/bin/env node
// Workqueue throughput: add/get/done cycles per second through our workqueues and, on the same machine in the same
// run, client-go's (workqueue.NewTyped; NewTypedRateLimitingQueue; the same named, recording controller-runtime's
// workqueue metrics) and controller-runtime's priority queue (what its controllers use by default, with metrics)
// from bench/go/workqueue. One cycle = add + get + done of one item (three operations);
// the rate-limiting queues also forget() before done(), as a controller worker does after a successful reconcile.
// Patterns (KEYS distinct keys, default 1,000):
//   batch    add every key, then get+done them all; repeated until ITEMS cycles
//   dedupe   the same with every key added twice (the second add is a dedupe hit, not counted as a cycle)
//   workers  a producer adds a batch of KEYS, WORKERS consumers (async functions here, goroutines in Go) get+done;
//            the next batch is added once the last is through
// Each figure is the best of RUNS runs (default 5) of ITEMS cycles (default 2,000,000).
// Usage: npm run build && node bench/runtime-workqueue.js      (KUBESCAFFOLD_DIST=<dir> for another build)
import { execFileSync } from 'node:child_process';
import { goBinary, importRuntime, loadLine, machineLine, printTable, ratio } from './runtime-lib.js';

const KEYS = Number(process.env.KEYS ?? 1000);
const ITEMS = Number(process.env.ITEMS ?? 2_000_000);
const WORKERS = Number(process.env.WORKERS ?? 4);
const RUNS = Number(process.env.RUNS ?? 5);

const rt = await importRuntime('workqueue', 'metrics');
const keys = Array.from({ length: KEYS }, (_, i) => `bench/thing-${i}`);

async function batch(q, dup, finish) {
  for (let done = 0; done < ITEMS; done += KEYS) {
    for (const k of keys) {
      q.add(k);
      if (dup) q.add(k);
    }
    for (let i = 0; i < KEYS; i++) {
      const { item } = await q.get();
      finish(item);
    }
  }
}

async function workers(q, finish) {
  let handled = 0;
  let batchDone;
  const worker = async () => {
    for (;;) {
      const { item, shutdown } = await q.get();
      if (shutdown) return;
      finish(item);
      if (++handled % KEYS === 0) batchDone();
    }
  };
  const running = Array.from({ length: WORKERS }, worker);
  for (let added = 0; added < ITEMS; added += KEYS) {
    const through = new Promise((r) => (batchDone = r));
    for (const k of keys) q.add(k);
    await through;
  }
  q.shutDown();
  await Promise.all(running);
}

const queues = [
  { name: 'ours Queue', make: () => new rt.Queue(), finish: (q) => (k) => q.done(k) },
  {
    name: 'ours RateLimitingQueue',
    make: () => new rt.RateLimitingQueue(),
    finish: (q) => (k) => {
      q.forget(k);
      q.done(k);
    },
  },
  {
    // What a Controller builds: named, with controller-runtime's workqueue metrics in the shared registry.
    name: 'ours RateLimitingQueue + metrics',
    make: () => new rt.RateLimitingQueue({ name: 'bench', metricsProvider: rt.workqueueMetricsProvider }),
    finish: (q) => (k) => {
      q.forget(k);
      q.done(k);
    },
  },
];
const patterns = {
  batch: (q, f) => batch(q, false, f),
  dedupe: (q, f) => batch(q, true, f),
  workers: (q, f) => workers(q, f),
};

console.log(`workqueue add+get+done cycles per second, ${KEYS} keys, ${ITEMS} cycles per run, best of ${RUNS}`);
console.log(machineLine());

const results = [];
for (const qd of queues) {
  for (const [pattern, run] of Object.entries(patterns)) {
    let best = Infinity;
    for (let r = 0; r < RUNS; r++) {
      const q = qd.make();
      const t = performance.now();
      await run(q, qd.finish(q));
      best = Math.min(best, performance.now() - t);
      q.shutDown();
    }
    results.push({ queue: qd.name, pattern, perSec: ITEMS / (best / 1000) });
  }
}

const go = execFileSync(
  goBinary('workqueue'),
  ['-keys', String(KEYS), '-items', String(ITEMS), '-workers', String(WORKERS), '-runs', String(RUNS)],
  {
    encoding: 'utf8',
    env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '' },
  },
);
for (const line of go.trim().split('\n')) {
  const r = JSON.parse(line);
  results.push({ queue: r.queue, pattern: r.pattern, perSec: r.itemsPerSec });
}

const find = (queue, pattern) => results.find((r) => r.queue === queue && r.pattern === pattern)?.perSec ?? NaN;
const rows = [];
for (const pattern of Object.keys(patterns)) {
  for (const r of results.filter((x) => x.pattern === pattern)) {
    rows.push([
      pattern,
      r.queue,
      (r.perSec / 1e6).toFixed(2),
      ratio(r.perSec, find('client-go Typed', pattern)),
      ratio(r.perSec, find('client-go TypedRateLimiting', pattern)),
      ratio(r.perSec, find('client-go TypedRateLimiting + c-r metrics', pattern)),
      ratio(r.perSec, find('controller-runtime priorityqueue', pattern)),
    ]);
  }
}
console.log('');
printTable(
  [
    'pattern',
    'queue',
    'M cycles/s',
    'vs client-go Typed',
    'vs client-go RateLimiting',
    'vs client-go RL + metrics',
    'vs c-r priorityqueue',
  ],
  rows,
);
// The goal counts queue operations; a cycle is three (add, get, done).
const opsLine = (queue) => {
  const ops = (find(queue, 'batch') * 3) / 1e6;
  return `${queue} ${ops.toFixed(2)}M ops/s ${ops > 1 ? 'met' : 'NOT met'}`;
};
console.log(
  `\ngoal: over 1M queue operations per second (batch): ${opsLine('ours RateLimitingQueue')}; with metrics, as controllers run it: ${opsLine('ours RateLimitingQueue + metrics')}`,
);
console.log(loadLine());
