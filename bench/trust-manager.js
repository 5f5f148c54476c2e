#!/usr/bin/env node
// examples/trust-manager beside cert-manager/trust-manager v0.25.0, the Go original it ports: each run alone, one
// after the other, against one envtest control plane holding NAMESPACES namespaces (default 30), a trust namespace
// with BUNDLES source ConfigMaps (default 10, each one CA certificate) and BUNDLES Bundles, Bundle j reading source j
// and written to every namespace (NAMESPACES × BUNDLES target ConfigMaps), plus a sentinel Bundle written to one
// namespace. Both run with their default flags but the trust namespace, without leader election, and serve their
// validating webhook with one self-signed certificate (as each is deployed).
// - ours: examples/trust-manager bundled as its image bundles it (the scaffolded hack/bundle.js's options, the runtime
//   from its build), run from a directory with no node_modules, on CHILD_NODE (default: the cached Node 22, the
//   image's), with the node flags of the scaffolded Dockerfile's ENTRYPOINT and manager.yaml's NODE_OPTIONS;
// - original: trust-manager built from the Go module proxy (scripts/lib/go-original.js, cached under
//   ~/.cache/kubescaffold/go-originals/).
// Everything is measured from outside the processes: RSS and peak RSS from /proc/<pid>/status (VmRSS, VmHWM), CPU
// seconds from /proc/<pid>/stat (and the kube-apiserver's), and writes by a watch of this script's own on the targets.
// Before each run every target is deleted, so that both start with the same work: NAMESPACES × BUNDLES targets to
// write.
// 1. Start → first pass: from spawning the process until every target has been written (the watch has seen
//    NAMESPACES × BUNDLES + 1 targets). CPU seconds by then.
// 2. Idle with caches full: SETTLE_MS (default 10000) after that, the median of 5 RSS samples 0.5 s apart.
// 3. Burst: CHANGES changes (default 10, at most BUNDLES) at RATE a second (default 2): source k gets a new
//    certificate; latency from sending it to the watch seeing all NAMESPACES targets of Bundle j carry it, p50
//    and p95; CPU seconds of the operator and of the kube-apiserver from the first change to the last fan-out seen (or
//    BURST_TIMEOUT_MS, default 120000, after the last change). Peak RSS (VmHWM) at the end.
// RUNS (default 1) runs of each, alternating which goes first; the table shows medians and ours ÷ original. PEERS
// (default ours,original) picks the peers. The sizes are small because the original writes at client-go's default
// rate limit (5 requests a second, burst 10: its rest config comes from genericclioptions, which sets no QPS, and
// the manager keeps it), as it does when deployed; each change of a source is NAMESPACES writes.
// Usage: npm run build && node bench/trust-manager.js
//        RUNS=3 node bench/trust-manager.js
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { buildGoOriginal, trustManagerOriginal } from '../scripts/lib/go-original.js';
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
const NAMESPACES = num('NAMESPACES', 30);
const BUNDLES = num('BUNDLES', 10);
const CHANGES = num('CHANGES', 10);
const RATE = num('RATE', 2);
const SETTLE_MS = num('SETTLE_MS', 10_000);
const BURST_TIMEOUT_MS = num('BURST_TIMEOUT_MS', 120_000);
const RUNS = num('RUNS', 1);
const PEERS = (process.env.PEERS ?? 'ours,original')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);
// A source changed twice in one burst would hide its first change behind its second in a slower peer: each once.
if (CHANGES > BUNDLES) throw new Error('CHANGES must not exceed BUNDLES: change k is of source k, each changed once');

const TRUST = 'trust-bench';
const LABEL = 'trust.cert-manager.io/bundle';
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

const pad = (i) => String(i).padStart(4, '0');
const nsName = (i) => `tb-${pad(i)}`;
const bundleName = (j) => `bench-${pad(j)}`;
const sourceName = (j) => `source-${pad(j)}`;

/** A fresh CA certificate, and a line of its base64 that marks it in a bundle. */
function newCert(certs) {
  const certPem = certs.TinyCA.create({ commonName: `bench-${Math.random().toString(36).slice(2)}` }).certPem;
  return { pem: certPem, mark: certPem.split('\n')[2] };
}

