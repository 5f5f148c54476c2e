#!/usr/bin/env node
// examples/reloader beside stakater/Reloader v1.4.22, the Go original it ports: each run alone, one after the other,
// against one envtest control plane holding CONFIGMAPS ConfigMaps and SECRETS Secrets (SIZE bytes of data each,
// default 1 KiB) and DEPLOYMENTS Deployments that follow them (reloader.stakater.com/auto; Deployment i reads
// ConfigMap i and Secret i through envFrom), plus a sentinel Deployment following a sentinel ConfigMap. Both run
// cluster-wide with their default flags (the env-var strategy), without leader election (Reloader's --enable-ha is off
// by default; the scaffold's --leader-elect would need a namespace out of a cluster).
// - ours: examples/reloader bundled as its image bundles it (the options of the scaffolded hack/bundle.js, the runtime
//   from its build, src/runtime/dist), run from a directory with no node_modules, on CHILD_NODE (default: the cached
//   Node 22, the image's), with the node flags of the scaffolded Dockerfile's ENTRYPOINT and manager.yaml's
//   NODE_OPTIONS, metrics over HTTPS and health probes on ports of their own (`:0`), as config/default serves them;
// - original: Reloader built from the Go module proxy (scripts/lib/go-original.js, cached under
//   ~/.cache/kubescaffold/go-originals/), serving its metrics and liveness on :9090 as it always does.
// Everything is measured from outside the processes: RSS and peak RSS from /proc/<pid>/status (VmRSS, VmHWM), CPU
// seconds from /proc/<pid>/stat (and the kube-apiserver's), and reloads by a watch of this script's own on the
// Deployments: a reload is seen when a Deployment's pod template carries the new hash in its STAKATER_* env var.
// 1. Start → first pass: from spawning the process, the sentinel ConfigMap is changed every PROBE_MS (default 100)
//    until the sentinel Deployment is seen reloaded (a change made before the informers listed is part of their list,
//    not an event, and rolls nothing). CPU seconds by then.
// 2. Idle with caches full: SETTLE_MS (default 15000) after that, the median of 5 RSS samples 0.5 s apart.
// 3. Burst: CHANGES changes (default 200) at RATE a second (default 10), alternately of ConfigMap i and Secret i
//    (i = change number modulo DEPLOYMENTS); latency from sending each change to the watch seeing its Deployment
//    reloaded, p50 and p95; CPU seconds of the operator and of the kube-apiserver from the first change to the last
//    reload seen (or BURST_TIMEOUT_MS, default 120000, after the last change). Peak RSS (VmHWM) at the end.
// RUNS (default 1) runs of each, alternating which goes first; the table shows medians and ours ÷ original.
// PEERS (default ours,original) picks the peers. Sizes for a quick run: CONFIGMAPS=200 SECRETS=200 DEPLOYMENTS=50
// CHANGES=40 SETTLE_MS=5000.
// Usage: npm run build && node bench/reloader.js
//        CONFIGMAPS=200 SECRETS=200 DEPLOYMENTS=50 CHANGES=40 node bench/reloader.js
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildGoOriginal, reloaderOriginal } from '../scripts/lib/go-original.js';
import { cachedNodeVersion, nodeBinDir, newestNodeVersion } from '../scripts/lib/node-binary.js';
import { apiServerPid, cpuSeconds, pool } from './replica-lib.js';
import {
  bundleOptions,
  childNode,
  deployedManagerResources,
  importEnvtest,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  nodeModulesFreeDir,
  percentile,
  printTable,
  ratio,
} from './runtime-lib.js';

const num = (name, def) => Number(process.env[name] ?? def);
const CONFIGMAPS = num('CONFIGMAPS', 2000);
const SECRETS = num('SECRETS', 2000);
const DEPLOYMENTS = num('DEPLOYMENTS', 500);
const SIZE = num('SIZE', 1024);
const CHANGES = num('CHANGES', 200);
const RATE = num('RATE', 10);
const PROBE_MS = num('PROBE_MS', 100);
const SETTLE_MS = num('SETTLE_MS', 15_000);
const BURST_TIMEOUT_MS = num('BURST_TIMEOUT_MS', 120_000);
const RUNS = num('RUNS', 1);
const PEERS = (process.env.PEERS ?? 'ours,original')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);
if (DEPLOYMENTS > Math.min(CONFIGMAPS, SECRETS))
  throw new Error('DEPLOYMENTS must not exceed CONFIGMAPS or SECRETS: Deployment i reads ConfigMap i and Secret i');

const NAMESPACE = 'reloader-bench';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Resolves after `ms` without keeping the process alive: a bound raced against what is awaited. */
const bound = (ms) => new Promise((r) => setTimeout(r, ms).unref());

