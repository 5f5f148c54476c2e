/**
 * examples/reloader against stakater/Reloader v1.4.22, the Go original it ports: both run on one control plane, one
 * after the other, through the same scripted steps (ConfigMaps and Secrets created, changed, ignored and deleted
 * under workloads of every kind Reloader rolls). After each step the workloads, the Jobs they made and the Events they
 * recorded must be equal once what differs by nature is normalised: names the server generates, uids, timestamps,
 * resourceVersions, managedFields and the namespace each run had to itself.
 *
 * The original is built once (test/support/go-original.ts) and run with a kubeconfig file; the port is bundled from its
 * sources against this checkout's runtime (test/support/example-port.ts) and run with node. Without Go the test is
 * skipped with a warning, and fails under REQUIRE_PARITY=1.
 *
 * Building the original needs a replace (scripts/lib/go-original.js's reloaderOriginal says which and why): its go.mod
 * pins github.com/openshift/api at a pseudo-version the Go module proxy refuses (403).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigMaps,
  CoreEvents,
  CronJobs,
  DaemonSets,
  Deployments,
  Jobs,
  Secrets,
  StatefulSets,
  type RestClient,
} from '../../src/runtime/rest/index.js';
import type { k8s, KubeObject } from '../../src/runtime/index.js';
import { useControlPlane } from '../support/control-plane.js';
import { eventually } from '../support/eventually.js';
import { bundleExample } from '../support/example-port.js';
import {
  buildGoOriginal,
  reloaderOriginal,
  runGoOriginal,
  startProcess,
  type RunningOriginal,
} from '../support/go-original.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { normaliseStrings } from '../support/normalise.js';
import { differingPaths } from '../support/object-diff.js';
import { onPath, peerAvailable } from '../support/peers.js';
import { createHash } from 'node:crypto';

const available = peerAvailable(
  'the Reloader equivalence test (stakater/Reloader v1.4.22 built from the Go module proxy)',
  onPath('go') ? undefined : 'Go is not on PATH',
);

/** The flags both run with: one namespace each, every event kind on (create and delete roll too), the env-var strategy. */
const reloaderFlags = (namespace: string): string[] => [
  `--namespaces=${namespace}`,
  '--reload-on-create=true',
  '--reload-on-delete=true',
  '--reload-strategy=env-vars',
];

const sha1 = (entries: string[]): string => createHash('sha1').update(entries.sort().join(';')).digest('hex');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

// --- the workloads the script runs against --------------------------------------------------------------------------

const labels = (app: string): Record<string, string> => ({ app });
const container = (name: string, extra: Partial<k8s.V1Container> = {}): k8s.V1Container => ({
  name,
  image: 'registry.k8s.io/pause:3.10',
  ...extra,
});
const podTemplate = (app: string, spec: Partial<k8s.V1PodSpec>, annotations?: Record<string, string>) => ({
  metadata: { labels: labels(app), ...(annotations ? { annotations } : {}) },
  spec: { containers: [container('main')], ...spec },
});
const deployment = (
  name: string,
  annotations: Record<string, string>,
  spec: Partial<k8s.V1PodSpec>,
  templateAnnotations?: Record<string, string>,
): k8s.V1Deployment => ({
  metadata: { name, annotations },
  spec: { selector: { matchLabels: labels(name) }, template: podTemplate(name, spec, templateAnnotations) },
});

const fromConfigMap = (cm: string): Partial<k8s.V1Container> => ({ envFrom: [{ configMapRef: { name: cm } }] });
const AUTO = { 'reloader.stakater.com/auto': 'true' };

