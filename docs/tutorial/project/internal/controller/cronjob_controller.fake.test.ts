import { describe, expect, it } from 'vitest';
import { log, type k8s, type ReconcileContext } from '@kubescaffold/runtime';
import { FakeClient, fieldIndex } from '@kubescaffold/runtime/fake';
import { realClock, type Clock } from '@kubescaffold/runtime/manager';
import { Jobs } from '@kubescaffold/runtime/rest';
import type { CronJob } from '../../api/v1/cronjob_types.js';
import { CronJobResource } from '../../api/v1/zz_generated.resources.js';
import { CronJobReconciler, getNextSchedule, jobOwnerIndex, jobOwnerKey, scheduledTimeAnnotation } from './cronjob_controller.js';

// The reconciler's decisions, on an in-memory fake client and a clock the test sets: no control plane, no waiting
// for the next minute. cronjob_controller.test.ts runs it in a manager against a real API server.
const namespace = 'default';
const created = new Date('2026-01-01T10:00:00Z');

function clockAt(time: Date): Clock {
  return { ...realClock, date: () => time };
}

function context(): ReconcileContext {
  return { signal: AbortSignal.timeout(30_000), log: log.withName('test'), reconcileID: 'test', controller: 'cronjob' };
}

function newCronJob(spec: Partial<CronJob['spec']> = {}): CronJob {
  return {
    apiVersion: CronJobResource.apiVersion,
    kind: 'CronJob',
    metadata: { name: 'test-cronjob', namespace, creationTimestamp: created },
    spec: {
      schedule: '*/10 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
      ...spec,
    },
  };
}

/** A fake client holding the CronJob, created at `created`, with the index the manager's cache would have. */
async function clientWith(cronJob: CronJob): Promise<{ client: FakeClient; cronJob: CronJob }> {
  const client = new FakeClient({ statusSubresource: [CronJobResource], indexes: [fieldIndex(Jobs, jobOwnerKey, jobOwnerIndex)], clock: () => created });
  return { client, cronJob: await client.create(CronJobResource, cronJob) };
}

async function jobsOf(client: FakeClient): Promise<k8s.V1Job[]> {
  return (await client.list(Jobs, { namespace, fieldSelector: `${jobOwnerKey}=test-cronjob` })).items;
}

/** A Job of the CronJob, scheduled at `scheduledAt`, finished as `finished` if given. */
async function addJob(client: FakeClient, owner: CronJob, scheduledAt: Date, finished?: 'Complete' | 'Failed'): Promise<void> {
  const job = await client.create(Jobs, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `test-cronjob-${scheduledAt.getTime() / 1000}`,
      namespace,
      annotations: { [scheduledTimeAnnotation]: scheduledAt.toISOString() },
      ownerReferences: [{ apiVersion: CronJobResource.apiVersion, kind: 'CronJob', name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true }],
    },
    spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox' }], restartPolicy: 'OnFailure' } } },
  });
  if (finished) {
    job.status = { startTime: scheduledAt, conditions: [{ type: finished, status: 'True' }] };
    await client.status().update(Jobs, job);
  }
}

describe('getNextSchedule', () => {
  it('finds the last missed run since the CronJob was created, and the next one', () => {
    const { lastMissed, next } = getNextSchedule(newCronJob(), new Date('2026-01-01T10:25:00Z'));
    expect(lastMissed).toEqual(new Date('2026-01-01T10:20:00Z'));
    expect(next).toEqual(new Date('2026-01-01T10:30:00Z'));
  });

  it('misses nothing before the first run, and nothing again after the last scheduled one', () => {
    expect(getNextSchedule(newCronJob(), new Date('2026-01-01T10:05:00Z'))).toEqual({ lastMissed: undefined, next: new Date('2026-01-01T10:10:00Z') });
    const ran = { ...newCronJob(), status: { lastScheduleTime: '2026-01-01T10:20:00Z' } };
    expect(getNextSchedule(ran, new Date('2026-01-01T10:25:00Z'))).toEqual({ lastMissed: undefined, next: new Date('2026-01-01T10:30:00Z') });
  });

  it('counts a run exactly at the current time as missed', () => {
    expect(getNextSchedule(newCronJob(), new Date('2026-01-01T10:10:00Z')).lastMissed).toEqual(new Date('2026-01-01T10:10:00Z'));
  });

  it('gives up on more than 100 missed runs unless a starting deadline bounds them', () => {
    const now = new Date('2026-01-02T10:00:00Z');
    expect(() => getNextSchedule(newCronJob(), now)).toThrow(/Too many missed start times \(> 100\)/);
    expect(getNextSchedule(newCronJob({ startingDeadlineSeconds: 3600 }), now).lastMissed).toEqual(now);
  });

  it('rejects a schedule that is not cron', () => {
    expect(() => getNextSchedule(newCronJob({ schedule: 'every minute' }), created)).toThrow();
  });
});

