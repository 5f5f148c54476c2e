#!/usr/bin/env node
// examples/sealed-secrets beside bitnami-labs/sealed-secrets v0.40.0, the Go original it ports: each run alone, one
// after the other, against one envtest control plane holding SEALED SealedSecrets (default 2,000) in one namespace,
// each with one value of SIZE bytes (default 1 KiB) sealed for the controller's key (KEY_BITS, default 4096: the
// original's --key-size), and their Secrets once a first pass has unsealed them. Both run cluster-wide with their
// default flags and one key Secret, written by this script in the controller's namespace before either starts, so
// that both unseal the same SealedSecrets; neither elects a leader (the original has no leader election; the
// scaffold's --leader-elect would need a namespace out of a cluster).
// - ours: examples/sealed-secrets bundled as its image bundles it (the options of the scaffolded hack/bundle.js, the
//   runtime from its build, src/runtime/dist), run from a directory with no node_modules, on CHILD_NODE (default: the
//   cached Node 22, the image's), with the node flags of the example's Dockerfile ENTRYPOINT and of its manager.yaml's
//   NODE_OPTIONS, metrics over HTTPS and health probes on ports of their own (`:0`), as config/default serves them;
//   POD_NAMESPACE names its namespace, as the Downward API would;
// - original: the controller built from the Go module proxy (scripts/lib/go-original.js, cached under
//   ~/.cache/kubescaffold/go-originals/). It reads only its pod's service account (rest.InClusterConfig; it has no
//   kubeconfig flag), so it runs as test/examples/sealed-secrets.equivalence.test.ts runs it: in a mount namespace of
//   its own (`unshare --mount`, which needs root) with a tmpfs over /run holding the token, the control plane's CA and
//   its namespace at /var/run/secrets/kubernetes.io/serviceaccount, which only it sees; unshare and sh exec into it,
//   so its pid is the controller's. Its HTTP and metrics servers listen on ports of their own.
// Both authenticate with a token of one ServiceAccount bound to the port's generated ClusterRole
// (config/rbac/role.yaml), ours through a kubeconfig, so the kube-apiserver authorizes both alike.
// Everything is measured from outside the processes: RSS and peak RSS from /proc/<pid>/status (VmRSS, VmHWM), CPU
// seconds from /proc/<pid>/stat (and the kube-apiserver's), and unsealing by a watch of this script's own on the
// namespace's Secrets: a value is seen unsealed when a Secret's data carries it.
// Before each run, with no controller running, the script deletes the SealedSecrets' Secrets (they carry a label
// of the SealedSecrets' template) and the SealedSecrets the previous burst created; the SealedSecrets keep the status
// a pass writes (Synced, observedGeneration; the seed writes it too), so each run starts from the same state.
// 1. Start → first pass: from spawning the process until the watch has seen every SealedSecret's Secret made with its
//    current value (the controller's first pass over its initial list: SEALED unseals, SEALED Secrets created, one
//    Unsealed Event each, no status written), within FIRST_PASS_TIMEOUT_MS (default 3600000). CPU seconds by then.
// 2. Idle with caches full: SETTLE_MS (default 15000) after that, the median of 5 RSS samples 0.5 s apart.
// 3. Burst: CHANGES changes (default 200) at RATE a second (default 10), alternately an update of SealedSecret i's
//    sealed value (i = change number / 2 modulo SEALED) and a new SealedSecret; latency from sending each change to
//    the watch seeing its Secret carry the new value, p50 and p95; CPU seconds of the operator and of the
//    kube-apiserver from the first change to the last Secret seen (or BURST_TIMEOUT_MS, default 300000, after the last
//    change). Peak RSS (VmHWM) at the end.
// The original's client is throttled by default (--kubeclient-qps=5 --kubeclient-burst=10: client-go's defaults), and
// each pass makes several requests (the Secret read from the API server and written, the Event; the status on a new
// generation), so it unseals one SealedSecret each 0.8 s whatever the CPU: its first pass over 2,000 takes 27 minutes.
// ORIGINAL_FLAGS adds flags to its command line, e.g. ORIGINAL_FLAGS=--kubeclient-qps=-1 (no throttle); the port has
// no such flag and no client-side throttle.
// RUNS (default 1) runs of each, alternating which goes first; the table shows medians and ours ÷ original.
// PEERS (default ours,original) picks the peers. KEEP_LOGS=1 keeps the controllers' logs. Sizes for a quick run:
// SEALED=200 CHANGES=40 SETTLE_MS=5000 ORIGINAL_FLAGS=--kubeclient-qps=-1.
// Usage: npm run build && node bench/sealed-secrets.js
//        SEALED=200 CHANGES=40 SETTLE_MS=5000 ORIGINAL_FLAGS=--kubeclient-qps=-1 node bench/sealed-secrets.js
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { buildGoOriginal } from '../scripts/lib/go-original.js';
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
const SEALED = num('SEALED', 2000);
const SIZE = num('SIZE', 1024);
const KEY_BITS = num('KEY_BITS', 4096);
const CHANGES = num('CHANGES', 200);
const RATE = num('RATE', 10);
const SETTLE_MS = num('SETTLE_MS', 15_000);
const BURST_TIMEOUT_MS = num('BURST_TIMEOUT_MS', 300_000);
const FIRST_PASS_TIMEOUT_MS = num('FIRST_PASS_TIMEOUT_MS', 3_600_000);
const ORIGINAL_FLAGS = (process.env.ORIGINAL_FLAGS ?? '').split(/\s+/).filter(Boolean);
const RUNS = num('RUNS', 1);
const PEERS = (process.env.PEERS ?? 'ours,original')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);

