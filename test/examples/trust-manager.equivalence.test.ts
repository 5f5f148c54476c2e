/**
 * examples/trust-manager against cert-manager/trust-manager v0.25.0, the Go original it ports: both run on one control
 * plane, one after the other, through the same scripted steps: Bundles made from ConfigMap, Secret and inline sources
 * (by name and by label selector), a source changed, a namespace relabelled so that a target appears, a Bundle's
 * namespace selector changed so that its targets move (and the emptied ones are deleted), a missing source that then
 * appears, a source that is not a certificate, a Secret target (not enabled), and a target edited by someone else.
 * After each step the target ConfigMaps in the run's namespaces and the Bundles' status must be equal once what
 * differs by nature is normalised: the run's names, uids, timestamps, resourceVersions; of managedFields, the entries
 * of the field manager both write as (`trust-manager`), without their times, are compared too.
 *
 * Then the same AdmissionReviews (valid and invalid Bundles) are posted to both webhook servers over HTTPS (the
 * original is given a self-signed certificate through its flags): allowed or denied, the code and the message must be
 * the same.
 *
 * The original reads a kubeconfig (--kubeconfig), so unlike sealed-secrets (which reads only its pod's service
 * account and so runs in a mount namespace of its own) it runs as a plain process. Each run has its own names (`tm-go`,
 * `tm-ts`): its trust namespace (--trust-namespace), two more namespaces, and Bundles whose names start with the run's
 * and which select the run's namespaces by label; the Go run's Bundles are deleted before the port starts, so that it
 * does not reconcile them. The original is built once (scripts/lib/go-original.js); the port is bundled from its
 * sources against this checkout's runtime (test/support/example-port.ts). Without Go the test is skipped with a
 * warning, and fails under REQUIRE_PARITY=1.
 */
import { request } from 'node:https';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMaps, Namespaces, Secrets, type RestClient } from '../../src/runtime/rest/index.js';
import { TinyCA, selfSignedCert } from '../../src/runtime/certs/index.js';
import { kubeConfigToYaml } from '../../src/runtime/clientcmd/index.js';
import type { KubeObject } from '../../src/runtime/index.js';
import { useControlPlane } from '../support/control-plane.js';
import { eventually } from '../support/eventually.js';
import { bundleExample, exampleDir } from '../support/example-port.js';
import { buildGoOriginal, startProcess, trustManagerOriginal, type RunningOriginal } from '../support/go-original.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { normaliseStrings } from '../support/normalise.js';
import { differingPaths } from '../support/object-diff.js';
import { onPath, peerAvailable } from '../support/peers.js';
import { freePort } from '../support/ports.js';
import { BundleResource } from '../../examples/trust-manager/api/v1alpha1/zz_generated.resources.js';
import type { Bundle, BundleSpec } from '../../examples/trust-manager/api/v1alpha1/bundle_types.js';

const available = peerAvailable(
  'the trust-manager equivalence test (cert-manager/trust-manager v0.25.0 built from the Go module proxy)',
  onPath('go') ? undefined : 'Go is not on PATH',
);

const LABEL = 'trust.cert-manager.io/bundle';
const WEBHOOK_PATH = '/validate-trust-cert-manager-io-v1alpha1-bundle';

// Three CAs, the same for both runs, so that both write the same bundles.
const [ca1, ca2, ca3] = ['root-one', 'root-two', 'root-three'].map(
  (cn) => TinyCA.create({ commonName: cn }).certPem,
) as [string, string, string];

// --- the script -------------------------------------------------------------------------------------------------------

interface Run {
  api: RestClient;
  /** The run's name: the prefix of its namespaces and Bundles, and the value of their `run` label. */
  id: string;
}

const trustNs = (r: Run) => `${r.id}-trust`;
const nsA = (r: Run) => `${r.id}-a`;
const nsB = (r: Run) => `${r.id}-b`;
const namespaces = (r: Run) => [trustNs(r), nsA(r), nsB(r)];
const b64 = (s: string) => Buffer.from(s).toString('base64');

