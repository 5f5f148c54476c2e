import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '@kubescaffold/envtest';
import { Manager, newClient, type Client } from '@kubescaffold/runtime';
import { WebhookServer } from '@kubescaffold/runtime/webhook';
import type { CronJob } from '../../../api/v1/cronjob_types.js';
import type { CronJob as CronJobV2 } from '../../../api/v2/cronjob_types.js';
import { CronJobResource } from '../../../api/v1/zz_generated.resources.js';
import { CronJobResource as CronJobV2Resource } from '../../../api/v2/zz_generated.resources.js';
import { setupCronJobWebhookWithManager } from './cronjob_webhook.js';

// The webhooks behind a real API server: envtest installs the configurations of config/webhook, pointed at this
// process with a certificate it makes, and points the CRD's conversion at it too.
describe('CronJob webhooks on a real control plane', () => {
  let env: TestEnvironment;
  let client: Client;
  const stop = new AbortController();
  let running: Promise<void>;
  const namespace = 'default';
  const jobTemplate = { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox' }], restartPolicy: 'OnFailure' } } } };

  function newCronJob(name: string, schedule: string): CronJob {
    return { apiVersion: CronJobResource.apiVersion, kind: 'CronJob', metadata: { name, namespace }, spec: { schedule, jobTemplate } };
  }

  beforeAll(async () => {
    env = await TestEnvironment.start({ crdDirectoryPaths: ['config/crd/bases'], webhookInstallOptions: { paths: ['config/webhook'] } });
    const serving = env.webhookInstallOptions!;
    const webhookServer = new WebhookServer({ host: serving.localServingHost, port: serving.localServingPort, certDir: serving.localServingCertDir });
    const mgr = new Manager({ kubeConfig: env.kubeConfig, webhookServer });
    setupCronJobWebhookWithManager(mgr);
    running = mgr.start(stop.signal);
    client = newClient(env.kubeConfig);
    await webhookServer.ready();
    // The API server loads webhook configurations asynchronously: wait until a dry run comes back defaulted.
    for (;;) {
      const probe = await client.create(CronJobResource, newCronJob('probe', '* * * * *'), { dryRun: true });
      if (probe.spec.successfulJobsHistoryLimit === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  afterAll(async () => {
    stop.abort();
    await running;
    await env?.stop();
  });

  it('sets the defaults on create', async () => {
    const created = await client.create(CronJobResource, newCronJob('defaults', '*/5 * * * *'));
    expect(created.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  });

  it("rejects a schedule that is not cron, with the validator's message", async () => {
    await expect(client.create(CronJobResource, newCronJob('bad-schedule', 'every minute')))
      .rejects.toThrow(/CronJob.batch.tutorial.kubebuilder.io "bad-schedule" is invalid: spec\.schedule: Invalid value: "every minute": must have 5 fields/);
  });

  it('serves a CronJob created as v2 as v1 too, and round-trips it through the conversion webhook', async () => {
    await client.create(CronJobV2Resource, {
      apiVersion: CronJobV2Resource.apiVersion,
      kind: 'CronJob',
      metadata: { name: 'converted', namespace },
      spec: { schedule: { minute: '*/1' }, jobTemplate },
    });
    const asV1 = await client.get(CronJobResource, { namespace, name: 'converted' });
    expect(asV1.apiVersion).toBe('batch.tutorial.kubebuilder.io/v1');
    expect(asV1.spec.schedule).toBe('*/1 * * * *');
    // Created as v2, defaulted by the v1 webhook: the API server converted it to v1 to call the webhook.
    expect(asV1.spec.successfulJobsHistoryLimit).toBe(3);

    const asV2 = await client.get(CronJobV2Resource, { namespace, name: 'converted' });
    expect(asV2.apiVersion).toBe('batch.tutorial.kubebuilder.io/v2');
    expect(asV2.spec.schedule).toEqual({ minute: '*/1', hour: '*', dayOfMonth: '*', month: '*', dayOfWeek: '*' });
  });

  it('admits the samples of config/samples, in both versions', async () => {
    const v1 = parse(readFileSync('config/samples/batch_v1_cronjob.yaml', 'utf8')) as CronJob;
    const v2 = parse(readFileSync('config/samples/batch_v2_cronjob.yaml', 'utf8')) as CronJobV2;
    const created = await client.create(CronJobResource, { ...v1, metadata: { ...v1.metadata, namespace } }, { dryRun: true });
    expect(created.spec.schedule).toBe('*/1 * * * *');
    const createdV2 = await client.create(CronJobV2Resource, { ...v2, metadata: { ...v2.metadata, namespace } }, { dryRun: true });
    expect(createdV2.spec.schedule).toEqual({ minute: '*/1', hour: '*', dayOfMonth: '*', month: '*', dayOfWeek: '*' });
  });
});
