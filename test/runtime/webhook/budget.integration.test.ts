// The webhook server's body budget, as the API server meets it: a request beyond the budget is answered 429 with
// Retry-After, and the API server sends it again (client-go's retry of a 429), so every create goes through, from our
// client and from kubectl alike.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { kubeConfigToYaml } from '../../../src/runtime/clientcmd/index.js';
import { newLogger } from '../../../src/runtime/index.js';
import {
  ConfigMaps,
  ValidatingWebhookConfigurations,
  newClient,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import {
  AdmissionWebhook,
  WebhookServer,
  generateLocalServingCert,
  validatingHandler,
} from '../../../src/runtime/webhook/index.js';
import { webhookRequestTotal } from '../../../src/runtime/webhook/metrics.js';
import { eventually } from '../../support/eventually.js';
import { onPath, peerAvailable } from '../../support/peers.js';

const KUBECTL = process.env.KUBECTL ?? onPath('kubectl');
const haveKubectl = peerAvailable(
  'kubectl creates through a webhook at its budget',
  KUBECTL ? undefined : 'kubectl is not on PATH (or set KUBECTL)',
);

const PATH = '/validate-budget';
const quiet = newLogger({ level: 'error', sink: () => {} });

async function refusals(): Promise<number> {
  const metric = await webhookRequestTotal.get();
  return metric.values
    .filter((v) => v.labels.webhook === PATH && v.labels.code === '429')
    .reduce((n, v) => n + v.value, 0);
}

describe('the webhook body budget through the API server', () => {
  let env: TestEnvironment | undefined;
  let api: RestClient | undefined;
  const stop = new AbortController();
  let served: Promise<void> | undefined;
  const certDir = mkdtempSync(join(tmpdir(), 'webhook-budget-'));
  // A gate the next review waits at, once holdNext is set, until release(): the budget is then taken.
  let release = (): void => {};
  let held = Promise.resolve();
  const holdTheNextReview = (): void => {
    held = new Promise<void>((resolve) => (release = resolve));
    holdNext = true;
  };
  const validated = new Set<string>();
  let holdNext = false;

  beforeAll(async () => {
    env = await TestEnvironment.start();
    api = newClient(env.kubeConfig);
    const cert = generateLocalServingCert(['127.0.0.1']);
    writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
    writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
    // A budget of one byte: a request alone is served, any second one at the same time is answered 429.
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, log: quiet, maxInFlightBodyBytes: 1 });
    server.register(
      PATH,
      new AdmissionWebhook(
        validatingHandler(ConfigMaps, {
          async validateCreate(cm) {
            // Once asked, the next review is held until the server has refused another, so the budget is reached.
            if (holdNext) {
              holdNext = false;
              await held;
            }
            validated.add(cm.metadata?.name ?? '');
          },
          async validateUpdate() {},
          async validateDelete() {},
        }),
      ),
    );
    served = server.start(stop.signal);
    await server.ready();
    await api.create(ValidatingWebhookConfigurations, {
      metadata: { name: 'budget' },
      webhooks: [
        {
          name: 'budget.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 15,
          objectSelector: { matchLabels: { budget: 'test' } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          clientConfig: {
            url: `https://127.0.0.1:${server.address()!.port}${PATH}`,
            caBundle: Buffer.from(cert.caPem).toString('base64'),
          },
        },
      ],
    });
  });
  afterAll(async () => {
    release();
    stop.abort();
    await served?.catch(() => {});
    api?.close();
    await env?.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  it('answers the reviews beyond it 429, which the API server sends again: every create succeeds', async () => {
    // The API server takes the new configuration into use after a moment: until a labelled create reaches the webhook.
    let probe = 0;
    await eventually(async () => {
      const name = `probe-${++probe}`;
      await api!.create(ConfigMaps, { metadata: { name, namespace: 'default', labels: { budget: 'test' } } });
      return validated.has(name);
    }, 'the webhook configuration in use');
    validated.clear();
    holdTheNextReview();
    const before = await refusals();
    const names = Array.from({ length: 6 }, (_, i) => `budget-${i}`);
    const creates = names.map((name) =>
      api!.create(ConfigMaps, { metadata: { name, namespace: 'default', labels: { budget: 'test' } } }),
    );
    await eventually(async () => (await refusals()) > before, 'a review answered 429');
    release();
    const results = await Promise.allSettled(creates);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect([...validated].sort()).toEqual(names);
  }, 60_000);

  it.skipIf(!haveKubectl)(
    'gets every kubectl create through as well: kubectl never sees the 429',
    async () => {
      const kubeconfig = join(certDir, 'kubeconfig');
      writeFileSync(kubeconfig, kubeConfigToYaml(env!.kubeConfig));
      validated.clear();
      holdTheNextReview();
      const before = await refusals();
      const names = Array.from({ length: 6 }, (_, i) => `kubectl-${i}`);
      const creates = names.map(async (name) => {
        const child = spawn(KUBECTL!, ['--kubeconfig', kubeconfig, 'create', '-f', '-'], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr.on('data', (d: Buffer) => (output += d.toString()));
        child.stdin.end(
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace: 'default', labels: { budget: 'test' } },
          }),
        );
        const [code] = (await once(child, 'exit')) as [number | null];
        return { name, code, output: output.trim() };
      });
      await eventually(async () => (await refusals()) > before, 'a review answered 429');
      release();
      const results = await Promise.all(creates);
      expect(results).toEqual(names.map((name) => ({ name, code: 0, output: `configmap/${name} created` })));
      expect([...validated].sort()).toEqual(names);
    },
    60_000,
  );
});