function bundle(r: Run, name: string, spec: BundleSpec): Bundle {
  return { apiVersion: 'trust.cert-manager.io/v1alpha1', kind: 'Bundle', metadata: { name: `${r.id}-${name}` }, spec };
}

async function updateSpec(r: Run, name: string, change: (spec: BundleSpec) => BundleSpec): Promise<void> {
  const current = await r.api.get(BundleResource, { name: `${r.id}-${name}` });
  await r.api.update(BundleResource, { ...current, spec: change(current.spec) });
}

/** The run's namespaces, labelled `run=<id>` (the Bundles select them by it), and the sources in its trust namespace. */
async function seed(r: Run): Promise<void> {
  for (const [name, labels] of [
    [trustNs(r), {}],
    [nsA(r), { env: 'prod' }],
    [nsB(r), { env: 'dev' }],
  ] as const) {
    await r.api.create(Namespaces, { metadata: { name, labels: { run: r.id, ...labels } } });
  }
  await r.api.create(ConfigMaps, { metadata: { name: 'roots', namespace: trustNs(r) }, data: { 'ca.crt': ca1 } });
  await r.api.create(Secrets, {
    metadata: { name: 'more', namespace: trustNs(r) },
    data: { 'ca.crt': b64(ca2 + ca1) },
  });
  await r.api.create(ConfigMaps, {
    metadata: { name: 'labelled', namespace: trustNs(r), labels: { 'trust-source': 'yes' } },
    data: { a: ca3, b: `comment before the block\n${ca1}` },
  });
}

interface Step {
  name: string;
  run(r: Run): Promise<void>;
}

const steps: Step[] = [
  {
    name: 'main: a ConfigMap, a Secret and an inline source, to every namespace of the run',
    run: (r) =>
      r.api
        .create(
          BundleResource,
          bundle(r, 'main', {
            sources: [
              { configMap: { name: 'roots', key: 'ca.crt' } },
              { secret: { name: 'more', key: 'ca.crt' } },
              { inLine: ca2 },
            ],
            target: { configMap: { key: 'trust-bundle.pem' }, namespaceSelector: { matchLabels: { run: r.id } } },
          }),
        )
        .then(() => undefined),
  },
  {
    name: 'selected: every key of ConfigMaps chosen by label, with target metadata, to env=prod only',
    run: (r) =>
      r.api
        .create(
          BundleResource,
          bundle(r, 'selected', {
            sources: [{ configMap: { selector: { matchLabels: { 'trust-source': 'yes' } }, includeAllKeys: true } }],
            target: {
              configMap: {
                key: 'ca.crt',
                metadata: { labels: { team: 'platform' }, annotations: { note: 'managed' } },
              },
              namespaceSelector: { matchLabels: { run: r.id, env: 'prod' } },
            },
          }),
        )
        .then(() => undefined),
  },
  {
    name: "a source changes: roots' ca.crt is another CA",
    run: async (r) => {
      await r.api.patch(
        ConfigMaps,
        { namespace: trustNs(r), name: 'roots' },
        { data: { 'ca.crt': ca3 } },
        { type: 'merge' },
      );
    },
  },
  {
    name: 'namespace b is relabelled env=prod: selected gets a target there',
    run: async (r) => {
      await r.api.patch(Namespaces, { name: nsB(r) }, { metadata: { labels: { env: 'prod' } } }, { type: 'merge' });
    },
  },
  {
    name: "selected's namespace selector changes: its targets move to the trust namespace, the others are deleted",
    run: (r) =>
      updateSpec(r, 'selected', (spec) => ({
        ...spec,
        target: {
          ...spec.target,
          namespaceSelector: {
            matchLabels: { run: r.id },
            matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }],
          },
        },
      })),
  },
  {
    name: 'missing: its source is not there (SourceNotFound)',
    run: (r) =>
      r.api
        .create(
          BundleResource,
          bundle(r, 'missing', {
            sources: [{ configMap: { name: 'late', key: 'ca.crt' } }],
            target: { configMap: { key: 'ca.crt' }, namespaceSelector: { matchLabels: { run: r.id } } },
          }),
        )
        .then(() => undefined),
  },
  {
    name: "missing's source appears",
    run: async (r) => {
      await r.api.create(ConfigMaps, { metadata: { name: 'late', namespace: trustNs(r) }, data: { 'ca.crt': ca2 } });
    },
  },
  {
    name: 'bad: an inline source that is a private key (SourceBuildError), and secret: a Secret target (disabled)',
    run: async (r) => {
      const key = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
      await r.api.create(
        BundleResource,
        bundle(r, 'bad', {
          sources: [{ inLine: key }],
          target: { configMap: { key: 'ca.crt' }, namespaceSelector: { matchLabels: { run: r.id } } },
        }),
      );
      await r.api.create(
        BundleResource,
        bundle(r, 'secret', {
          sources: [{ inLine: ca1 }],
          target: { secret: { key: 'ca.crt' }, namespaceSelector: { matchLabels: { run: r.id } } },
        }),
      );
    },
  },
  {
    name: "someone else edits main's target in namespace a: it is written back",
    run: async (r) => {
      await r.api.patch(
        ConfigMaps,
        { namespace: nsA(r), name: `${r.id}-main` },
        { data: { 'trust-bundle.pem': 'edited' } },
        { type: 'merge', fieldManager: 'someone-else' },
      );
    },
  },
];