describe('CronJobReconciler on a fake client', () => {
  const now = new Date('2026-01-01T10:25:00Z');

  it('creates the Job of a missed run, owned by the CronJob, and requeues for the next run', async () => {
    const { client, cronJob } = await clientWith(newCronJob());
    const result = await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context());

    expect(result).toEqual({ requeueAfter: 5 * 60_000 });
    const [job, ...others] = await jobsOf(client);
    expect(others).toEqual([]);
    expect(job!.metadata!.name).toBe(`test-cronjob-${Date.parse('2026-01-01T10:20:00Z') / 1000}`);
    expect(job!.metadata!.annotations![scheduledTimeAnnotation]).toBe('2026-01-01T10:20:00Z');
    expect(job!.metadata!.ownerReferences).toEqual([expect.objectContaining({ kind: 'CronJob', name: 'test-cronjob', uid: cronJob.metadata.uid, controller: true })]);
    expect(job!.spec!.template.spec!.containers[0]!.image).toBe('busybox');
  });

  it('records the active Jobs and the last scheduled time in the status', async () => {
    const { client, cronJob } = await clientWith(newCronJob());
    await addJob(client, cronJob, new Date('2026-01-01T10:20:00Z'));
    await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context());

    const status = (await client.get(CronJobResource, { namespace, name: 'test-cronjob' })).status;
    expect(status?.lastScheduleTime).toBe('2026-01-01T10:20:00Z');
    expect(status?.active).toEqual([expect.objectContaining({ kind: 'Job', name: `test-cronjob-${Date.parse('2026-01-01T10:20:00Z') / 1000}`, namespace })]);
  });

  it('starts nothing while suspended', async () => {
    const { client } = await clientWith(newCronJob({ suspend: true }));
    expect(await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context())).toEqual({});
    expect(await jobsOf(client)).toEqual([]);
  });

  it('starts nothing after the starting deadline of the missed run has passed', async () => {
    const { client } = await clientWith(newCronJob({ schedule: '20 * * * *', startingDeadlineSeconds: 60 }));
    await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context());
    expect(await jobsOf(client)).toEqual([]);
  });

  it('with concurrencyPolicy Forbid, starts no run while one is active', async () => {
    const { client, cronJob } = await clientWith(newCronJob({ concurrencyPolicy: 'Forbid' }));
    await addJob(client, cronJob, new Date('2026-01-01T10:10:00Z'));
    await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context());
    expect((await jobsOf(client)).map((j) => j.metadata!.annotations![scheduledTimeAnnotation])).toEqual(['2026-01-01T10:10:00.000Z']);
  });

  it('with concurrencyPolicy Replace, deletes the active run and starts the missed one', async () => {
    const { client, cronJob } = await clientWith(newCronJob({ concurrencyPolicy: 'Replace' }));
    await addJob(client, cronJob, new Date('2026-01-01T10:10:00Z'));
    await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context());
    expect((await jobsOf(client)).map((j) => j.metadata!.annotations![scheduledTimeAnnotation])).toEqual(['2026-01-01T10:20:00Z']);
  });

  it('keeps only as many finished Jobs as the history limits say, deleting the oldest', async () => {
    const { client, cronJob } = await clientWith(newCronJob({ successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 }));
    await addJob(client, cronJob, new Date('2026-01-01T10:00:00Z'), 'Complete');
    await addJob(client, cronJob, new Date('2026-01-01T10:10:00Z'), 'Complete');
    await addJob(client, cronJob, new Date('2026-01-01T10:20:00Z'), 'Failed');
    await new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'test-cronjob' }, context());
    expect((await jobsOf(client)).map((j) => j.metadata!.annotations![scheduledTimeAnnotation])).toEqual(['2026-01-01T10:10:00.000Z']);
  });

  it('does nothing for a CronJob that no longer exists', async () => {
    const client = new FakeClient({ statusSubresource: [CronJobResource] });
    await expect(new CronJobReconciler(client, clockAt(now)).reconcile({ namespace, name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