/** Everything a run starts with, created before the operator starts (so that none of it is an add it acts on). */
async function seed(api: RestClient, namespace: string): Promise<void> {
  const ns = { namespace };
  const create = async <T extends KubeObject>(res: Parameters<RestClient['create']>[0], obj: T): Promise<void> => {
    await api.create(res as never, { ...obj, metadata: { ...obj.metadata, ...ns } } as never);
  };
  await create(ConfigMaps, { metadata: { name: 'app-config' }, data: { level: 'info' } } as k8s.V1ConfigMap);
  await create(Secrets, { metadata: { name: 'app-secret' }, data: { token: b64('one') } } as k8s.V1Secret);
  await create(ConfigMaps, { metadata: { name: 'sentinel' }, data: { step: '0' } } as k8s.V1ConfigMap);
  await create(Secrets, { metadata: { name: 'sentinel' }, data: { step: b64('0') } } as k8s.V1Secret);
  // auto: the container that reads the ConfigMap, and the one that reads the Secret's key, roll.
  await create(
    Deployments,
    deployment('auto-env', AUTO, {
      containers: [
        container('reads-config', fromConfigMap('app-config')),
        container('reads-secret', {
          env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'app-secret', key: 'token' } } }],
        }),
      ],
    }),
  );
  // Named by regular expressions; no container uses them, so the first rolls.
  await create(
    Deployments,
    deployment(
      'named',
      { 'configmap.reloader.stakater.com/reload': 'app-config, other-.*' },
      { containers: [container('first'), container('second')] },
    ),
  );
  // secret auto, the Secret mounted in the second container.
  await create(
    Deployments,
    deployment(
      'secret-auto',
      { 'secret.reloader.stakater.com/auto': 'true' },
      {
        volumes: [{ name: 'creds', secret: { secretName: 'app-secret' } }],
        containers: [
          container('first'),
          container('mounts', { volumeMounts: [{ name: 'creds', mountPath: '/creds' }] }),
        ],
      },
    ),
  );
  // The pod template's annotation decides; an init container mounts the ConfigMap through a projected volume.
  await create(
    Deployments,
    deployment(
      'template-auto',
      {},
      {
        volumes: [{ name: 'cfg', projected: { sources: [{ configMap: { name: 'app-config' } }] } }],
        initContainers: [container('init', { volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }] })],
      },
      AUTO,
    ),
  );
  // auto, but this ConfigMap excluded.
  await create(
    Deployments,
    deployment(
      'excluded',
      { ...AUTO, 'configmaps.exclude.reloader.stakater.com/reload': 'app-config' },
      {
        containers: [container('main', fromConfigMap('app-config'))],
      },
    ),
  );
  // Reads the ConfigMap but has no annotation: never rolled.
  await create(
    Deployments,
    deployment('untouched', {}, { containers: [container('main', fromConfigMap('app-config'))] }),
  );
  await create(DaemonSets, {
    metadata: { name: 'ds', annotations: AUTO },
    spec: {
      selector: { matchLabels: labels('ds') },
      template: podTemplate('ds', {
        containers: [
          container('main', {
            env: [{ name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'level' } } }],
          }),
        ],
      }),
    },
  } as k8s.V1DaemonSet);
  await create(StatefulSets, {
    metadata: { name: 'sts', annotations: { 'configmap.reloader.stakater.com/reload': 'app-config' } },
    spec: { serviceName: 'sts', selector: { matchLabels: labels('sts') }, template: podTemplate('sts', {}) },
  } as k8s.V1StatefulSet);
  // A CronJob rolls by making a Job from its template; a Job by being made again.
  await create(CronJobs, {
    metadata: { name: 'cron', annotations: AUTO },
    spec: {
      schedule: '0 0 1 1 *',
      suspend: true,
      jobTemplate: {
        spec: {
          template: {
            spec: { restartPolicy: 'Never', containers: [container('main', fromConfigMap('app-config'))] },
          },
        },
      },
    },
  } as k8s.V1CronJob);
  await create(Jobs, {
    metadata: { name: 'job', annotations: AUTO },
    spec: {
      suspend: true,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            container('main', {
              env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'app-secret', key: 'token' } } }],
            }),
          ],
        },
      },
    },
  } as k8s.V1Job);
}

// --- the script -----------------------------------------------------------------------------------------------------

interface Step {
  name: string;
  run(api: RestClient, namespace: string): Promise<void>;
}

const patchConfigMap = (api: RestClient, namespace: string, name: string, patch: unknown) =>
  api.patch(ConfigMaps, { namespace, name }, patch, { type: 'merge' });

const steps: Step[] = [
  {
    name: "app-config's data changes",
    run: (api, ns) => patchConfigMap(api, ns, 'app-config', { data: { level: 'debug' } }).then(() => undefined),
  },
  {
    name: "app-config's annotations change, its data does not",
    run: (api, ns) =>
      patchConfigMap(api, ns, 'app-config', { metadata: { annotations: { note: 'x' } } }).then(() => undefined),
  },
  {
    name: "app-secret's data changes",
    run: async (api, ns) => {
      await api.patch(
        Secrets,
        { namespace: ns, name: 'app-secret' },
        { data: { token: b64('two') } },
        { type: 'merge' },
      );
    },
  },
  {
    name: 'other-1 is created (--reload-on-create)',
    run: async (api, ns) => {
      await api.create(ConfigMaps, { metadata: { name: 'other-1', namespace: ns }, data: { k: 'v' } });
    },
  },
  {
    name: 'app-config is marked ignored and changes',
    run: (api, ns) =>
      patchConfigMap(api, ns, 'app-config', {
        metadata: { annotations: { 'reloader.stakater.com/ignore': 'true' } },
        data: { level: 'warn' },
      }).then(() => undefined),
  },
  {
    name: 'app-config is no longer ignored and changes again',
    run: (api, ns) =>
      patchConfigMap(api, ns, 'app-config', {
        metadata: { annotations: { 'reloader.stakater.com/ignore': null } },
        data: { level: 'error' },
      }).then(() => undefined),
  },
  {
    name: 'app-config is deleted (--reload-on-delete)',
    run: (api, ns) => api.delete(ConfigMaps, { namespace: ns, name: 'app-config' }),
  },
];