// --- what is compared -----------------------------------------------------------------------------------------------

type Snapshot = Record<string, unknown>;

const isSentinel = (name: string | undefined) => name?.includes('sentinel') ?? false;

function normaliseObject(r: Run, obj: KubeObject): unknown {
  const {
    uid: _uid,
    resourceVersion: _rv,
    creationTimestamp: _created,
    managedFields,
    ...metadata
  } = obj.metadata ?? {};
  // Of managedFields, what trust-manager owns: the same field manager name in both.
  const owned = (managedFields ?? []).filter((m) => m.manager === 'trust-manager').map(({ time: _time, ...m }) => m);
  return normaliseStrings(
    { ...obj, metadata: { ...metadata, trustManagerFields: owned } },
    {
      replace: { [r.id]: '<run>' },
      times: true,
    },
  );
}

/** The targets in the run's namespaces and the run's Bundles (their status, generation and spec), normalised. */
async function snapshot(r: Run): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const ns of namespaces(r)) {
    for (const cm of (await r.api.list(ConfigMaps, { namespace: ns, labelSelector: LABEL })).items) {
      if (isSentinel(cm.metadata?.name)) continue;
      out[`ConfigMap/${ns.replace(r.id, '<run>')}/${cm.metadata?.name?.replace(r.id, '<run>')}`] = normaliseObject(
        r,
        cm,
      );
    }
  }
  for (const b of (await r.api.list(BundleResource)).items) {
    const name = b.metadata.name ?? '';
    if (!name.startsWith(`${r.id}-`) || isSentinel(name)) continue;
    out[`Bundle/${name.replace(r.id, '<run>')}`] = normaliseObject(r, b as KubeObject);
  }
  return out;
}

/**
 * A barrier: a new Bundle `<run>-sentinel-<label>`, passed once it is Synced. Each step first waits for what it is
 * about (`settled`), then for the sentinel: the controller works through its queue, so whatever came before is done.
 */
async function barrier(r: Run, label: string, operator: RunningOriginal): Promise<void> {
  const name = `${r.id}-sentinel-${label}`;
  await r.api.create(BundleResource, {
    ...bundle(r, `sentinel-${label}`, {
      sources: [{ inLine: ca1 }],
      target: { configMap: { key: 'x' }, namespaceSelector: { matchLabels: { run: r.id, sentinel: 'none' } } },
    }),
  });
  await eventually(
    async () => {
      const b = await r.api.get(BundleResource, { name });
      return b.status?.conditions?.some((c) => c.type === 'Synced' && c.status === 'True') ?? false;
    },
    { what: `the sync of ${name}`, timeoutMs: 60_000, diagnose: () => operator.output().slice(-4000) },
  );
}

