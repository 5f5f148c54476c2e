import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TestEnvironment,
  WebhookInstaller,
  readWebhookConfigurations,
  type CustomResourceDefinition,
} from '../../src/envtest/index.js';
import {
  CustomResourceDefinitions,
  MutatingWebhookConfigurations,
  Namespaces,
  ValidatingWebhookConfigurations,
} from '../../src/runtime/rest/index.js';
import { Manager, newClient } from '../../src/runtime/index.js';
import { WebhookServer } from '../../src/runtime/webhook/index.js';
import {
  CAPTAIN_CRD,
  CaptainResource,
  WEBHOOK_MANIFESTS,
  setupCaptainWebhookWithManager,
} from '../runtime/webhook/captain.js';
import { eventually } from '../support/eventually.js';
import { showOnFailure } from '../support/failure.js';
import { captureLog } from '../support/logs.js';

const managerLog = captureLog('manager');
showOnFailure(managerLog.onFailure);

let dir: string;
let manifests: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'envtest-webhooks-'));
  manifests = join(dir, 'manifests.yaml');
  await writeFile(manifests, WEBHOOK_MANIFESTS);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('WebhookInstallOptions', () => {
  it('reads the webhook configurations from files and directories', async () => {
    const fromFile = await readWebhookConfigurations([manifests], false);
    expect(fromFile.mutating.map((c) => c.metadata.name)).toEqual(['mutating-webhook-configuration']);
    expect(fromFile.validating.map((c) => c.metadata.name)).toEqual(['validating-webhook-configuration']);
    expect((await readWebhookConfigurations([dir], false)).mutating).toHaveLength(1);
    await expect(readWebhookConfigurations([join(dir, 'missing')], false)).rejects.toThrow(
      /reading webhook configurations from .*missing/,
    );
    expect(await readWebhookConfigurations([join(dir, 'missing')], true)).toEqual({ mutating: [], validating: [] });
  });

  it('points each Service-addressed webhook at the local server, with a CA whose certificate serves 127.0.0.1', async () => {
    const work = await mkdtemp(join(tmpdir(), 'envtest-webhooks-prepare-'));
    try {
      const installer = await WebhookInstaller.prepare({ paths: [manifests], localServingPort: 9999 }, work);
      const o = installer.options;
      expect(o).toMatchObject({
        localServingHost: '127.0.0.1',
        localServingPort: 9999,
        localServingCertDir: join(work, 'webhook-serving-certs'),
      });
      const caBundle = Buffer.from(o.localServingCAData).toString('base64');
      expect(o.mutatingWebhooks[0]?.webhooks?.[0]?.clientConfig).toEqual({
        url: 'https://127.0.0.1:9999/mutate-crew-example-com-v1-captain',
        caBundle,
      });
      expect(o.validatingWebhooks[0]?.webhooks?.[0]?.clientConfig).toEqual({
        url: 'https://127.0.0.1:9999/validate-crew-example-com-v1-captain',
        caBundle,
      });

      const cert = new X509Certificate(await readFile(join(o.localServingCertDir, 'tls.crt')));
      const ca = new X509Certificate(o.localServingCAData);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(cert.checkHost('localhost')).toBe('localhost');
      await expect(readFile(join(o.localServingCertDir, 'tls.key'), 'utf8')).resolves.toContain('PRIVATE KEY');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('gives CRDs with several served versions the local conversion webhook, unless told which CRDs to give it', async () => {
    const work = await mkdtemp(join(tmpdir(), 'envtest-webhooks-crd-'));
    try {
      const single = {
        ...CAPTAIN_CRD,
        metadata: { name: 'singles.crew.example.com' },
        spec: { ...CAPTAIN_CRD.spec, versions: [CAPTAIN_CRD.spec.versions[0]!] },
      };
      const crds = [CAPTAIN_CRD, single] as unknown as CustomResourceDefinition[];
      const installer = await WebhookInstaller.prepare({ localServingPort: 9443 }, work);
      const [captains, singles] = installer.withConversionWebhooks(crds);
      expect(captains!.spec.conversion).toEqual({
        strategy: 'Webhook',
        webhook: {
          clientConfig: {
            url: 'https://127.0.0.1:9443/convert',
            caBundle: Buffer.from(installer.options.localServingCAData).toString('base64'),
          },
          conversionReviewVersions: ['v1', 'v1beta1'],
        },
      });
      expect(singles!.spec.conversion).toBeUndefined();
      expect((CAPTAIN_CRD.spec as { conversion?: unknown }).conversion).toBeUndefined();
      const none = await WebhookInstaller.prepare({ localServingPort: 9443, conversionCRDs: [] }, work);
      expect(none.withConversionWebhooks(crds)[0]!.spec.conversion).toBeUndefined();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe('TestEnvironment with webhookInstallOptions', () => {
  it('installs the configurations and conversion for a local webhook server, which a Manager then serves', async () => {
    const env = await TestEnvironment.start({ crds: [CAPTAIN_CRD], webhookInstallOptions: { paths: [manifests] } });
    const api = newClient(env.kubeConfig);
    try {
      const o = env.webhookInstallOptions!;
      expect(o.localServingCertDir.startsWith(env.tempDir)).toBe(true);
      const base = `https://127.0.0.1:${o.localServingPort}`;
      const mwc = await api.get(MutatingWebhookConfigurations, { name: 'mutating-webhook-configuration' });
      expect(mwc.webhooks?.[0]?.clientConfig.url).toBe(`${base}/mutate-crew-example-com-v1-captain`);
      const vwc = await api.get(ValidatingWebhookConfigurations, { name: 'validating-webhook-configuration' });
      expect(vwc.webhooks?.[0]?.clientConfig.url).toBe(`${base}/validate-crew-example-com-v1-captain`);
      const crd = await api.get(CustomResourceDefinitions, { name: 'captains.crew.example.com' });
      expect(crd.spec.conversion?.webhook?.clientConfig?.url).toBe(`${base}/convert`);

      const mgr = new Manager({
        kubeConfig: env.kubeConfig,
        log: managerLog.log,
        webhookServer: new WebhookServer({ port: o.localServingPort, certDir: o.localServingCertDir }),
      });
      setupCaptainWebhookWithManager(mgr);
      const stop = new AbortController();
      const done = mgr.start(stop.signal);
      try {
        await mgr.getWebhookServer().ready();
        await api.create(Namespaces, { metadata: { name: 'crew' } });
        const captain = {
          apiVersion: 'crew.example.com/v1',
          kind: 'Captain',
          metadata: { name: 'c', namespace: 'crew' },
          spec: {},
        };
        // The API server loads webhook configurations asynchronously: wait until a dry run comes back defaulted.
        await eventually(
          async () => (await api.create(CaptainResource, captain, { dryRun: true })).spec.replicas === 1,
          'the API server to call the webhook',
        );
        expect((await api.create(CaptainResource, captain)).spec.replicas).toBe(1);
      } finally {
        stop.abort();
        await done;
      }
    } finally {
      api.close();
      await env.stop();
    }
  });
});
