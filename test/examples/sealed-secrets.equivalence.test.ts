/**
 * examples/sealed-secrets against bitnami-labs/sealed-secrets v0.40.0, the Go original it ports: both run on one
 * control plane, one after the other, each in a namespace of its own, through the same scripted steps (SealedSecrets
 * created, changed in spec and in metadata only, sealed for another key, aimed at a Secret they do not own, their
 * Secrets deleted, and deleted themselves). After each step the SealedSecrets' status (the Synced condition and
 * observedGeneration), the Secrets they unsealed and the Events they recorded must be equal once what differs by nature
 * is normalised: the namespace, uids, timestamps, resourceVersions, managedFields, and the ciphertexts (sealed afresh
 * for each namespace).
 *
 * A third test starts each without a key: both must write the same key Secret (a PKCS#1 RSA key of --key-size, its
 * certificate's subject and validity from --my-cn and --key-ttl, labelled active), unseal what is sealed for it, and
 * answer kubeseal's HTTP API alike (/v1/cert.pem, /v1/verify, /healthz).
 *
 * Both controllers run as their Deployments run them: with the ServiceAccount token of a ServiceAccount bound to the
 * port's generated ClusterRole (config/rbac/role.yaml), so that the test also shows the port's RBAC markers grant
 * what the original needs. The original reads only its pod's service account (rest.InClusterConfig, no kubeconfig
 * flag): it runs in a mount namespace of its own (unshare) with the token, the control plane's CA and its namespace at
 * /var/run/secrets/kubernetes.io/serviceaccount, on a tmpfs that only it sees. Both use one sealing key, written by
 * the test as the controller's key Secret before each starts.
 *
 * The original is built once (test/support/go-original.ts); the port is bundled from its sources against this
 * checkout's runtime (test/support/example-port.ts). Without Go or unshare the test is skipped with a warning, and
 * fails under REQUIRE_PARITY=1.
 */
import { spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClusterRoleBindings,
  ClusterRoles,
  CoreEvents,
  Secrets,
  ServiceAccounts,
  type RestClient,
} from '../../src/runtime/rest/index.js';
import { selfSignedCert } from '../../src/runtime/certs/index.js';
import { kubeConfigToYaml } from '../../src/runtime/clientcmd/index.js';
import type { k8s, KubeObject } from '../../src/runtime/index.js';
import { useControlPlane } from '../support/control-plane.js';
import { eventually } from '../support/eventually.js';
import { bundleExample, exampleDir } from '../support/example-port.js';
import { buildGoOriginal, startProcess, type GoOriginal, type RunningOriginal } from '../support/go-original.js';
import { goEnv } from '../support/kubebuilder.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { normaliseStrings } from '../support/normalise.js';
import { differingPaths } from '../support/object-diff.js';
import { onPath, peerAvailable } from '../support/peers.js';
import { freePort } from '../support/ports.js';
import { SealedSecretResource } from '../../examples/sealed-secrets/api/v1alpha1/zz_generated.resources.js';
import type { SealedSecret } from '../../examples/sealed-secrets/api/v1alpha1/sealedsecret_types.js';
import { sealValue } from '../../examples/sealed-secrets/internal/crypto/seal.js';

const ORIGINAL: GoOriginal = {
  module: 'github.com/bitnami-labs/sealed-secrets',
  version: 'v0.40.0',
  mainPackage: 'cmd/controller',
  binary: 'sealed-secrets-controller',
};

/** Whether this machine can give a process a mount namespace of its own (root, util-linux's unshare). */
function canUnshare(): string | undefined {
  if (!onPath('unshare')) return 'unshare is not on PATH';
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `unshare --mount fails here: ${r.stderr.trim()}`;
}

const available = peerAvailable(
  'the sealed-secrets equivalence test (bitnami-labs/sealed-secrets v0.40.0 built from the Go module proxy)',
  onPath('go') ? canUnshare() : 'Go is not on PATH',
);

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const MAX_RETRIES = 2;

/**
 * The flags both run with: their own namespace only, a failed pass retried twice, no key renewal; the original's HTTP
 * servers on ports of their own.
 */
const commonFlags = ['--all-namespaces=false', `--max-unseal-retries=${MAX_RETRIES}`, '--key-renew-period=0'];

// --- the script -------------------------------------------------------------------------------------------------------

interface Run {
  api: RestClient;
  namespace: string;
  /** The public half of the key both controllers hold. */
  sealer: KeyObject;
  /** The public half of a key neither holds. */
  stranger: KeyObject;
}