// --- what is compared -----------------------------------------------------------------------------------------------

/** Replaces the run's namespace and every uid in string values. */
function normalise(value: unknown, namespace: string): unknown {
  return normaliseStrings(value, { replace: { [namespace]: '<ns>' } });
}

function normaliseObject(obj: KubeObject, namespace: string): unknown {
  const {
    uid: _uid,
    resourceVersion: _rv,
    creationTimestamp: _created,
    managedFields: _managed,
    ...metadata
  } = obj.metadata ?? {};
  // A Job made from the CronJob has a generated name (cron-xxxxx), which its labels repeat: the suffix differs by nature.
  const generated = metadata.generateName ? metadata.name : undefined;
  const normalised = normalise({ ...obj, metadata }, namespace);
  if (!generated) return normalised;
  return JSON.parse(
    JSON.stringify(normalised)
      .split(JSON.stringify(generated))
      .join(JSON.stringify(`${metadata.generateName}<generated>`)),
  ) as unknown;
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
      reportingComponent: e.reportingComponent,
      count: e.count,
    },
    namespace,
  );
}

type Snapshot = Record<string, unknown>;

/** Every object either operator writes in `namespace`, normalised, keyed by kind and name. */
async function snapshot(api: RestClient, namespace: string): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const res of [Deployments, DaemonSets, StatefulSets, CronJobs, Jobs] as const) {
    const { items } = await api.list(res as never, { namespace });
    // Sorted by content: Jobs made from the CronJob share a name once normalised, and list in their random order.
    const normalised = (items as KubeObject[])
      .filter((item) => !isSentinel(item.metadata?.name))
      .map((item) => normaliseObject(item, namespace) as { metadata: { name: string } })
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    for (const n of normalised) {
      let key = `${res.kind}/${n.metadata.name}`;
      for (let i = 2; key in out; i++) key = `${res.kind}/${n.metadata.name}#${i}`;
      out[key] = n;
    }
  }
  const events = (await api.list(CoreEvents, { namespace })).items
    .filter((e) => !isSentinel(e.involvedObject.name))
    .map((e) => normaliseEvent(e, namespace))
    .map((e) => JSON.stringify(e))
    .sort();
  out.events = events.map((e) => JSON.parse(e) as unknown);
  return out;
}

