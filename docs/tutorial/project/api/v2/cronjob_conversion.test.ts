import { describe, expect, it } from 'vitest';
import type { CronJob as HubCronJob } from '../v1/cronjob_types.js';
import type { CronJob } from './cronjob_types.js';
import { cronJobConversion } from './cronjob_conversion.js';

const jobTemplate = { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox' }], restartPolicy: 'OnFailure' } } } };

describe('cronJobConversion (v2 <-> v1)', () => {
  it('splits the v1 schedule into the fields of v2, and joins them back unchanged', () => {
    const hub: HubCronJob = {
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
      metadata: { name: 'test', namespace: 'default' },
      spec: { schedule: '*/1 2 3-4 * 1,5', suspend: true, jobTemplate },
      status: { lastScheduleTime: '2026-01-01T10:00:00Z' },
    };
    const spoke = cronJobConversion.convertFrom(hub);
    expect(spoke.apiVersion).toBe('batch.tutorial.kubebuilder.io/v2');
    expect(spoke.spec.schedule).toEqual({ minute: '*/1', hour: '2', dayOfMonth: '3-4', month: '*', dayOfWeek: '1,5' });
    expect(spoke.spec.suspend).toBe(true);
    expect(cronJobConversion.convertTo(spoke)).toEqual(hub);
  });

  it('reads a field left out of the v2 schedule as "*"', () => {
    const spoke: CronJob = {
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
      metadata: { name: 'test', namespace: 'default' },
      spec: { schedule: { minute: '0', hour: '9' }, jobTemplate },
    };
    expect(cronJobConversion.convertTo(spoke).spec.schedule).toBe('0 9 * * *');
  });

  it('refuses a v1 schedule that has no five fields to split into', () => {
    const hub: HubCronJob = { apiVersion: 'batch.tutorial.kubebuilder.io/v1', kind: 'CronJob', metadata: { name: 'test' }, spec: { schedule: '@hourly', jobTemplate } };
    expect(() => cronJobConversion.convertFrom(hub)).toThrow(/not a standard 5-field schedule/);
  });
});