interface Step {
  name: string;
  run(r: Run): Promise<void>;
  /** What the step must have led to before the barrier: retries that end in giving up, for one. */
  settled?(r: Run): Promise<boolean>;
}

function sealedSecret(
  r: Run,
  name: string,
  values: Record<string, string>,
  opts: { key?: KeyObject; spec?: Partial<SealedSecret['spec']>; labels?: Record<string, string> } = {},
): SealedSecret {
  const meta = { name, namespace: r.namespace, ...(opts.labels ? { labels: opts.labels } : {}) };
  const encryptedData = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, sealValue(opts.key ?? r.sealer, meta, v)]),
  );
  return {
    apiVersion: 'bitnami.com/v1alpha1',
    kind: 'SealedSecret',
    metadata: meta,
    spec: { ...opts.spec, encryptedData },
  };
}

async function replaceSpec(r: Run, name: string, spec: SealedSecret['spec']): Promise<void> {
  const current = await r.api.get(SealedSecretResource, { namespace: r.namespace, name });
  await r.api.update(SealedSecretResource, { ...current, spec });
}

/** How often the controller recorded an Event of `reason` about `name`. */
async function eventCount(r: Run, name: string, reason: string): Promise<number> {
  const events = (await r.api.list(CoreEvents, { namespace: r.namespace })).items;
  return events
    .filter((e) => e.involvedObject.name === name && e.reason === reason)
    .reduce((n, e) => n + (e.count ?? 1), 0);
}

const steps: Step[] = [
  {
    name: 'db is created, with a template',
    run: async (r) => {
      await r.api.create(
        SealedSecretResource,
        sealedSecret(
          r,
          'db',
          { user: 'admin', password: 'hunter2' },
          {
            spec: {
              template: { type: 'Opaque', metadata: { labels: { app: 'db' }, annotations: { team: 'storage' } } },
            },
          },
        ),
      );
    },
  },
  {
    name: "db's spec changes: a new value, a new label, a value rendered from a template",
    run: async (r) => {
      const next = sealedSecret(
        r,
        'db',
        { user: 'admin', password: 'hunter3', port: '5432' },
        {
          spec: {
            template: {
              type: 'Opaque',
              metadata: { labels: { app: 'db', tier: 'data' } },
              data: { url: 'postgres://{{ .user }}@db:{{ index . "port" }}' },
            },
          },
        },
      );
      await replaceSpec(r, 'db', next.spec);
    },
  },
  {
    name: "db's metadata changes only (not unsealed again)",
    run: async (r) => {
      await r.api.patch(
        SealedSecretResource,
        { namespace: r.namespace, name: 'db' },
        { metadata: { labels: { touched: 'yes' } } },
        { type: 'merge' },
      );
    },
  },
  {
    name: 'broken is created, sealed for another key (retried, then given up)',
    run: async (r) => {
      await r.api.create(SealedSecretResource, sealedSecret(r, 'broken', { token: 't' }, { key: r.stranger }));
    },
    settled: async (r) => (await eventCount(r, 'broken', 'ErrUnsealFailed')) === MAX_RETRIES + 1,
  },
  {
    name: 'taken is created over a Secret it does not own',
    run: async (r) => {
      await r.api.create(Secrets, { metadata: { name: 'taken', namespace: r.namespace }, data: { mine: 'eA==' } });
      await r.api.create(SealedSecretResource, sealedSecret(r, 'taken', { theirs: 'y' }));
    },
    settled: async (r) => (await eventCount(r, 'taken', 'ErrUpdateFailed')) === MAX_RETRIES + 1,
  },
  {
    name: "taken's Secret is handed over (managed), and taken changes",
    run: async (r) => {
      await r.api.patch(
        Secrets,
        { namespace: r.namespace, name: 'taken' },
        { metadata: { annotations: { 'sealedsecrets.bitnami.com/managed': 'true' } } },
        { type: 'merge' },
      );
      await replaceSpec(r, 'taken', sealedSecret(r, 'taken', { theirs: 'z' }).spec);
    },
  },
  {
    name: "db's Secret is deleted (made again)",
    run: async (r) => {
      const before = await r.api.get(Secrets, { namespace: r.namespace, name: 'db' });
      await r.api.delete(Secrets, { namespace: r.namespace, name: 'db' });
      await eventually(
        async () =>
          (await r.api.get(Secrets, { namespace: r.namespace, name: 'db' }).catch(() => undefined))?.metadata?.uid !==
          before.metadata?.uid,
        { what: "db's Secret made again" },
      );
    },
  },
  {
    name: 'broken is sealed again, for the right key',
    run: async (r) => {
      await replaceSpec(r, 'broken', sealedSecret(r, 'broken', { token: 't' }).spec);
    },
  },
  {
    name: 'db is deleted',
    run: async (r) => {
      await r.api.delete(SealedSecretResource, { namespace: r.namespace, name: 'db' });
    },
  },
];