/** The env var values of a Deployment's first container. */
async function envOf(api: RestClient, namespace: string, name: string): Promise<Record<string, string | undefined>> {
  const d = await api.get(Deployments, { namespace, name });
  return Object.fromEntries((d.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

/** The sentinels (a Deployment per barrier and the ConfigMap and Secret they follow) are not compared. */
const isSentinel = (name: string | undefined): boolean => name?.startsWith('sentinel') ?? false;

/**
 * A barrier: a new Deployment `sentinel-<label>` that follows the ConfigMap and the Secret named sentinel, then a
 * change of both; it is passed once that Deployment carries both hashes and both Reloaded Events are written. Each
 * controller handles its kind's events in order, with one worker, and writes its Events in order, so whatever came
 * before (a step) is written by then.
 */
async function barrier(
  api: RestClient,
  namespace: string,
  label: string,
  operator: RunningOriginal,
  timeoutMs: number,
): Promise<void> {
  const name = `sentinel-${label}`;
  const sentinel = deployment(
    name,
    { 'configmap.reloader.stakater.com/reload': 'sentinel', 'secret.reloader.stakater.com/reload': 'sentinel' },
    {
      containers: [
        container('main', { envFrom: [{ configMapRef: { name: 'sentinel' } }, { secretRef: { name: 'sentinel' } }] }),
      ],
    },
  );
  await api.create(Deployments, { ...sentinel, metadata: { ...sentinel.metadata, namespace } });
  await api.patch(ConfigMaps, { namespace, name: 'sentinel' }, { data: { step: label } }, { type: 'merge' });
  await api.patch(Secrets, { namespace, name: 'sentinel' }, { data: { step: b64(label) } }, { type: 'merge' });
  const want = sha1([`step=${label}`]);
  await eventually(
    async () => {
      const env = await envOf(api, namespace, name);
      const components = (await api.list(CoreEvents, { namespace })).items
        .filter((e) => e.involvedObject.name === name && e.reason === 'Reloaded')
        .map((e) => e.source?.component)
        .sort();
      return (
        env.STAKATER_SENTINEL_CONFIGMAP === want &&
        env.STAKATER_SENTINEL_SECRET === want &&
        components.join(',') === 'reloader-configmaps,reloader-secrets'
      );
    },
    { what: `the roll of ${name}`, timeoutMs, diagnose: () => operator.output().slice(-4000) },
  );
}

/**
 * Seeds `namespace`, starts the operator, waits until it handles changes of both kinds, then runs every step with a
 * barrier after it and snapshots.
 */
async function runScript(api: RestClient, namespace: string, start: () => RunningOriginal): Promise<Snapshot[]> {
  await seed(api, namespace);
  const operator = start();
  try {
    // A change made before the operator's first list is part of that list, not an event: try again until one lands.
    for (let attempt = 1; ; attempt++) {
      try {
        await barrier(api, namespace, `start-${attempt}`, operator, 15_000);
        break;
      } catch (err) {
        if (attempt === 4) throw err;
      }
    }
    const snapshots: Snapshot[] = [];
    for (const [i, step] of steps.entries()) {
      await step.run(api, namespace);
      await barrier(api, namespace, `step-${i + 1}`, operator, 60_000);
      snapshots.push(await snapshot(api, namespace));
    }
    return snapshots;
  } finally {
    await operator.stop();
  }
}

describe.skipIf(!available)('examples/reloader, the port of stakater/Reloader v1.4.22', () => {
  const cp = useControlPlane();
  const work = mkdtempSync(join(tmpdir(), 'ks-reloader-'));
  let original: string | undefined;
  let port: string | undefined;
  let kubeconfigPath = '';

  beforeAll(async () => {
    original = await buildGoOriginal(reloaderOriginal, { timeoutMs: GO_BUILD_MS });
    port = await bundleExample('reloader', work);
    kubeconfigPath = join(work, 'kubeconfig');
    writeFileSync(kubeconfigPath, cp.env.kubeconfigYaml());
  }, GO_BUILD_MS);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes what the original writes after every step: the same env vars, Jobs and Events on the same workloads', async () => {
    const goNamespace = await cp.namespace('reloader-go');
    const theirs = await runScript(cp.api, goNamespace, () =>
      runGoOriginal(original!, reloaderFlags(goNamespace), { kubeconfigPath, home: work }),
    );
    const tsNamespace = await cp.namespace('reloader-ts');
    const ours = await runScript(cp.api, tsNamespace, () =>
      startProcess(process.execPath, [port!, ...reloaderFlags(tsNamespace), '--health-probe-bind-address=0'], {
        env: { PATH: process.env.PATH, HOME: work, KUBECONFIG: kubeconfigPath },
      }),
    );

    steps.forEach((step, i) => expect(differingPaths(theirs[i], ours[i]), `after "${step.name}"`).toEqual([]));

    // And the script made the original write: each data change rolls (a strategic merge patch puts the new env var
    // first), the ignored change does not, the delete removes the env var.
    const theirEnv = (i: number, name: string) =>
      (theirs[i]![`Deployment/${name}`] as k8s.V1Deployment).spec!.template.spec!.containers.map((c) =>
        (c.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`),
      );
    const configHash = (level: string) => `STAKATER_APP_CONFIG_CONFIGMAP=${sha1([`level=${level}`])}`;
    const secretHash = `STAKATER_APP_SECRET_SECRET=${sha1(['token=two'])}`;
    expect(theirEnv(0, 'auto-env')).toEqual([[configHash('debug')], ['TOKEN=']]);
    expect(theirEnv(2, 'auto-env')).toEqual([[configHash('debug')], [secretHash, 'TOKEN=']]);
    expect(theirEnv(4, 'auto-env')).toEqual(theirEnv(3, 'auto-env'));
    expect(theirEnv(5, 'auto-env')).toEqual([[configHash('error')], [secretHash, 'TOKEN=']]);
    expect(theirEnv(6, 'auto-env')).toEqual([[], [secretHash, 'TOKEN=']]);
  }, 300_000);
});
