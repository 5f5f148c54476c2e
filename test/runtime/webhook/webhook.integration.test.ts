/**
 * Webhooks on a real control plane: the Captain webhooks (captain.ts, as the scaffold lays them out) served by a
 * Manager whose port and certificates come from the TestEnvironment's webhookInstallOptions.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ApiError,
  Manager,
  defineResource,
  newClient,
  newLogger,
  type ObjectMeta,
  type TypeMeta,
} from '../../../src/runtime/index.js';
import {
  CustomResourceDefinitions,
  MutatingWebhookConfigurations,
  Namespaces,
  collectionPath,
  isInvalid,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { registry as metricsRegistry } from '../../../src/runtime/metrics/index.js';
import { WebhookServer, newWebhookManagedBy } from '../../../src/runtime/webhook/index.js';
import {
  CAPTAIN_CRD,
  CaptainResource,
  CaptainV2Resource,
  DEFAULTED_LABEL,
  PROTECTED_LABEL,
  WEBHOOK_MANIFESTS,
  setupCaptainWebhookWithManager,
  type Captain,
  type CaptainV2,
} from './captain.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';
import { recentEvents } from '../../support/cluster.js';
import { showOnFailure } from '../../support/failure.js';
import { testCRD } from '../../support/crd.js';
import { freePort } from '../../support/ports.js';

const managerLog = captureLog('manager');
const NS = 'crew';

let env: TestEnvironment;
let api: RestClient;
showOnFailure(managerLog.onFailure, () => recentEvents(api, NS));
let mgr: Manager;
let stopMgr: AbortController;
let mgrDone: Promise<void>;
let projectDir: string;

async function readyz(m: Manager): Promise<number> {
  const addr = m.healthProbeAddress();
  if (!addr) return 0;
  return (await fetch(`http://127.0.0.1:${addr.port}/readyz`)).status;
}

beforeAll(async () => {
  projectDir = await mkdtemp(join(tmpdir(), 'webhook-project-'));
  await mkdir(join(projectDir, 'config', 'webhook'), { recursive: true });
  await writeFile(join(projectDir, 'config', 'webhook', 'manifests.yaml'), WEBHOOK_MANIFESTS);
  env = await TestEnvironment.start({
    crds: [CAPTAIN_CRD],
    webhookInstallOptions: { paths: [join(projectDir, 'config', 'webhook')] },
  });
  api = newClient(env.kubeConfig);
  await api.create(Namespaces, { metadata: { name: NS } });

  const hooks = env.webhookInstallOptions!;
  mgr = new Manager({
    kubeConfig: env.kubeConfig,
    log: managerLog.log,
    healthProbe: { bindAddress: '127.0.0.1:0' },
    webhookServer: new WebhookServer({
      host: hooks.localServingHost,
      port: hooks.localServingPort,
      certDir: hooks.localServingCertDir,
    }),
  });
  setupCaptainWebhookWithManager(mgr);
  mgr.addReadyzCheck('webhook', mgr.getWebhookServer().startedChecker());
  stopMgr = new AbortController();
  mgrDone = mgr.start(stopMgr.signal);
  await eventually(async () => (await readyz(mgr)) === 200, 'the manager to be ready');
  // The API server loads webhook configurations asynchronously: wait until a dry run comes back defaulted.
  await eventually(async () => {
    const probe = await api.create(CaptainResource, captain('probe', {}), { dryRun: true });
    return probe.spec.replicas === 1;
  }, 'the API server to call the webhooks');
});

afterAll(async () => {
  stopMgr?.abort();
  await mgrDone;
  api?.close();
  await env?.stop();
  if (projectDir) await rm(projectDir, { recursive: true, force: true });
});

function captain(name: string, spec: Captain['spec'], labels?: Record<string, string>): Captain {
  return {
    apiVersion: 'crew.example.com/v1',
    kind: 'Captain',
    metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
    spec,
  };
}

function captainV2(name: string, spec: CaptainV2['spec']): CaptainV2 {
  return { apiVersion: 'crew.example.com/v2', kind: 'Captain', metadata: { name, namespace: NS }, spec };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('the request was not rejected');
}

describe('admission webhooks on a real control plane', () => {
  it('applies defaults on create', async () => {
    const created = await api.create(CaptainResource, captain('defaults', { foo: 'a' }));
    expect(created.spec).toEqual({ foo: 'a', replicas: 1, mode: 'Fast' });
    expect(created.metadata.labels).toEqual({ [DEFAULTED_LABEL]: 'true' });
    const kept = await api.create(CaptainResource, captain('kept', { replicas: 4, mode: 'Slow' }));
    expect(kept.spec).toEqual({ replicas: 4, mode: 'Slow' });
  });

  it("rejects an invalid object with the validator's message", async () => {
    const err = await rejection(api.create(CaptainResource, captain('bad', { foo: 'forbidden' })));
    expect(isInvalid(err)).toBe(true);
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      'admission webhook "vcaptain-v1.kb.io" denied the request: Captain.crew.example.com "bad" is invalid: spec.foo: Invalid value: "forbidden": must not be "forbidden"',
    );
    expect(err.status.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "forbidden": must not be "forbidden"',
        field: 'spec.foo',
      },
    ]);
    await expect(api.get(CaptainResource, { namespace: NS, name: 'bad' })).rejects.toThrow();
  });

  it('validates updates and deletes', async () => {
    const c = await api.create(CaptainResource, captain('immutable', { mode: 'Slow' }, { [PROTECTED_LABEL]: 'true' }));
    const changed = { ...c, spec: { ...c.spec, mode: 'Fast' as const } };
    const err = await rejection(api.update(CaptainResource, changed));
    expect(err.message).toContain('spec.mode: Forbidden: is immutable once set');
    const del = await rejection(api.delete(CaptainResource, { namespace: NS, name: 'immutable' }));
    expect(del.message).toContain(`a Captain labelled ${PROTECTED_LABEL}=true may not be deleted`);
    await api.patch(
      CaptainResource,
      { namespace: NS, name: 'immutable' },
      { metadata: { labels: { [PROTECTED_LABEL]: null } } },
      { type: 'merge' },
    );
    await api.delete(CaptainResource, { namespace: NS, name: 'immutable' });
  });

  it("passes the validator's warning to the client in a Warning header", async () => {
    const res = await api.transport.stream({
      method: 'POST',
      path: collectionPath(CaptainResource, NS),
      body: captain('warned', { foo: 'deprecated' }),
    });
    res.resume();
    expect(res.statusCode).toBe(201);
    const header = res.headers.warning;
    const values = (Array.isArray(header) ? header : [header ?? '']).flatMap((h) => h.split(/,(?=\s*299 )/));
    const texts = values.map((v) => /^\s*299 - "(.*)"\s*$/.exec(v)?.[1]?.replace(/\\(.)/g, '$1'));
    expect(texts).toContain('spec.foo: the value "deprecated" is deprecated');
  });
});

describe('conversion webhook on a real control plane', () => {
  it('serves a v2 object created as v2, defaulted through the v1 webhooks, and reads it back in both versions', async () => {
    const created = await api.create(
      CaptainV2Resource,
      captainV2('from-v2', { foo: 'x', size: { replicas: 3 }, speed: 'slow' }),
    );
    expect(created.apiVersion).toBe('crew.example.com/v2');
    expect(created.spec).toEqual({ foo: 'x', size: { replicas: 3 }, speed: 'slow' });
    expect(created.metadata.labels).toEqual({ [DEFAULTED_LABEL]: 'true' });
    const asV1 = await api.get(CaptainResource, { namespace: NS, name: 'from-v2' });
    expect(asV1.apiVersion).toBe('crew.example.com/v1');
    expect(asV1.spec).toEqual({ foo: 'x', replicas: 3, mode: 'Slow' });
    expect(asV1.metadata.uid).toBe(created.metadata.uid);
    expect(asV1.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('round-trips v1 and v2 objects without loss, status included', async () => {
    await api.create(CaptainResource, captain('roundtrip', { foo: 'y', replicas: 2, mode: 'Slow' }));
    const withStatus = await api.status().update(CaptainResource, {
      ...(await api.get(CaptainResource, { namespace: NS, name: 'roundtrip' })),
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Sailing',
            message: 'all hands',
            lastTransitionTime: '2026-08-22T10:00:00Z',
          },
        ],
      },
    });
    const v2 = await api.get(CaptainV2Resource, { namespace: NS, name: 'roundtrip' });
    expect(v2.spec).toEqual({ foo: 'y', size: { replicas: 2 }, speed: 'slow' });
    expect(v2.status).toEqual(withStatus.status);
    expect({ ...v2.metadata, managedFields: undefined }).toEqual({ ...withStatus.metadata, managedFields: undefined });

    // Writing the v2 object back unchanged leaves the stored v1 object as it was.
    const written = await api.update(CaptainV2Resource, v2);
    expect(written.metadata.resourceVersion).toBe(v2.metadata.resourceVersion);
    const back = await api.get(CaptainResource, { namespace: NS, name: 'roundtrip' });
    expect(back.spec).toEqual(withStatus.spec);
    expect(back.status).toEqual(withStatus.status);

    // A change made through v2 is seen through v1.
    await api.update(CaptainV2Resource, { ...v2, spec: { ...v2.spec, foo: 'z', size: { replicas: 5 } } });
    expect((await api.get(CaptainResource, { namespace: NS, name: 'roundtrip' })).spec).toEqual({
      foo: 'z',
      replicas: 5,
      mode: 'Slow',
    });
  });

  it('keeps serving while 50 objects are created concurrently, then lists them all through the conversion webhook', async () => {
    const ns = 'fleet';
    await api.create(Namespaces, { metadata: { name: ns } });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => {
        const name = `ship-${i}`;
        if (i % 10 === 9)
          return api.create(CaptainResource, {
            ...captain(name, { foo: 'forbidden' }),
            metadata: { name, namespace: ns },
          });
        if (i % 2 === 0)
          return api.create(CaptainResource, { ...captain(name, { foo: `f${i}` }), metadata: { name, namespace: ns } });
        return api.create(CaptainV2Resource, {
          ...captainV2(name, { foo: `f${i}`, size: { replicas: i % 7 } }),
          metadata: { name, namespace: ns },
        });
      }),
    );
    const rejected = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    expect(rejected).toEqual([9, 19, 29, 39, 49]);
    for (const i of rejected) expect(isInvalid((results[i] as PromiseRejectedResult).reason)).toBe(true);

    const list = await api.list(CaptainV2Resource, { namespace: ns });
    expect(list.items).toHaveLength(45);
    for (const item of list.items) {
      const i = Number(item.metadata.name!.slice('ship-'.length));
      expect(item.apiVersion).toBe('crew.example.com/v2');
      expect(item.spec).toEqual({ foo: `f${i}`, size: { replicas: i % 2 === 0 ? 1 : i % 7 }, speed: 'fast' });
      expect(item.metadata.labels?.[DEFAULTED_LABEL]).toBe('true');
    }
    expect(await readyz(mgr)).toBe(200);
    const metrics = await metricsRegistry.getSingleMetricAsString('controller_runtime_webhook_requests_total');
    expect(metrics).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/convert",code="200"\} [1-9]/);
    expect(metrics).toMatch(
      /controller_runtime_webhook_requests_total\{webhook="\/mutate-crew-example-com-v1-captain",code="200"\} [1-9]/,
    );
  });
});

// A second kind served by a manager given no certificate: it must make its own CA and put it in place.
interface Admiral extends TypeMeta {
  metadata: ObjectMeta;
  spec: { rank?: string };
}
interface AdmiralV2 extends TypeMeta {
  metadata: ObjectMeta;
  spec: { grade?: string };
}
const AdmiralResource = defineResource<Admiral>({
  group: 'crew.example.com',
  version: 'v1',
  kind: 'Admiral',
  plural: 'admirals',
  namespaced: true,
});
const AdmiralV2Resource = defineResource<AdmiralV2>({
  group: 'crew.example.com',
  version: 'v2',
  kind: 'Admiral',
  plural: 'admirals',
  namespaced: true,
});

function admiralCRD(port: number) {
  return testCRD({
    group: 'crew.example.com',
    kind: 'Admiral',
    versions: [
      { name: 'v1', spec: { rank: { type: 'string' } } },
      { name: 'v2', spec: { grade: { type: 'string' } } },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: { clientConfig: { url: `https://127.0.0.1:${port}/convert` }, conversionReviewVersions: ['v1'] },
    },
  });
}

function admiralWebhooks(port: number) {
  return {
    metadata: { name: 'admiral-local' },
    webhooks: [
      {
        name: 'madmiral-v1.kb.io',
        admissionReviewVersions: ['v1'],
        clientConfig: { url: `https://localhost:${port}/mutate-crew-example-com-v1-admiral` },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        rules: [
          { apiGroups: ['crew.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['admirals'] },
        ],
      },
    ],
  };
}

describe('a manager run without certificates', () => {
  it('generates a CA and serving certificate and puts the CA into the configurations and CRD that point at it', async () => {
    const port = await freePort();
    await env.installCRDs([admiralCRD(port)]);
    await api.create(MutatingWebhookConfigurations, admiralWebhooks(port));

    const logs: string[] = [];
    const local = new Manager({
      kubeConfig: env.kubeConfig,
      log: newLogger({ level: 'info', sink: (l) => logs.push(l) }),
      healthProbe: { bindAddress: '127.0.0.1:0' },
      webhookServer: new WebhookServer({ port }),
    });
    newWebhookManagedBy(local, AdmiralResource)
      .withDefaulter({
        default: (a) => {
          a.spec.rank ??= 'Commodore';
        },
      })
      .withConversion([
        {
          resource: AdmiralV2Resource,
          conversion: {
            convertTo: (s) => ({
              apiVersion: 'crew.example.com/v1',
              kind: 'Admiral',
              metadata: s.metadata,
              spec: { rank: s.spec.grade },
            }),
            convertFrom: (h) => ({
              apiVersion: 'crew.example.com/v2',
              kind: 'Admiral',
              metadata: h.metadata,
              spec: { grade: h.spec.rank },
            }),
          },
        },
      ])
      .complete();
    local.addReadyzCheck('webhook', local.getWebhookServer().startedChecker());
    const stop = new AbortController();
    const done = local.start(stop.signal);
    try {
      await eventually(async () => (await readyz(local)) === 200, 'the second manager to be ready');
      const ca = local.getWebhookServer().generatedCABundle();
      expect(ca).toContain('BEGIN CERTIFICATE');
      const caBundle = Buffer.from(ca!).toString('base64');

      const mwc = await api.get(MutatingWebhookConfigurations, { name: 'admiral-local' });
      expect(mwc.webhooks?.[0]?.clientConfig.caBundle).toBe(caBundle);
      const crd = await api.get(CustomResourceDefinitions, { name: 'admirals.crew.example.com' });
      expect(crd.spec.conversion?.webhook?.clientConfig?.caBundle).toBe(caBundle);
      const patchedLine = logs.map((l) => JSON.parse(l) as { msg?: string; patched?: string[] }).find((l) => l.patched);
      expect(patchedLine?.patched).toEqual([
        'MutatingWebhookConfiguration/admiral-local: madmiral-v1.kb.io',
        'CustomResourceDefinition/admirals.crew.example.com: conversion',
      ]);

      // The Captain webhooks point at the other server: their CA is left alone.
      const captains = await api.get(MutatingWebhookConfigurations, { name: 'mutating-webhook-configuration' });
      expect(captains.webhooks?.[0]?.clientConfig.caBundle).toBe(
        Buffer.from(env.webhookInstallOptions!.localServingCAData).toString('base64'),
      );

      // The API server picks the new CA up shortly after the patch.
      let created: Admiral | undefined;
      await eventually(async () => {
        created = await api.create(AdmiralResource, {
          apiVersion: 'crew.example.com/v1',
          kind: 'Admiral',
          metadata: { name: 'nelson', namespace: NS },
          spec: {},
        });
        return true;
      }, 'an Admiral to be admitted by the locally certified webhook');
      expect(created!.spec).toEqual({ rank: 'Commodore' });
      let v2: AdmiralV2 | undefined;
      await eventually(async () => {
        v2 = await api.get(AdmiralV2Resource, { namespace: NS, name: 'nelson' });
        return true;
      }, 'the CRD conversion to use the new CA');
      expect(v2!.spec).toEqual({ grade: 'Commodore' });
    } finally {
      stop.abort();
      await done;
    }
    const generated = logs
      .map((l) => JSON.parse(l) as { generatedDir?: string })
      .find((l) => l.generatedDir)?.generatedDir;
    expect(generated).toBeDefined();
    expect(existsSync(generated!)).toBe(false);
  });
});