// --- what is compared -----------------------------------------------------------------------------------------------

/** Replaces the run's namespace, every uid and every timestamp in string values. */
function normalise(value: unknown, namespace: string): unknown {
  return normaliseStrings(value, { replace: { [namespace]: '<ns>' }, times: true });
}

function normaliseObject(obj: KubeObject, namespace: string): unknown {
  const { uid: _uid, resourceVersion: _rv, managedFields: _managed, ...metadata } = obj.metadata ?? {};
  return normalise({ ...obj, metadata }, namespace);
}

/** An Event as recorded: what happened to which object, by whom, how often; not its name, times or instance. */
function normaliseEvent(e: k8s.CoreV1Event, namespace: string): unknown {
  const { uid: _uid, resourceVersion: _rv, ...involved } = e.involvedObject;
  return normalise(
    {
      involvedObject: involved,
      type: e.type,
      reason: e.reason,
      message: e.message,
      source: { component: e.source?.component },
      count: e.count,
    },
    namespace,
  );
}

type Snapshot = Record<string, unknown>;

const isSentinel = (name: string | undefined): boolean => name?.startsWith('sentinel') ?? false;

/** The SealedSecrets (ciphertexts left out), the Secrets but the keys, and the Events, normalised. */
async function snapshot(r: Run): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const ss of (await r.api.list(SealedSecretResource, { namespace: r.namespace })).items) {
    if (isSentinel(ss.metadata?.name)) continue;
    const { encryptedData: _sealed, ...spec } = ss.spec;
    out[`SealedSecret/${ss.metadata?.name}`] = normaliseObject({ ...ss, spec } as KubeObject, r.namespace);
  }
  for (const s of (await r.api.list(Secrets, { namespace: r.namespace })).items) {
    const name = s.metadata?.name;
    // The keys are compared on their own (a generated one's name and content differ by nature).
    if (isSentinel(name) || s.metadata?.labels?.['sealedsecrets.bitnami.com/sealed-secrets-key']) continue;
    out[`Secret/${name}`] = normaliseObject(s as KubeObject, r.namespace);
  }
  out.events = (await r.api.list(CoreEvents, { namespace: r.namespace })).items
    .filter((e) => !isSentinel(e.involvedObject.name))
    .map((e) => JSON.stringify(normaliseEvent(e, r.namespace)))
    .sort()
    .map((e) => JSON.parse(e) as unknown);
  return out;
}

/**
 * A barrier: a new SealedSecret `sentinel-<label>`, passed once its Secret is there, its status Synced and its
 * Unsealed Event written. The controller works one request at a time, in order, so whatever came before is done.
 */
async function barrier(r: Run, label: string, operator: RunningOriginal, timeoutMs: number): Promise<void> {
  const name = `sentinel-${label}`;
  await r.api.create(SealedSecretResource, sealedSecret(r, name, { step: label }));
  await eventually(
    async () => {
      const ss = await r.api.get(SealedSecretResource, { namespace: r.namespace, name });
      const synced = ss.status?.conditions?.some((c) => c.type === 'Synced' && c.status === 'True');
      const secret = await r.api.get(Secrets, { namespace: r.namespace, name }).catch(() => undefined);
      return Boolean(synced && secret && (await eventCount(r, name, 'Unsealed')) > 0);
    },
    { what: `the unsealing of ${name}`, timeoutMs, diagnose: () => operator.output().slice(-4000) },
  );
}

/** The controller's key Secret, as the original writes one: kubernetes.io/tls, PKCS#1 key, labelled active. */
function keySecret(namespace: string, sealer: { privateKey: KeyObject; certPem: string }): k8s.V1Secret {
  return {
    metadata: { name: 'sealing-key', namespace, labels: { 'sealedsecrets.bitnami.com/sealed-secrets-key': 'active' } },
    type: 'kubernetes.io/tls',
    data: {
      'tls.key': Buffer.from(sealer.privateKey.export({ type: 'pkcs1', format: 'pem' })).toString('base64'),
      'tls.crt': Buffer.from(sealer.certPem).toString('base64'),
    },
  };
}