/** What each step must have led to before the barrier (the original's and the port's alike). */
async function settled(r: Run, i: number): Promise<boolean> {
  const cm = (ns: string, name: string) =>
    r.api.get(ConfigMaps, { namespace: ns, name: `${r.id}-${name}` }).catch(() => undefined);
  const synced = async (name: string, reason = 'Synced') =>
    (await r.api.get(BundleResource, { name: `${r.id}-${name}` })).status?.conditions?.some(
      (c) => c.type === 'Synced' && c.reason === reason,
    ) ?? false;
  switch (i) {
    case 0:
      return (await synced('main')) && (await cm(nsB(r), 'main')) !== undefined;
    case 1:
      return (await synced('selected')) && (await cm(nsA(r), 'selected')) !== undefined;
    case 2:
      return ((await cm(nsB(r), 'main'))?.data?.['trust-bundle.pem'] ?? '').includes(ca3.split('\n')[1]!);
    case 3:
      return (await cm(nsB(r), 'selected')) !== undefined;
    case 4:
      return (await cm(nsA(r), 'selected')) === undefined && (await cm(trustNs(r), 'selected')) !== undefined;
    case 5:
      return synced('missing', 'SourceNotFound');
    case 6:
      return (await synced('missing')) && (await cm(nsA(r), 'missing')) !== undefined;
    case 7:
      return (await synced('bad', 'SourceBuildError')) && (await synced('secret', 'SecretTargetsDisabled'));
    case 8:
      return (await cm(nsA(r), 'main'))?.data?.['trust-bundle.pem'] !== 'edited';
    default:
      return true;
  }
}

// --- the webhook ------------------------------------------------------------------------------------------------------

/** AdmissionReviews of Bundles, valid and invalid, and what each is about. */
function reviews(): { name: string; object: unknown; operation: 'CREATE' | 'UPDATE' }[] {
  const valid = {
    sources: [{ configMap: { name: 'roots', key: 'ca.crt' } }],
    target: { configMap: { key: 'trust-bundle.pem' } },
  };
  const withSpec = (name: string, spec: unknown) => ({
    apiVersion: 'trust.cert-manager.io/v1alpha1',
    kind: 'Bundle',
    metadata: { name },
    spec,
  });
  return [
    { name: 'valid', operation: 'CREATE', object: withSpec('ok', valid) },
    { name: 'valid update', operation: 'UPDATE', object: withSpec('ok', { ...valid, sources: [{ inLine: ca1 }] }) },
    { name: 'no sources', operation: 'CREATE', object: withSpec('none', { sources: [], target: valid.target }) },
    {
      name: 'name and selector, key and includeAllKeys',
      operation: 'CREATE',
      object: withSpec('both', {
        sources: [{ secret: { name: 's', selector: { matchLabels: { a: 'b' } }, key: 'k', includeAllKeys: true } }],
        target: valid.target,
      }),
    },
    {
      name: 'neither name nor selector, nor a key',
      operation: 'CREATE',
      object: withSpec('neither', { sources: [{ configMap: {} }], target: valid.target }),
    },
    {
      name: 'two source types in one item, and default CAs twice',
      operation: 'UPDATE',
      object: withSpec('two', {
        sources: [{ inLine: ca1, useDefaultCAs: true }, { useDefaultCAs: false }],
        target: valid.target,
      }),
    },
    {
      name: 'the target as its own source',
      operation: 'CREATE',
      object: withSpec('self', {
        sources: [{ configMap: { name: 'self', key: 'trust-bundle.pem' } }],
        target: valid.target,
      }),
    },
    {
      name: 'reserved and invalid target metadata',
      operation: 'CREATE',
      object: withSpec('meta', {
        sources: valid.sources,
        target: {
          configMap: {
            key: 'k',
            metadata: { annotations: { 'trust-manager.io/x': 'y' }, labels: { 'bad key!': 'v' } },
          },
        },
      }),
    },
    {
      name: 'invalid namespace and source selectors',
      operation: 'CREATE',
      object: withSpec('selectors', {
        sources: [{ configMap: { selector: { matchExpressions: [{ key: 'a', operator: 'In' }] }, key: 'k' } }],
        target: {
          configMap: { key: 'k' },
          namespaceSelector: {
            matchLabels: { env: 'not a value' },
            matchExpressions: [
              { key: 'b', operator: 'Exists', values: ['x'] },
              { key: 'c', operator: 'Near' },
            ],
          },
        },
      }),
    },
  ];
}