// The image runs Node 22: our manager runs on it unless CHILD_NODE says otherwise (runtime-lib's childNode reads it).
if (!process.env.CHILD_NODE) {
  const version = cachedNodeVersion('22') ?? newestNodeVersion('22');
  process.env.CHILD_NODE = join(
    nodeBinDir(version, (line) => console.error(line)),
    'node',
  );
}

// ---- the objects ----

const pad = (i) => String(i).padStart(5, '0');
const cmName = (i) => `cm-${pad(i)}`;
const secretName = (i) => `secret-${pad(i)}`;
/** SIZE bytes of text that differ with `seed`. */
const payload = (seed) => `${seed}:`.padEnd(SIZE, `${seed}.`).slice(0, SIZE);
/** Reloader's hash of data with one key (SHA-1 of `key=value`, over a Secret's decoded bytes). */
const hashOf = (key, value) => createHash('sha1').update(`${key}=${value}`).digest('hex');
const configMapData = (seed) => ({ 'app.properties': payload(seed) });
const secretData = (seed) => ({ credentials: Buffer.from(payload(seed)).toString('base64') });
const configMapHash = (seed) => hashOf('app.properties', payload(seed));
const secretHash = (seed) => hashOf('credentials', payload(seed));

function deployment(name, envFrom) {
  return {
    metadata: { name, namespace: NAMESPACE, annotations: { 'reloader.stakater.com/auto': 'true' } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: 'app', image: 'registry.k8s.io/pause:3.10', envFrom, env: [{ name: 'MODE', value: 'server' }] },
          ],
        },
      },
    },
  };
}

async function seed(rt, client) {
  const t = performance.now();
  await client.create(rt.Namespaces, { metadata: { name: NAMESPACE } });
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  await pool(range(CONFIGMAPS), 24, (i) =>
    client.create(rt.ConfigMaps, { metadata: { name: cmName(i), namespace: NAMESPACE }, data: configMapData(i) }),
  );
  await pool(range(SECRETS), 24, (i) =>
    client.create(rt.Secrets, { metadata: { name: secretName(i), namespace: NAMESPACE }, data: secretData(i) }),
  );
  await pool(range(DEPLOYMENTS), 24, (i) =>
    client.create(
      rt.Deployments,
      deployment(`app-${pad(i)}`, [{ configMapRef: { name: cmName(i) } }, { secretRef: { name: secretName(i) } }]),
    ),
  );
  await client.create(rt.ConfigMaps, {
    metadata: { name: 'sentinel', namespace: NAMESPACE },
    data: configMapData('sentinel'),
  });
  await client.create(rt.Deployments, deployment('sentinel', [{ configMapRef: { name: 'sentinel' } }]));
  return (performance.now() - t) / 1000;
}

// ---- the watch: which hashes the Deployments carry ----

/**
 * Watches the namespace's Deployments from the current state on and resolves expect(hash) when a Deployment's env
 * holds `hash` (each change of the run has a hash of its own), with the time its event arrived.
 */
class ReloadWatch {
  constructor(rt, client) {
    this.rt = rt;
    this.client = client;
    this.waiting = new Map();
    this.abort = new AbortController();
  }

  async start() {
    const list = await this.client.list(this.rt.Deployments, { namespace: NAMESPACE });
    this.running = this.loop(list.metadata.resourceVersion);
  }

