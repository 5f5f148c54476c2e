import { describe, expect, it } from 'vitest';
import { log } from '@kubescaffold/runtime';
import type { AdmissionContext } from '@kubescaffold/runtime/webhook';
import type { CronJob } from '../../../api/v1/cronjob_types.js';
import { CronJobCustomDefaulter, CronJobCustomValidator, cronJobDefaults } from './cronjob_webhook.js';

// The webhook logic is plain code: test it directly. cronjob_webhook.integration.test.ts runs it behind the API server.
function newCronJob(): CronJob {
  return {
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { name: 'test-cronjob', namespace: 'default' },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
    },
  };
}

function context(operation: 'CREATE' | 'UPDATE' | 'DELETE'): AdmissionContext {
  return {
    signal: AbortSignal.timeout(10_000),
    log: log.withName('test'),
    request: {
      uid: 'test',
      kind: { group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' },
      resource: { group: 'batch.tutorial.kubebuilder.io', version: 'v1', resource: 'cronjobs' },
      operation,
      userInfo: { username: 'test' },
    },
  } as AdmissionContext;
}

describe('CronJobCustomDefaulter', () => {
  const defaulter = new CronJobCustomDefaulter();

  it('sets the defaults of the fields left unset', () => {
    const obj = newCronJob();
    defaulter.default(obj, context('CREATE'));
    expect(obj.spec).toMatchObject(cronJobDefaults);
    expect(obj.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  });

  it('keeps the values that are set', () => {
    const obj = newCronJob();
    obj.spec = { ...obj.spec, concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 2 };
    defaulter.default(obj, context('CREATE'));
    expect(obj.spec).toMatchObject({ concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 2 });
  });
});

describe('CronJobCustomValidator', () => {
  const validator = new CronJobCustomValidator();

  it('admits a valid CronJob on create, update and delete', () => {
    expect(validator.validateCreate(newCronJob(), context('CREATE'))).toEqual({ errors: [] });
    expect(validator.validateUpdate(newCronJob(), newCronJob(), context('UPDATE'))).toEqual({ errors: [] });
    expect(validator.validateDelete(newCronJob(), context('DELETE'))).toEqual({});
  });

  it('rejects a name too long for the names of its Jobs', () => {
    const obj = newCronJob();
    obj.metadata.name = 'a'.repeat(53);
    expect(validator.validateCreate(obj, context('CREATE')).errors).toEqual([
      expect.objectContaining({ field: 'metadata.name', type: 'FieldValueInvalid', message: 'must be no more than 52 characters' }),
    ]);
  });

  it('rejects a schedule that is not a five-field cron expression, on create and on update', () => {
    for (const schedule of ['every minute', '*/1 * * *', '0 */1 * * * *', '61 * * * *']) {
      const obj = newCronJob();
      obj.spec.schedule = schedule;
      expect(validator.validateCreate(obj, context('CREATE')).errors, schedule).toEqual([expect.objectContaining({ field: 'spec.schedule', value: schedule })]);
      expect(validator.validateUpdate(newCronJob(), obj, context('UPDATE')).errors, schedule).toHaveLength(1);
    }
  });
});
