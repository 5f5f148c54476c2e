import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTestNamespace, sharedTestEnvironment } from '@kubescaffold/envtest';
import { Manager, newClient } from '@kubescaffold/runtime';
import { Jobs, type RestClient } from '@kubescaffold/runtime/rest';
import { CronJobResource } from '../../api/v1/zz_generated.resources.js';
import { CronJobReconciler } from './cronjob_controller.js';

// The controller as the manager runs it, against the real kube-apiserver and etcd test/envtest.setup.ts started for
// the run, with the CRDs of config/crd/bases. There is no kube-controller-manager: nothing runs the Jobs, so the test
// writes their status itself.
describe('CronJob controller', () => {
  const env = sharedTestEnvironment(inject('envtest'));
  let client: RestClient;
  const stop = new AbortController();
  let running: Promise<void>;
  let namespace: string;

  beforeAll(async () => {
    client = newClient(env.kubeConfig);
    namespace = await createTestNamespace(client, 'cronjob');
    // The manager watches this file's namespace only: other test files share the API server.
    const mgr = new Manager({ kubeConfig: env.kubeConfig, cache: { defaultNamespaces: [namespace] } });
    new CronJobReconciler(mgr.getClient()).setupWithManager(mgr);
    running = mgr.start(stop.signal);
  });

  afterAll(async () => {
    stop.abort();
    await running;
    client?.close();
  });

  it("lists the Jobs it owns as the CronJob's active jobs", async () => {
    const cronJob = await client.create(CronJobResource, {
      apiVersion: CronJobResource.apiVersion,
      kind: 'CronJob',
      metadata: { name: 'test-cronjob', namespace },
      spec: {
        schedule: '1 * * * *',
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'test-container', image: 'test-image' }], restartPolicy: 'OnFailure' } } } },
      },
    });
    // The API server applied the CRD's default.
    expect(cronJob.spec.concurrencyPolicy).toBe('Allow');

    // A Job the CronJob controls, running: its status says so, as the Job controller would write it.
    const job = await client.create(Jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'test-job',
        namespace,
        ownerReferences: [{ apiVersion: CronJobResource.apiVersion, kind: 'CronJob', name: cronJob.metadata.name!, uid: cronJob.metadata.uid!, controller: true, blockOwnerDeletion: true }],
      },
      spec: { template: { spec: { containers: [{ name: 'test-container', image: 'test-image' }], restartPolicy: 'OnFailure' } } },
    });
    job.status = { active: 2, startTime: new Date() };
    await client.status().update(Jobs, job);

    // The Job's events queue its owner; the reconciler finds the Job through its index and records it.
    await vi.waitFor(async () => {
      const { status } = await client.get(CronJobResource, { namespace, name: 'test-cronjob' });
      expect(status?.active?.map((ref) => ref.name)).toEqual(['test-job']);
    }, { timeout: 30_000, interval: 250 });
  });
});
