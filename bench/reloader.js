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
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGoOriginal, reloaderOriginal } from '../scripts/lib/go-original.js';
import { apiServerPid, pool } from './replica-lib.js';
import {
  KeyWatch,
  bundleExample,
  childNode,
  deployedManagerResources,
  importEnvtest,
  importRuntime,
  machineLine,
  measureOperator,
  runBesideOriginal,
  spawnOperator,
  useImageNode,
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
// The image runs Node 22: our manager runs on it unless CHILD_NODE says otherwise (runtime-lib's childNode reads it).
useImageNode();

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

// ---- the watch and the run ----

/** The values of the STAKATER_* env vars (hashes) a Deployment's update shows. */
const reloadedHashes = (e) =>
  e.type !== 'MODIFIED'
    ? []
    : (e.object.spec?.template?.spec?.containers ?? []).flatMap((c) => (c.env ?? []).map((v) => v.value));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Start → first pass: the sentinel ConfigMap changed every PROBE_MS until the watch sees the sentinel Deployment
 * rolled (a change made before the informers listed is part of their list, not an event, and rolls nothing).
 */
async function sentinelProbe({ watch, rt, client, runLabel, died }) {
  const probes = [];
  let probing = true;
  let seenAt;
  const seen = new Promise((resolve) => (seenAt = resolve));
  const prober = (async () => {
    for (let n = 0; probing; n++) {
      const s = `${runLabel}-probe-${n}`;
      const hash = configMapHash(s);
      probes.push(hash);
      watch.expect(hash).then(seenAt);
      await client.patch(
        rt.ConfigMaps,
        { namespace: NAMESPACE, name: 'sentinel' },
        { data: configMapData(s) },
        { type: 'merge' },
      );
      await sleep(PROBE_MS);
    }
  })();
  try {
    return await Promise.race([seen, died, prober.then(() => new Promise(() => {}))]);
  } finally {
    probing = false;
    await prober.catch(() => {});
    for (const h of probes) watch.forget(h);
  }
}

/** Change k: ConfigMap i or Secret i (alternately, i = k modulo DEPLOYMENTS), seen when its Deployment rolls. */
function burstChange({ watch, rt, client, runLabel }, k) {
  const i = k % DEPLOYMENTS;
  const s = `${runLabel}-change-${k}`;
  const secret = k % 2 === 1;
  const seen = watch.expect(secret ? secretHash(s) : configMapHash(s));
  const write = secret
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
      );
  return { write, seen };
}

// ---- the run ----

console.log(machineLine());
const original = PEERS.includes('original')
  ? await buildGoOriginal(reloaderOriginal, { log: (line) => console.error(line) })
  : undefined;
const port = PEERS.includes('ours') ? await bundleExample('reloader') : undefined;
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
  await runBesideOriginal({
    title:
      `examples/reloader beside stakater/Reloader v1.4.22: ${CONFIGMAPS} ConfigMaps, ${SECRETS} Secrets, ` +
      `${DEPLOYMENTS} Deployments`,
    peers: PEERS,
    runs: RUNS,
    changes: CHANGES,
    rate: RATE,
    seen: 'reloads',
    runOne: async (name, run) => {
      const watch = new KeyWatch({ client, res: rt.Deployments, namespace: NAMESPACE, keysOf: reloadedHashes });
      await watch.start();
      const ctx = { watch, rt, client, runLabel: `${name}-${run}` };
      try {
        return await measureOperator({
          name,
          start: starters[name],
          logFile: join(work, `${name}-${run}.log`),
          apiPid,
          firstPass: ({ died }) => sentinelProbe({ ...ctx, died }),
          change: (k) => burstChange(ctx, k),
          burst: { changes: CHANGES, rate: RATE, settleMs: SETTLE_MS, burstTimeoutMs: BURST_TIMEOUT_MS },
        });
      } finally {
        await watch.stop();
      }
    },
  });
} finally {
  client.close();
  await env.stop();
  port?.remove();
  if (process.env.KEEP_LOGS) console.log(`logs kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