/** Posts an AdmissionReview to the webhook on `port` (its certificate is self-signed); resolves to its response. */
function review(port: number, uid: string, operation: string, object: unknown): Promise<Record<string, unknown>> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'trust.cert-manager.io', version: 'v1alpha1', kind: 'Bundle' },
      resource: { group: 'trust.cert-manager.io', version: 'v1alpha1', resource: 'bundles' },
      name: (object as { metadata: { name: string } }).metadata.name,
      operation,
      userInfo: { username: 'test' },
      object,
      ...(operation === 'UPDATE' ? { oldObject: object } : {}),
      options: {},
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: WEBHOOK_PATH,
        method: 'POST',
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          try {
            resolve((JSON.parse(text) as { response: Record<string, unknown> }).response);
          } catch (err) {
            reject(new Error(`webhook on ${port} answered ${res.statusCode}: ${text}`, { cause: err }));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Each review's answer: allowed or not, the status code and message of a denial. */
async function webhookAnswers(port: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [i, r] of reviews().entries()) {
    const res = await review(port, `uid-${i}`, r.operation, r.object);
    const status = res.status as { code?: number; message?: string } | undefined;
    out.push({
      review: r.name,
      uid: res.uid,
      allowed: res.allowed,
      code: res.allowed ? undefined : status?.code,
      message: status?.message || undefined,
    });
  }
  return out;
}

// --- the runs ---------------------------------------------------------------------------------------------------------