async function seed(rt, client, certs) {
  const t = performance.now();
  await client.create(rt.Namespaces, { metadata: { name: TRUST } });
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  await pool(range(NAMESPACES), 24, (i) =>
    client.create(rt.Namespaces, { metadata: { name: nsName(i), labels: { bench: 'targets' } } }),
  );
  await client.create(rt.Namespaces, { metadata: { name: 'tb-sentinel', labels: { bench: 'sentinel' } } });
  for (let j = 0; j < BUNDLES; j++) {
    await client.create(rt.ConfigMaps, {
      metadata: { name: sourceName(j), namespace: TRUST },
      data: { 'ca.crt': newCert(certs).pem },
    });
  }
  await client.create(rt.ConfigMaps, {
    metadata: { name: 'sentinel', namespace: TRUST },
    data: { 'ca.crt': newCert(certs).pem },
  });
  return (performance.now() - t) / 1000;
}

function bundle(name, source, selector) {
  return {
    apiVersion: 'trust.cert-manager.io/v1alpha1',
    kind: 'Bundle',
    metadata: { name },
    spec: {
      sources: [{ configMap: { name: source, key: 'ca.crt' } }],
      target: { configMap: { key: 'ca.crt' }, namespaceSelector: { matchLabels: { bench: selector } } },
    },
  };
}

// ---- the watch: which certificates the targets carry ----

/**
 * Watches the targets in every namespace from the current state on: counts target writes, and resolves
 * expect(bundle, mark, n) once `n` targets of `bundle` carry `mark`, with the time the last one's event arrived.
 */
class TargetWatch {
  constructor(rt, client) {
    this.rt = rt;
    this.client = client;
    this.abort = new AbortController();
    this.carrying = new Map(); // `${bundle} ${mark}` -> Set of namespaces
    this.waiting = new Map(); // `${bundle} ${mark}` -> { n, resolve }
    this.writes = new Set(); // uid/resourceVersion seen
    this.onWrite = () => {};
  }

  async start() {
    const list = await this.client.list(this.rt.ConfigMaps, { labelSelector: LABEL });
    this.running = this.loop(list.metadata.resourceVersion);
  }

