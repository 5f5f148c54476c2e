import type { Conversion } from '@kubescaffold/runtime/webhook';
import type { CronJob as HubCronJob } from '../v1/cronjob_types.js';
import type { CronJob } from './cronjob_types.js';

/**
 * cronJobConversion converts CronJob between this version (v2, a spoke) and the hub (v1), the version stored in
 * etcd. The two differ only in the schedule: one cron string in v1, its five fields by name in v2.
 */
export const cronJobConversion: Conversion<CronJob, HubCronJob> = {
  convertTo(src: CronJob): HubCronJob {
    const { minute, hour, dayOfMonth, month, dayOfWeek } = src.spec.schedule;
    const schedule = [minute, hour, dayOfMonth, month, dayOfWeek].map((f) => f ?? '*').join(' ');
    return { ...src, apiVersion: 'batch.tutorial.kubebuilder.io/v1', spec: { ...src.spec, schedule }, status: src.status && { ...src.status } };
  },
  convertFrom(hub: HubCronJob): CronJob {
    const parts = hub.spec.schedule.trim().split(/\s+/);
    // The v1 validating webhook admits only five-field schedules; anything else cannot be told apart in v2.
    if (parts.length !== 5) throw new Error(`invalid schedule ${JSON.stringify(hub.spec.schedule)}: not a standard 5-field schedule`);
    const [minute, hour, dayOfMonth, month, dayOfWeek] = parts;
    return {
      ...hub,
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      spec: { ...hub.spec, schedule: { minute, hour, dayOfMonth, month, dayOfWeek } },
      status: hub.status && { ...hub.status },
    };
  },
};