/** bitnami-labs/sealed-secrets v0.40.0, as the equivalence test builds it. */
const sealedSecretsOriginal = {
  module: 'github.com/bitnami-labs/sealed-secrets',
  version: 'v0.40.0',
  mainPackage: 'cmd/controller',
  binary: 'sealed-secrets-controller',
};

/** The controller's namespace (its key, its ServiceAccount), and the namespace of the SealedSecrets. */
const CONTROLLER_NAMESPACE = 'sealed-secrets';
const NAMESPACE = 'sealed-bench';
/** On every SealedSecret's template, so on every Secret unsealed from one; and on those the burst creates. */
const UNSEALED_LABEL = 'bench.kubescaffold.dev/unsealed';
const BURST_LABEL = 'bench.kubescaffold.dev/burst';
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

// The image runs Node 22: our manager runs on it unless CHILD_NODE says otherwise (runtime-lib's childNode reads it).
useImageNode();

const example = fileURLToPath(new URL('../examples/sealed-secrets/', import.meta.url));

/**
 * The port's own sealing (what kubeseal does: internal/crypto/seal.ts) and its SealedSecret resource, bundled from its
 * TypeScript into bench/out/, where @kubescaffold/runtime (left out of the bundle) resolves to the runtime's build.
 */
async function importPortSealing() {
  const outfile = fileURLToPath(new URL('./out/sealed-secrets/sealing.mjs', import.meta.url));
  await build({
    stdin: {
      contents:
        "export { sealValue } from './internal/crypto/seal.ts';\n" +
        "export { SealedSecretResource } from './api/v1alpha1/zz_generated.resources.ts';\n",
      resolveDir: example,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['@kubescaffold/runtime'],
    logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}

// ---- the objects ----

const pad = (i) => String(i).padStart(5, '0');
const sealedName = (i) => `sealed-${pad(i)}`;
/** SIZE bytes of text that differ with `seed`. */
const payload = (seed) => `${seed}:`.padEnd(SIZE, `${seed}.`).slice(0, SIZE);

/** The key Secret, as the original writes one: kubernetes.io/tls, a PKCS#1 key, labelled active. */
function keySecret(made) {
  const pem = made.privateKey.export({ type: 'pkcs1', format: 'pem' });
  return {
    metadata: {
      name: 'sealing-key',
      namespace: CONTROLLER_NAMESPACE,
      labels: { 'sealedsecrets.bitnami.com/sealed-secrets-key': 'active' },
    },
    type: 'kubernetes.io/tls',
    data: {
      'tls.key': Buffer.from(pem).toString('base64'),
      'tls.crt': Buffer.from(made.certPem).toString('base64'),
    },
  };
}

/** A SealedSecret `name` holding `value` under the key `value`, sealed for `publicKey` in the strict scope. */
function sealedSecret(sealing, publicKey, name, value, labels) {
  const metadata = { name, namespace: NAMESPACE, ...(labels ? { labels } : {}) };
  return {
    apiVersion: 'bitnami.com/v1alpha1',
    kind: 'SealedSecret',
    metadata,
    spec: {
      encryptedData: { value: sealing.sealValue(publicKey, metadata, value) },
      template: { metadata: { labels: { [UNSEALED_LABEL]: 'true' } } },
    },
  };
}

/**
 * The SealedSecrets, each with the status a pass writes (Synced, observedGeneration): written once here, so that no
 * run's first pass writes it and each run starts from the same state.
 */
async function seed({ client, sealing, publicKey, current }) {
  const t = performance.now();
  const stamp = `${new Date().toISOString().slice(0, 19)}Z`;
  await pool(
    Array.from({ length: SEALED }, (_, i) => i),
    24,
    async (i) => {
      const made = await client.create(
        sealing.SealedSecretResource,
        sealedSecret(sealing, publicKey, sealedName(i), current[i]),
      );
      await client.status().update(sealing.SealedSecretResource, {
        ...made,
        status: {
          conditions: [{ type: 'Synced', status: 'True', lastUpdateTime: stamp, lastTransitionTime: stamp }],
          observedGeneration: made.metadata.generation,
        },
      });
    },
  );
  return (performance.now() - t) / 1000;
}

/** A ServiceAccount of the controller's namespace bound to the port's generated ClusterRole, and a token of it. */
async function serviceAccountToken(rt, client) {
  const role = parseYaml(readFileSync(join(example, 'config', 'rbac', 'role.yaml'), 'utf8'));
  await client.create(rt.ClusterRoles, { ...role, metadata: { name: 'sealed-secrets-bench' } });
  await client.create(rt.ServiceAccounts, {
    metadata: { name: 'sealed-secrets-controller', namespace: CONTROLLER_NAMESPACE },
  });
  await client.create(rt.ClusterRoleBindings, {
    metadata: { name: 'sealed-secrets-bench' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sealed-secrets-bench' },
    subjects: [{ kind: 'ServiceAccount', name: 'sealed-secrets-controller', namespace: CONTROLLER_NAMESPACE }],
  });
  const tr = await client.transport.requestJson({
    method: 'POST',
    path: `/api/v1/namespaces/${CONTROLLER_NAMESPACE}/serviceaccounts/sealed-secrets-controller/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 86_400 } },
  });
  return tr.status.token;
}

/** With no controller running: the unsealed Secrets and the SealedSecrets of earlier bursts deleted. */
async function resetState(rt, client, sealing) {
  await client.deleteCollection(sealing.SealedSecretResource, { namespace: NAMESPACE, labelSelector: BURST_LABEL });
  await client.deleteCollection(rt.Secrets, { namespace: NAMESPACE, labelSelector: UNSEALED_LABEL });
}

// ---- the watch and the run ----

/** `name=value` for each value a Secret's add or update carries. */
const unsealedValues = (e) =>
  e.type !== 'ADDED' && e.type !== 'MODIFIED'
    ? []
    : Object.values(e.object.data ?? {}).map((v) => `${e.object.metadata.name}=${Buffer.from(v, 'base64')}`);

/** Start → first pass: every SealedSecret's Secret seen with its current value; the time the last one was seen. */
async function allUnsealed({ watch, current }) {
  const seen = await Promise.all(current.map((value, i) => watch.expect(`${sealedName(i)}=${value}`)));
  return Math.max(...seen);
}

/**
 * Change k: an update of SealedSecret i's value (even k, i = k / 2 modulo SEALED) or a new SealedSecret (odd k), seen
 * when its Secret carries the new value.
 */
function burstChange({ watch, client, sealing, publicKey, current, runLabel }, k) {
  const value = payload(`${runLabel}-change-${k}`);
  if (k % 2 === 1) {
    const name = `burst-${runLabel}-${pad(k)}`;
    const seen = watch.expect(`${name}=${value}`);
    const write = client.create(
      sealing.SealedSecretResource,
      sealedSecret(sealing, publicKey, name, value, { [BURST_LABEL]: 'true' }),
    );
    return { write, seen };
  }
  const i = (k / 2) % SEALED;
  const name = sealedName(i);
  current[i] = value;
  const seen = watch.expect(`${name}=${value}`);
  const { spec } = sealedSecret(sealing, publicKey, name, value);
  const write = client.patch(
    sealing.SealedSecretResource,
    { namespace: NAMESPACE, name },
    { spec: { encryptedData: spec.encryptedData } },
    { type: 'merge' },
  );
  return { write, seen };
}

// ---- the run ----

console.log(machineLine());
const original = PEERS.includes('original')
  ? await buildGoOriginal(sealedSecretsOriginal, { log: (line) => console.error(line) })
  : undefined;
const port = PEERS.includes('ours') ? await bundleExample('sealed-secrets') : undefined;
const shipped = await deployedManagerResources({ project: example });
console.log(
  `ours: ${childNode()} ${shipped.nodeOptions.join(' ')} (the example's Dockerfile ENTRYPOINT's and manager.yaml's ` +
    `node flags), bundled into ${port?.dir ?? '-'}; original: ${original ?? '-'}`,
);

const work = mkdtempSync(join(tmpdir(), 'ks-sealed-secrets-bench-'));
const sealing = await importPortSealing();
const rt = await importRuntime('rest', 'certs', 'clientcmd');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const env = await TestEnvironment.start({
  startTimeout: 180_000,
  crdDirectoryPaths: [join(example, 'config', 'crd', 'bases')],
  errorIfCRDPathMissing: true,
});
const client = rt.newClient(env.kubeConfig);

try {
  const t = performance.now();
  // The sealing key both hold, with its certificate, as a key Secret pairs them.
  const made = rt.selfSignedCert({ commonName: '', usage: 'server', rsaModulusLength: KEY_BITS });
  const privateKey = createPrivateKey(made.keyPem);
  const publicKey = createPublicKey(privateKey);
  console.log(`a ${KEY_BITS}-bit sealing key made in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  for (const name of [CONTROLLER_NAMESPACE, NAMESPACE]) await client.create(rt.Namespaces, { metadata: { name } });
  await client.create(rt.Secrets, keySecret({ privateKey, certPem: made.certPem }));
  const token = await serviceAccountToken(rt, client);
  /** The value each SealedSecret holds now: the burst's updates change it. */
  const current = Array.from({ length: SEALED }, (_, i) => payload(`${sealedName(i)}-seed`));
  const seeded = await seed({ client, sealing, publicKey, current });
  console.log(`seeded ${SEALED} SealedSecrets (${SIZE} B sealed in each) in ${seeded.toFixed(1)} s`);

  // Ours: a kubeconfig with the token. The original: the token, CA and namespace where its pod would have them.
  const kc = env.kubeConfig;
  const kubeconfigPath = join(work, 'kubeconfig');
  writeFileSync(
    kubeconfigPath,
    rt.kubeConfigToYaml({ server: kc.server, tls: { caData: kc.tls?.caData ?? '' }, auth: { token } }),
  );
  const sa = join(work, 'serviceaccount');
  mkdirSync(sa);
  writeFileSync(join(sa, 'token'), token);
  writeFileSync(join(sa, 'ca.crt'), kc.tls?.caData ?? '');
  writeFileSync(join(sa, 'namespace'), CONTROLLER_NAMESPACE);
  const server = new URL(kc.server);
  const mountServiceAccount = `mount -t tmpfs tmpfs /run && mkdir -p ${SA_DIR} && cp "$SA_SOURCE"/* ${SA_DIR}/ && exec "$@"`;

  const starters = {
    ours: (logFile) =>
      spawnOperator(
        childNode(),
        [
          ...shipped.nodeOptions,
          port.script,
          '--metrics-bind-address=:0',
          '--health-probe-bind-address=:0',
          '--listen-addr=127.0.0.1:0',
        ],
        {
          env: { PATH: process.env.PATH, HOME: work, KUBECONFIG: kubeconfigPath, POD_NAMESPACE: CONTROLLER_NAMESPACE },
          cwd: port.dir,
          logFile,
        },
      ),
    original: (logFile) =>
      spawnOperator(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          mountServiceAccount,
          'sh',
          original,
          '--listen-addr=127.0.0.1:0',
          '--listen-metrics-addr=127.0.0.1:0',
          ...ORIGINAL_FLAGS,
        ],
        {
          env: {
            PATH: process.env.PATH,
            HOME: work,
            SA_SOURCE: sa,
            KUBERNETES_SERVICE_HOST: server.hostname,
            KUBERNETES_SERVICE_PORT: server.port,
          },
          cwd: work,
          logFile,
        },
      ),
  };

  const apiPid = apiServerPid(env);
  await runBesideOriginal({
    title:
      `examples/sealed-secrets beside bitnami-labs/sealed-secrets v0.40.0` +
      `${ORIGINAL_FLAGS.length > 0 ? ` (${ORIGINAL_FLAGS.join(' ')})` : ''}: ` +
      `${SEALED} SealedSecrets (${SIZE} B, a ${KEY_BITS}-bit key)`,
    peers: PEERS,
    runs: RUNS,
    changes: CHANGES,
    rate: RATE,
    seen: 'Secrets',
    runOne: async (name, run) => {
      await resetState(rt, client, sealing);
      const watch = new KeyWatch({ client, res: rt.Secrets, namespace: NAMESPACE, keysOf: unsealedValues });
      await watch.start();
      const ctx = { watch, client, sealing, publicKey, current, runLabel: `${name}-${run}` };
      try {
        return await measureOperator({
          name,
          start: starters[name],
          logFile: join(work, `${name}-${run}.log`),
          apiPid,
          firstPass: () => allUnsealed(ctx),
          change: (k) => burstChange(ctx, k),
          burst: {
            changes: CHANGES,
            rate: RATE,
            settleMs: SETTLE_MS,
            burstTimeoutMs: BURST_TIMEOUT_MS,
            firstPassTimeoutMs: FIRST_PASS_TIMEOUT_MS,
          },
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