  async loop(resourceVersion) {
    let rv = resourceVersion;
    while (!this.abort.signal.aborted) {
      try {
        for await (const e of this.client.watch(this.rt.ConfigMaps, {
          labelSelector: LABEL,
          resourceVersion: rv,
          allowWatchBookmarks: true,
          signal: this.abort.signal,
        })) {
          const at = performance.now();
          if (e.object?.metadata?.resourceVersion) rv = e.object.metadata.resourceVersion;
          if (e.type !== 'ADDED' && e.type !== 'MODIFIED') continue;
          this.onWrite(e.object, at);
          const data = e.object.data?.['ca.crt'] ?? '';
          for (const [key, w] of this.waiting) {
            const [name, mark] = key.split(' ');
            if (e.object.metadata.name !== name || !data.includes(mark)) continue;
            const seen = this.carrying.get(key) ?? new Set();
            seen.add(e.object.metadata.namespace);
            this.carrying.set(key, seen);
            if (seen.size >= w.n) {
              this.waiting.delete(key);
              this.carrying.delete(key);
              w.resolve(at);
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

  /** Resolves with the time the watch sees the `n`th target of `bundle` carrying `mark`. */
  expect(bundle, mark, n) {
    return new Promise((resolve) => this.waiting.set(`${bundle} ${mark}`, { n, resolve }));
  }

  async stop() {
    this.abort.abort();
    await this.running;
  }
}

// ---- the operators ----

const repo = fileURLToPath(new URL('../', import.meta.url));

/** examples/trust-manager bundled with the scaffolded hack/bundle.js's options into a directory with no node_modules. */
async function bundlePort() {
  const out = mkdtempSync(join(tmpdir(), 'ks-trust-manager-bundle-'));
  await build({
    ...bundleOptions(),
    entryPoints: { manager: join(repo, 'examples', 'trust-manager', 'cmd', 'main.ts') },
    outdir: join(out, 'bundle'),
    logLevel: 'error',
  });
  const dir = nodeModulesFreeDir();
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'trust-manager', private: true, type: 'module' })}\n`,
  );
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

/** A TCP port free on 127.0.0.1 now. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Deletes every target, in every namespace, and waits until none is left. */
async function deleteTargets(rt, client) {
  await pool([...Array.from({ length: NAMESPACES }, (_, i) => nsName(i)), 'tb-sentinel', TRUST], 24, (namespace) =>
    client.deleteCollection(rt.ConfigMaps, { namespace, labelSelector: LABEL }),
  );
  for (;;) {
    const left = (await client.list(rt.ConfigMaps, { labelSelector: LABEL })).items.length;
    if (left === 0) return;
    await sleep(200);
  }
}

/** One run of one operator: start → every target written, idle RSS, the burst; then it is stopped. */
async function runOnce({ name, rt, certs, client, apiPid, start, logFile }) {
  await deleteTargets(rt, client);
  const watch = new TargetWatch(rt, client);
  await watch.start();
  const total = NAMESPACES * BUNDLES + 1;
  const written = new Set();
  let allWritten;
  const firstPass = new Promise((resolve) => (allWritten = resolve));
  watch.onWrite = (obj, at) => {
    written.add(`${obj.metadata.namespace}/${obj.metadata.name}`);
    if (written.size === total) allWritten(at);
  };
  const op = await start(logFile);
  const pid = op.proc.pid;
  const died = diesWith(op, name, logFile);
  died.catch(() => {});
  try {
    // 1. Start → every target written.
    const firstAt = await Promise.race([
      firstPass,
      died,
      bound(300_000).then(() => Promise.reject(new Error(`${name}: ${written.size}/${total} targets within 300 s`))),
    ]);
    watch.onWrite = () => {};
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

    // 3. The burst: new certificates for the sources, each fanned out to every namespace.
    const changes = Array.from({ length: CHANGES }, () => newCert(certs));
    const cpu0 = cpuSeconds(pid);
    const api0 = cpuSeconds(apiPid);
    const t0 = performance.now();
    const latencies = [];
    const writes = [];
    const seenAll = [];
    for (let k = 0; k < CHANGES; k++) {
      const j = k;
      await sleep(Math.max(0, t0 + (k * 1000) / RATE - performance.now()));
      const sentAt = performance.now();
      seenAll.push(watch.expect(bundleName(j), changes[k].mark, NAMESPACES).then((at) => latencies.push(at - sentAt)));
      writes.push(
        client.patch(
          rt.ConfigMaps,
          { namespace: TRUST, name: sourceName(j) },
          { data: { 'ca.crt': changes[k].pem } },
          { type: 'merge' },
        ),
      );
    }
    await Promise.all(writes);
    await Promise.race([Promise.all(seenAll), died, bound(BURST_TIMEOUT_MS)]);
    const burstCpu = cpuSeconds(pid) - cpu0;
    const apiCpu = cpuSeconds(apiPid) - api0;
    return {
      startSeconds,
      startCpu,
      idleRss,
      peakRss: statusBytes(pid, 'VmHWM'),
      burstCpu,
      apiCpu,
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
  ? await buildGoOriginal(trustManagerOriginal, { log: (line) => console.error(line) })
  : undefined;
const port = PEERS.includes('ours') ? await bundlePort() : undefined;
const shipped = await deployedManagerResources();
console.log(
  `ours: ${childNode()} ${shipped.nodeOptions.join(' ')} (the scaffolded ENTRYPOINT's and manager.yaml's node flags), ` +
    `bundled into ${port?.dir ?? '-'}; original: ${original ?? '-'}`,
);

const rt = await importRuntime('rest');
const certs = await importRuntime('certs');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const crd = parseYaml(
  readFileSync(
    join(repo, 'examples', 'trust-manager', 'config', 'crd', 'bases', 'trust.cert-manager.io_bundles.yaml'),
    'utf8',
  ),
);
const env = await TestEnvironment.start({ startTimeout: 180_000, crds: [crd] });
const work = mkdtempSync(join(tmpdir(), 'ks-trust-manager-bench-'));
const kubeconfigPath = join(work, 'kubeconfig');
writeFileSync(kubeconfigPath, env.kubeconfigYaml());
const certDir = join(work, 'tls');
mkdirSync(certDir);
const serving = certs.selfSignedCert({ commonName: '127.0.0.1', usage: 'server' });
writeFileSync(join(certDir, 'tls.crt'), serving.certPem);
writeFileSync(join(certDir, 'tls.key'), serving.keyPem);
const client = rt.newClient(env.kubeConfig);
const Bundles = rt.defineResource({
  group: 'trust.cert-manager.io',
  version: 'v1alpha1',
  kind: 'Bundle',
  plural: 'bundles',
  namespaced: false,
});
const base = { PATH: process.env.PATH, HOME: work, KUBECONFIG: kubeconfigPath };

const starters = {
  ours: async (logFile) =>
    spawnOperator(
      childNode(),
      [
        ...shipped.nodeOptions,
        port.script,
        `--trust-namespace=${TRUST}`,
        '--metrics-bind-address=:0',
        '--health-probe-bind-address=:0',
        `--webhook-port=${await freePort()}`,
        `--webhook-cert-path=${certDir}`,
      ],
      { env: base, cwd: port.dir, logFile },
    ),
  original: async (logFile) =>
    spawnOperator(
      original,
      [
        `--kubeconfig=${kubeconfigPath}`,
        `--trust-namespace=${TRUST}`,
        '--leader-elect=false',
        '--metrics-port=0',
        '--readiness-probe-port=0',
        `--webhook-port=${await freePort()}`,
        `--webhook-certificate-dir=${certDir}`,
      ],
      { env: base, cwd: work, logFile },
    ),
};

try {
  const seeded = await seed(rt, client, certs);
  for (let j = 0; j < BUNDLES; j++) await client.create(Bundles, bundle(bundleName(j), sourceName(j), 'targets'));
  await client.create(Bundles, bundle('sentinel', 'sentinel', 'sentinel'));
  console.log(
    `seeded ${NAMESPACES} namespaces, ${BUNDLES} sources and Bundles (${NAMESPACES * BUNDLES} targets) in ${seeded.toFixed(1)} s`,
  );
  const apiPid = apiServerPid(env);
  const results = Object.fromEntries(PEERS.map((p) => [p, []]));
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? PEERS : [...PEERS].reverse();
    for (const name of order) {
      const logFile = join(work, `${name}-${run}.log`);
      const r = await runOnce({ name, rt, certs, client, apiPid, start: starters[name], logFile });
      results[name].push(r);
      console.log(
        `run ${run + 1} ${name}: start → all targets ${r.startSeconds.toFixed(2)} s, idle RSS ${mib(r.idleRss)} MiB, ` +
          `peak ${mib(r.peakRss)} MiB, burst CPU ${r.burstCpu.toFixed(2)} s (kube-apiserver ${r.apiCpu.toFixed(2)} s), ` +
          `latency p50 ${r.p50.toFixed(0)} ms p95 ${r.p95.toFixed(0)} ms, ${r.seen}/${CHANGES} fan-outs seen (${loadLine()})`,
      );
    }
  }

  const median = (name, key) => percentile(results[name]?.map((r) => r[key]) ?? [], 50);
  const rows = [
    [`start → all ${NAMESPACES * BUNDLES + 1} targets written (s)`, 'startSeconds', (x) => x.toFixed(2)],
    ['CPU s by then', 'startCpu', (x) => x.toFixed(2)],
    ['idle RSS, caches full (MiB)', 'idleRss', mib],
    ['peak RSS (MiB)', 'peakRss', mib],
    [`CPU s, ${CHANGES} source changes at ${RATE}/s`, 'burstCpu', (x) => x.toFixed(2)],
    ["kube-apiserver's CPU s, same", 'apiCpu', (x) => x.toFixed(2)],
    [`change → all ${NAMESPACES} targets, p50 (ms)`, 'p50', (x) => x.toFixed(0)],
    ['same, p95 (ms)', 'p95', (x) => x.toFixed(0)],
    ['fan-outs seen', 'seen', (x) => String(x)],
  ];
  console.log(
    `\nexamples/trust-manager beside cert-manager/trust-manager v0.25.0: ${NAMESPACES} namespaces, ${BUNDLES} Bundles; ` +
      `median of ${RUNS} run(s); ${loadLine()}`,
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