  async loop(resourceVersion) {
    let rv = resourceVersion;
    while (!this.abort.signal.aborted) {
      try {
        for await (const e of this.client.watch(this.rt.Deployments, {
          namespace: NAMESPACE,
          resourceVersion: rv,
          allowWatchBookmarks: true,
          signal: this.abort.signal,
        })) {
          const at = performance.now();
          if (e.object?.metadata?.resourceVersion) rv = e.object.metadata.resourceVersion;
          if (e.type !== 'MODIFIED') continue;
          for (const c of e.object.spec?.template?.spec?.containers ?? [])
            for (const v of c.env ?? []) {
              const w = this.waiting.get(v.value);
              if (w) {
                this.waiting.delete(v.value);
                w(at);
              }
            }
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        console.error(`watch ended (${err.message}); watching again from ${rv}`);
        await sleep(200);
      }
    }
  }

  /** Resolves with the time the watch sees a Deployment carrying `hash`. */
  expect(hash) {
    return new Promise((resolve) => this.waiting.set(hash, resolve));
  }

  forget(hash) {
    this.waiting.delete(hash);
  }

  async stop() {
    this.abort.abort();
    await this.running;
  }
}

// ---- the operators ----

const repo = fileURLToPath(new URL('../', import.meta.url));

/** examples/reloader bundled with the scaffolded hack/bundle.js's options into a directory with no node_modules. */
async function bundlePort() {
  const out = mkdtempSync(join(tmpdir(), 'ks-reloader-bundle-'));
  await build({
    ...bundleOptions(),
    entryPoints: { manager: join(repo, 'examples', 'reloader', 'cmd', 'main.ts') },
    outdir: join(out, 'bundle'),
    logLevel: 'error',
  });
  const dir = nodeModulesFreeDir();
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'reloader', private: true, type: 'module' })}\n`);
  cpSync(join(out, 'bundle'), dir, { recursive: true });
  rmSync(out, { recursive: true, force: true });
  return { dir, script: join(dir, 'manager.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Spawns an operator with its output in logFile; `exited` resolves with its exit code or signal. */
function spawnOperator(command, args, { env, cwd, logFile }) {
  const log = createWriteStream(logFile);
  const spawnedAt = performance.now();
  const proc = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout.pipe(log, { end: false });
  proc.stderr.pipe(log, { end: false });
  const exited = once(proc, 'exit').then(([code, signal]) => signal ?? code);
  return {
    proc,
    spawnedAt,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

/** VmRSS or VmHWM of a process, in bytes. */
function statusBytes(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Rejects once the operator exits, naming its log; for racing against what is awaited while it runs. */
const diesWith = (op, name, logFile) =>
  op.exited.then((how) => {
    throw new Error(
      `${name} exited (${how}) during the run: see ${logFile}\n${readFileSync(logFile, 'utf8').slice(-3000)}`,
    );
  });

/** One run of one operator: start → first pass, idle RSS, the burst; then it is stopped. */
async function runOnce({ name, rt, client, apiPid, start, runLabel, logFile }) {
  const watch = new ReloadWatch(rt, client);
  await watch.start();
  const op = start(logFile);
  const pid = op.proc.pid;
  const died = diesWith(op, name, logFile);
  died.catch(() => {});
  try {
    // 1. Start → first pass: change the sentinel until the watch sees it rolled.
    let firstSeenAt;
    const firstPass = new Promise((resolve) => (firstSeenAt = resolve));
    const probes = [];
    let probing = true;
    const prober = (async () => {
      for (let n = 0; probing; n++) {
        const s = `${runLabel}-probe-${n}`;
        const hash = configMapHash(s);
        probes.push(hash);
        watch.expect(hash).then(firstSeenAt);
        await client.patch(
          rt.ConfigMaps,
          { namespace: NAMESPACE, name: 'sentinel' },
          { data: configMapData(s) },
          { type: 'merge' },
        );
        await sleep(PROBE_MS);
      }
    })();
    let firstAt;
    try {
      firstAt = await Promise.race([
        firstPass,
        died,
        bound(300_000).then(() => Promise.reject(new Error(`${name}: no first pass within 300 s`))),
      ]);
    } finally {
      probing = false;
      await prober;
    }
    for (const h of probes) watch.forget(h);
    const startSeconds = (firstAt - op.spawnedAt) / 1000;
    const startCpu = cpuSeconds(pid);

    // 2. Idle with its caches full.
    await Promise.race([sleep(SETTLE_MS), died]);
    const samples = [];
    for (let i = 0; i < 5; i++) {
      samples.push(statusBytes(pid, 'VmRSS'));
      await sleep(500);
    }
    const idleRss = percentile(samples, 50);

    // 3. The burst.
    const cpu0 = cpuSeconds(pid);
    const api0 = cpuSeconds(apiPid);
    const t0 = performance.now();
    const latencies = [];
    const writes = [];
    const seenAll = [];
    for (let k = 0; k < CHANGES; k++) {
      const i = k % DEPLOYMENTS;
      const s = `${runLabel}-change-${k}`;
      const secret = k % 2 === 1;
      const hash = secret ? secretHash(s) : configMapHash(s);
      await sleep(Math.max(0, t0 + (k * 1000) / RATE - performance.now()));
      const sentAt = performance.now();
      seenAll.push(watch.expect(hash).then((at) => latencies.push(at - sentAt)));
      writes.push(
        secret
          ? client.patch(
              rt.Secrets,
              { namespace: NAMESPACE, name: secretName(i) },
              { data: secretData(s) },
              { type: 'merge' },
            )
          : client.patch(
              rt.ConfigMaps,
              { namespace: NAMESPACE, name: cmName(i) },
              { data: configMapData(s) },
              { type: 'merge' },
            ),
      );
    }
    await Promise.all(writes);
    await Promise.race([Promise.all(seenAll), died, bound(BURST_TIMEOUT_MS)]);
    const burstCpu = cpuSeconds(pid) - cpu0;
    const apiCpu = cpuSeconds(apiPid) - api0;
    const burstSeconds = (performance.now() - t0) / 1000;
    return {
      startSeconds,
      startCpu,
      idleRss,
      peakRss: statusBytes(pid, 'VmHWM'),
      burstCpu,
      apiCpu,
      burstSeconds,
      seen: latencies.length,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
    };
  } finally {
    await op.stop();
    await watch.stop();
  }
}

// ---- the run ----

console.log(machineLine());
const original = PEERS.includes('original')
  ? await buildGoOriginal(reloaderOriginal, { log: (line) => console.error(line) })
  : undefined;
const port = PEERS.includes('ours') ? await bundlePort() : undefined;
const shipped = await deployedManagerResources();
console.log(
  `ours: ${childNode()} ${shipped.nodeOptions.join(' ')} (the scaffolded ENTRYPOINT's and manager.yaml's node flags), ` +
    `bundled into ${port?.dir ?? '-'}; original: ${original ?? '-'}`,
);

const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const env = await TestEnvironment.start({ startTimeout: 180_000 });
const work = mkdtempSync(join(tmpdir(), 'ks-reloader-bench-'));
const kubeconfigPath = join(work, 'kubeconfig');
writeFileSync(kubeconfigPath, env.kubeconfigYaml());
const client = rt.newClient(env.kubeConfig);
const base = { PATH: process.env.PATH, HOME: work, KUBECONFIG: kubeconfigPath };

const starters = {
  ours: (logFile) =>
    spawnOperator(
      childNode(),
      [...shipped.nodeOptions, port.script, '--metrics-bind-address=:0', '--health-probe-bind-address=:0'],
      { env: base, cwd: port.dir, logFile },
    ),
  original: (logFile) => spawnOperator(original, [], { env: base, cwd: work, logFile }),
};

try {
  const seeded = await seed(rt, client);
  console.log(
    `seeded ${CONFIGMAPS} ConfigMaps, ${SECRETS} Secrets (${SIZE} B of data each) and ${DEPLOYMENTS} Deployments in ${seeded.toFixed(1)} s`,
  );
  const apiPid = apiServerPid(env);
  const results = Object.fromEntries(PEERS.map((p) => [p, []]));
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? PEERS : [...PEERS].reverse();
    for (const name of order) {
      const logFile = join(work, `${name}-${run}.log`);
      const r = await runOnce({ name, rt, client, apiPid, start: starters[name], runLabel: `${name}-${run}`, logFile });
      results[name].push(r);
      console.log(
        `run ${run + 1} ${name}: start → first pass ${r.startSeconds.toFixed(2)} s, idle RSS ${mib(r.idleRss)} MiB, ` +
          `peak ${mib(r.peakRss)} MiB, burst CPU ${r.burstCpu.toFixed(2)} s (kube-apiserver ${r.apiCpu.toFixed(2)} s), ` +
          `latency p50 ${r.p50.toFixed(0)} ms p95 ${r.p95.toFixed(0)} ms, ${r.seen}/${CHANGES} reloads seen (${loadLine()})`,
      );
    }
  }

  const median = (name, key) => percentile(results[name]?.map((r) => r[key]) ?? [], 50);
  const rows = [
    ['start → first pass (s)', 'startSeconds', (x) => x.toFixed(2)],
    ['CPU s by the first pass', 'startCpu', (x) => x.toFixed(2)],
    ['idle RSS, caches full (MiB)', 'idleRss', mib],
    ['peak RSS (MiB)', 'peakRss', mib],
    [`CPU s, ${CHANGES} changes at ${RATE}/s`, 'burstCpu', (x) => x.toFixed(2)],
    ["kube-apiserver's CPU s, same", 'apiCpu', (x) => x.toFixed(2)],
    ['latency p50 (ms)', 'p50', (x) => x.toFixed(0)],
    ['latency p95 (ms)', 'p95', (x) => x.toFixed(0)],
    ['reloads seen', 'seen', (x) => String(x)],
  ];
  console.log(
    `\nexamples/reloader beside stakater/Reloader v1.4.22: ${CONFIGMAPS} ConfigMaps, ${SECRETS} Secrets, ` +
      `${DEPLOYMENTS} Deployments; median of ${RUNS} run(s); ${loadLine()}`,
  );
  printTable(
    ['measure', ...PEERS, ...(PEERS.length === 2 ? [`${PEERS[0]} ÷ ${PEERS[1]}`] : [])],
    rows.map(([label, key, fmt]) => [
      label,
      ...PEERS.map((p) => fmt(median(p, key))),
      ...(PEERS.length === 2 ? [ratio(median(PEERS[0], key), median(PEERS[1], key))] : []),
    ]),
  );
} finally {
  client.close();
  await env.stop();
  port?.remove();
  if (process.env.KEEP_LOGS) console.log(`logs kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