describe.skipIf(!available)('examples/trust-manager, the port of cert-manager/trust-manager v0.25.0', () => {
  const cp = useControlPlane({
    crdDirectoryPaths: [join(exampleDir('trust-manager'), 'config', 'crd', 'bases')],
    errorIfCRDPathMissing: true,
  });
  const work = mkdtempSync(join(tmpdir(), 'ks-trust-manager-'));
  let original: string | undefined;
  let port: string | undefined;
  let kubeconfigPath = '';
  const certDir = join(work, 'tls');

  beforeAll(async () => {
    original = await buildGoOriginal(trustManagerOriginal);
    port = await bundleExample('trust-manager', work);
    const kc = cp.env.kubeConfig;
    kubeconfigPath = join(work, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeConfigToYaml(kc));
    // One serving certificate for both webhook servers, as tls.crt and tls.key (the names both read by default).
    const cert = selfSignedCert({ commonName: '127.0.0.1', usage: 'server' });
    mkdirSync(certDir, { recursive: true });
    writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
    writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
  }, GO_BUILD_MS);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Seeds the run, starts the operator, runs every step with its settling and a barrier, then the reviews. */
  async function runScript(r: Run, webhookPort: number, start: () => RunningOriginal) {
    await seed(r);
    const operator = start();
    try {
      await barrier(r, 'start', operator);
      const snapshots: Snapshot[] = [];
      for (const [i, step] of steps.entries()) {
        await step.run(r);
        await eventually(() => settled(r, i), {
          what: `"${step.name}" to settle`,
          timeoutMs: 60_000,
          diagnose: () => operator.output().slice(-4000),
        });
        await barrier(r, `step-${i + 1}`, operator);
        snapshots.push(await snapshot(r));
      }
      return { snapshots, webhook: await webhookAnswers(webhookPort) };
    } finally {
      await operator.stop();
    }
  }

  it('writes what the original writes after every step, and its webhook answers alike', async () => {
    const goRun: Run = { api: cp.api, id: 'tm-go' };
    const goWebhook = await freePort();
    const theirs = await runScript(goRun, goWebhook, () =>
      startProcess(
        original!,
        [
          `--kubeconfig=${kubeconfigPath}`,
          `--trust-namespace=${trustNs(goRun)}`,
          '--leader-elect=false',
          '--metrics-port=0',
          '--readiness-probe-port=0',
          '--webhook-host=127.0.0.1',
          `--webhook-port=${goWebhook}`,
          `--webhook-certificate-dir=${certDir}`,
        ],
        { env: { PATH: process.env.PATH, HOME: work } },
      ),
    );
    // The port must not reconcile the original's Bundles (the API server has no garbage collector here, so their
    // targets stay; they name Bundles that are gone and are left alone).
    for (const b of (await cp.api.list(BundleResource)).items) {
      await cp.api.delete(BundleResource, { name: b.metadata.name! });
    }

    const tsRun: Run = { api: cp.api, id: 'tm-ts' };
    const tsWebhook = await freePort();
    const ours = await runScript(tsRun, tsWebhook, () =>
      startProcess(
        process.execPath,
        [
          port!,
          `--trust-namespace=${trustNs(tsRun)}`,
          '--health-probe-bind-address=0',
          `--webhook-port=${tsWebhook}`,
          `--webhook-cert-path=${certDir}`,
        ],
        { env: { PATH: process.env.PATH, HOME: work, KUBECONFIG: kubeconfigPath } },
      ),
    );

    steps.forEach((step, i) =>
      expect(differingPaths(theirs.snapshots[i], ours.snapshots[i]), `after "${step.name}"`).toEqual([]),
    );
    expect(ours.webhook).toEqual(theirs.webhook);

    // And the script made the original write what each step is about.
    const status = (i: number, name: string) =>
      (theirs.snapshots[i]![`Bundle/<run>-${name}`] as Bundle | undefined)?.status?.conditions?.[0];
    const target = (i: number, ns: string, name: string) =>
      theirs.snapshots[i]![`ConfigMap/<run>-${ns}/<run>-${name}`] as { data?: Record<string, string> } | undefined;
    expect(status(0, 'main')).toMatchObject({
      status: 'True',
      reason: 'Synced',
      message: 'Successfully synced Bundle to namespaces that match this label selector: run=<run>',
    });
    expect(target(0, 'b', 'main')?.data?.['trust-bundle.pem']?.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(target(1, 'a', 'selected')?.data?.['ca.crt']?.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(target(1, 'b', 'selected')).toBeUndefined();
    expect(target(2, 'a', 'main')?.data?.['trust-bundle.pem']?.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
    expect(target(3, 'b', 'selected')).toBeDefined();
    expect(target(4, 'a', 'selected')).toBeUndefined();
    expect(target(4, 'trust', 'selected')).toBeDefined();
    expect(status(5, 'missing')).toMatchObject({
      status: 'False',
      reason: 'SourceNotFound',
      message: 'Bundle source was not found: failed to get ConfigMap <run>-trust/late: ConfigMap "late" not found',
    });
    expect(status(6, 'missing')).toMatchObject({ status: 'True' });
    expect(status(7, 'bad')).toMatchObject({ status: 'False', reason: 'SourceBuildError' });
    expect(status(7, 'secret')).toMatchObject({ status: 'False', reason: 'SecretTargetsDisabled' });
    expect(target(8, 'a', 'main')).toEqual(target(7, 'a', 'main'));
    const answers = theirs.webhook as { allowed: boolean }[];
    expect(answers.map((a) => a.allowed)).toEqual([true, true, false, false, false, false, false, false, false]);
  });
});