/** Seeds the key, starts the operator, waits until it unseals, then runs every step with a barrier and snapshots. */
async function runScript(
  r: Run,
  sealer: { privateKey: KeyObject; certPem: string },
  start: () => RunningOriginal,
): Promise<Snapshot[]> {
  await r.api.create(Secrets, keySecret(r.namespace, sealer));
  const operator = start();
  try {
    await barrier(r, 'start', operator, 60_000);
    const snapshots: Snapshot[] = [];
    for (const [i, step] of steps.entries()) {
      await step.run(r);
      if (step.settled) {
        const settled = step.settled;
        await eventually(() => settled(r), {
          what: `"${step.name}" to settle`,
          diagnose: () => operator.output().slice(-4000),
        });
      }
      await barrier(r, `step-${i + 1}`, operator, 60_000);
      snapshots.push(await snapshot(r));
    }
    return snapshots;
  } finally {
    await operator.stop();
  }
}

describe.skipIf(!available)('examples/sealed-secrets, the port of bitnami-labs/sealed-secrets v0.40.0', () => {
  const cp = useControlPlane({
    crdDirectoryPaths: [join(exampleDir('sealed-secrets'), 'config', 'crd', 'bases')],
    errorIfCRDPathMissing: true,
  });
  const work = mkdtempSync(join(tmpdir(), 'ks-sealed-secrets-'));
  let original: string | undefined;
  let port: string | undefined;
  // The sealing key both hold, with its certificate, as a key Secret pairs them.
  const made = selfSignedCert({ commonName: '', usage: 'server', rsaModulusLength: 2048 });
  const sealer = { privateKey: createPrivateKey(made.keyPem), certPem: made.certPem };
  const sealerPublic = createPublicKey(sealer.privateKey);

  beforeAll(async () => {
    original = await buildGoOriginal(ORIGINAL);
    port = await bundleExample('sealed-secrets', work);
  }, GO_BUILD_MS);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A ServiceAccount bound to the port's generated ClusterRole, and a token of it. */
  async function serviceAccount(namespace: string): Promise<string> {
    const role = parseYaml(
      readFileSync(join(exampleDir('sealed-secrets'), 'config', 'rbac', 'role.yaml'), 'utf8'),
    ) as k8s.V1ClusterRole;
    const roleName = `sealed-secrets-${namespace}`;
    await cp.api.create(ClusterRoles, { ...role, metadata: { name: roleName } });
    await cp.api.create(ServiceAccounts, { metadata: { name: 'sealed-secrets-controller', namespace } });
    await cp.api.create(ClusterRoleBindings, {
      metadata: { name: roleName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: 'sealed-secrets-controller', namespace }],
    });
    const tr = await cp.api.transport.requestJson<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/serviceaccounts/sealed-secrets-controller/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    return tr.status.token;
  }

  it("writes the original's CRD from the port's types", () => {
    const download = spawnSync('go', ['mod', 'download', '-json', `${ORIGINAL.module}@${ORIGINAL.version}`], {
      cwd: work,
      env: goEnv(),
      encoding: 'utf8',
    });
    const dir = (JSON.parse(download.stdout) as { Dir: string }).Dir;
    const crd = (path: string): Record<string, unknown> => {
      const doc = parseYaml(readFileSync(path, 'utf8')) as { metadata: { annotations?: Record<string, string> } };
      delete doc.metadata.annotations; // the generator's name and version
      return doc as unknown as Record<string, unknown>;
    };
    expect(
      differingPaths(
        crd(join(dir, 'helm', 'sealed-secrets', 'crds', 'bitnami.com_sealedsecrets.yaml')),
        crd(join(exampleDir('sealed-secrets'), 'config', 'crd', 'bases', 'bitnami.com_sealedsecrets.yaml')),
      ),
    ).toEqual([]);
  }, 120_000);

  /**
   * Starts the original with a ServiceAccount of `namespace` (its own namespace) and `flags`: in a mount namespace of
   * its own, a tmpfs over /run (/var/run links to it) that only it sees, with the service account on it.
   */
  async function startOriginal(namespace: string, flags: string[]): Promise<() => RunningOriginal> {
    const kc = cp.env.kubeConfig;
    const server = new URL(kc.server);
    const sa = join(work, `serviceaccount-${namespace}`);
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), await serviceAccount(namespace));
    writeFileSync(join(sa, 'ca.crt'), kc.tls?.caData ?? '');
    writeFileSync(join(sa, 'namespace'), namespace);
    const script = `mount -t tmpfs tmpfs /run && mkdir -p ${SA_DIR} && cp "$SA_SOURCE"/* ${SA_DIR}/ && exec "$@"`;
    const args = ['--listen-addr=127.0.0.1:0', '--listen-metrics-addr=127.0.0.1:0', ...flags];
    return () =>
      startProcess('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', original!, ...args], {
        env: {
          PATH: process.env.PATH,
          HOME: work,
          SA_SOURCE: sa,
          KUBERNETES_SERVICE_HOST: server.hostname,
          KUBERNETES_SERVICE_PORT: server.port,
          POD_NAMESPACE: namespace,
        },
      });
  }

  /** Starts the port with a kubeconfig holding the token of a ServiceAccount of `namespace`, and `flags`. */
  async function startPort(namespace: string, flags: string[]): Promise<() => RunningOriginal> {
    const kc = cp.env.kubeConfig;
    const kubeconfigPath = join(work, `kubeconfig-${namespace}`);
    const token = await serviceAccount(namespace);
    writeFileSync(
      kubeconfigPath,
      kubeConfigToYaml({ server: kc.server, tls: { caData: kc.tls?.caData ?? '' }, auth: { token } }),
    );
    return () =>
      startProcess(process.execPath, [port!, '--health-probe-bind-address=0', ...flags], {
        env: { PATH: process.env.PATH, HOME: work, KUBECONFIG: kubeconfigPath, POD_NAMESPACE: namespace },
      });
  }

  it('writes what the original writes after every step: the same statuses, Secrets and Events', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;

    const goNamespace = await cp.namespace('sealed-go');
    const goRun: Run = { api: cp.api, namespace: goNamespace, sealer: sealerPublic, stranger };
    const theirs = await runScript(goRun, sealer, await startOriginal(goNamespace, commonFlags));

    const tsNamespace = await cp.namespace('sealed-ts');
    const tsRun: Run = { api: cp.api, namespace: tsNamespace, sealer: sealerPublic, stranger };
    const ours = await runScript(tsRun, sealer, await startPort(tsNamespace, commonFlags));

    steps.forEach((step, i) => expect(differingPaths(theirs[i], ours[i]), `after "${step.name}"`).toEqual([]));

    // And the script made the original write what each step is about.
    const status = (i: number, name: string) => (theirs[i]![`SealedSecret/${name}`] as SealedSecret).status;
    const data = (i: number, name: string) =>
      Object.fromEntries(
        Object.entries((theirs[i]![`Secret/${name}`] as k8s.V1Secret).data ?? {}).map(([k, v]) => [
          k,
          Buffer.from(v, 'base64').toString(),
        ]),
      );
    expect(status(0, 'db')).toMatchObject({ observedGeneration: 1, conditions: [{ type: 'Synced', status: 'True' }] });
    expect(data(0, 'db')).toEqual({ user: 'admin', password: 'hunter2' });
    expect(data(1, 'db')).toEqual({
      user: 'admin',
      password: 'hunter3',
      port: '5432',
      url: 'postgres://admin@db:5432',
    });
    expect(status(2, 'db')).toEqual(status(1, 'db'));
    expect(status(3, 'broken')).toMatchObject({
      conditions: [{ status: 'False', message: 'no key could decrypt secret (token)' }],
    });
    expect(data(4, 'taken')).toEqual({ mine: 'x' });
    expect(status(5, 'taken')).toMatchObject({ conditions: [{ status: 'True' }] });
    expect(data(5, 'taken')).toEqual({ theirs: 'z' });
    expect(data(7, 'broken')).toEqual({ token: 't' });
    expect(theirs[8]!['SealedSecret/db']).toBeUndefined();
  }, 600_000);

  it('makes the same key Secret when it starts without one, and unseals what is sealed for it', async () => {
    /** Starts the controller in a namespace without a key; seals `first` for the key it makes; snapshots. */
    async function firstKey(namespace: string, listen: number, start: () => RunningOriginal): Promise<Snapshot> {
      const operator = start();
      try {
        let key: k8s.V1Secret | undefined;
        await eventually(
          async () => {
            const { items } = await cp.api.list(Secrets, {
              namespace,
              labelSelector: 'sealedsecrets.bitnami.com/sealed-secrets-key=active',
            });
            key = items[0];
            return key !== undefined;
          },
          { what: `the key Secret in ${namespace}`, timeoutMs: 60_000, diagnose: () => operator.output().slice(-4000) },
        );
        if (!key) throw new Error('unreachable: eventually resolved without a key');
        const cert = new X509Certificate(Buffer.from(key.data?.['tls.crt'] ?? '', 'base64'));
        const r: Run = { api: cp.api, namespace, sealer: cert.publicKey, stranger: cert.publicKey };
        await r.api.create(SealedSecretResource, sealedSecret(r, 'first', { hello: 'world' }));
        await barrier(r, 'first', operator, 60_000);
        // The HTTP API kubeseal calls: the certificate to seal for, and whether a SealedSecret opens.
        const http = async (path: string, body?: unknown) => {
          const res = await fetch(
            `http://127.0.0.1:${listen}${path}`,
            body ? { method: 'POST', body: JSON.stringify(body) } : {},
          );
          return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
        };
        const served = await http('/v1/cert.pem');
        const first = await r.api.get(SealedSecretResource, { namespace, name: 'first' });
        const foreign = sealedSecret(
          r,
          'first',
          { hello: 'world' },
          { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey },
        );
        const api = {
          certIsTheKeys: served.body === Buffer.from(key.data?.['tls.crt'] ?? '', 'base64').toString(),
          cert: { status: served.status, type: served.type },
          verifyOwn: (await http('/v1/verify', first)).status,
          verifyForeign: (await http('/v1/verify', foreign)).status,
          healthz: await http('/healthz'),
        };
        const privateKeyPem = Buffer.from(key.data?.['tls.key'] ?? '', 'base64').toString();
        const out = await snapshot(r);
        out.api = api;
        out.key = normalise(
          {
            name: key.metadata?.name?.replace(/[a-z0-9]{5}$/, '<generated>'),
            generateName: key.metadata?.generateName,
            labels: key.metadata?.labels,
            type: key.type,
            dataKeys: Object.keys(key.data ?? {}).sort(),
            // What kubeseal and the original read of it: a PKCS#1 RSA key of --key-size, its certificate's public key
            // and validity (--key-ttl), its subject (--my-cn).
            keyPem: privateKeyPem.split('\n')[0],
            bits: createPrivateKey(privateKeyPem).asymmetricKeyDetails?.modulusLength,
            matches: cert.checkPrivateKey(createPrivateKey(privateKeyPem)),
            validForDays: Math.round((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000),
            subject: cert.subject,
          },
          namespace,
        );
        return out;
      } finally {
        await operator.stop();
      }
    }
    const flags = [
      '--all-namespaces=false',
      '--key-renew-period=0',
      '--key-size=2048',
      '--key-ttl=720h',
      '--my-cn=sealer',
    ];
    const goNamespace = await cp.namespace('sealed-key-go');
    const goListen = await freePort();
    const theirs = await firstKey(
      goNamespace,
      goListen,
      await startOriginal(goNamespace, [...flags, `--listen-addr=127.0.0.1:${goListen}`]),
    );
    const tsNamespace = await cp.namespace('sealed-key-ts');
    const tsListen = await freePort();
    const ours = await firstKey(
      tsNamespace,
      tsListen,
      await startPort(tsNamespace, [...flags, `--listen-addr=127.0.0.1:${tsListen}`]),
    );

    expect(differingPaths(theirs, ours)).toEqual([]);
    expect(theirs.key).toEqual({
      name: 'sealed-secrets-key<generated>',
      generateName: 'sealed-secrets-key',
      labels: { 'sealedsecrets.bitnami.com/sealed-secrets-key': 'active' },
      type: 'kubernetes.io/tls',
      dataKeys: ['tls.crt', 'tls.key'],
      keyPem: '-----BEGIN RSA PRIVATE KEY-----',
      bits: 2048,
      matches: true,
      validForDays: 30,
      subject: 'CN=sealer',
    });
    expect(theirs.api).toEqual({
      certIsTheKeys: true,
      cert: { status: 200, type: 'application/x-pem-file' },
      verifyOwn: 200,
      verifyForeign: 409,
      healthz: { status: 200, type: 'text/plain; charset=utf-8', body: 'ok\n' },
    });
    expect(theirs['Secret/first']).toMatchObject({ data: { hello: Buffer.from('world').toString('base64') } });
  }, 300_000);
});
