import { CronExpressionParser } from 'cron-parser';
import type { Manager } from '@kubescaffold/runtime';
import {
  field,
  newWebhookManagedBy,
  type AdmissionContext,
  type CustomDefaulter,
  type CustomValidator,
  type FieldError,
  type ValidationResult,
} from '@kubescaffold/runtime/webhook';
import type { CronJob } from '../../../api/v1/cronjob_types.js';
import { CronJobResource } from '../../../api/v1/zz_generated.resources.js';
import { CronJobResource as CronJobV2Resource } from '../../../api/v2/zz_generated.resources.js';
import { cronJobConversion as cronJobV2Conversion } from '../../../api/v2/cronjob_conversion.js';

/** setupCronJobWebhookWithManager registers the webhooks for CronJob with the manager. */
export function setupCronJobWebhookWithManager(mgr: Manager): void {
  newWebhookManagedBy(mgr, CronJobResource)
    .withDefaulter(new CronJobCustomDefaulter())
    .withValidator(new CronJobCustomValidator())
    .withConversion([
      { resource: CronJobV2Resource, conversion: cronJobV2Conversion },
    ])
    .complete();
}

// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1

/** The values the defaulter gives the fields a CronJob leaves unset. */
export const cronJobDefaults = {
  concurrencyPolicy: 'Allow',
  suspend: false,
  successfulJobsHistoryLimit: 3,
  failedJobsHistoryLimit: 1,
} as const;

/**
 * CronJobCustomDefaulter sets default values on CronJob objects when they are created or updated.
 * Change the object in place: the response is the JSON patch from the original to your result.
 */
export class CronJobCustomDefaulter implements CustomDefaulter<CronJob> {
  default(obj: CronJob, ctx: AdmissionContext): void {
    ctx.log.info('defaulting for CronJob', { name: obj.metadata.name });

    obj.spec.concurrencyPolicy ??= cronJobDefaults.concurrencyPolicy;
    obj.spec.suspend ??= cronJobDefaults.suspend;
    obj.spec.successfulJobsHistoryLimit ??= cronJobDefaults.successfulJobsHistoryLimit;
    obj.spec.failedJobsHistoryLimit ??= cronJobDefaults.failedJobsHistoryLimit;
  }
}

// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1

/** CronJobCustomValidator rejects CronJobs whose name is too long for their Jobs' names, or whose schedule is not cron. */
export class CronJobCustomValidator implements CustomValidator<CronJob> {
  validateCreate(obj: CronJob, ctx: AdmissionContext): ValidationResult {
    ctx.log.info('validation for CronJob upon creation', { name: obj.metadata.name });
    return { errors: validateCronJob(obj) };
  }

  validateUpdate(_oldObj: CronJob, newObj: CronJob, ctx: AdmissionContext): ValidationResult {
    ctx.log.info('validation for CronJob upon update', { name: newObj.metadata.name });
    return { errors: validateCronJob(newObj) };
  }

  validateDelete(obj: CronJob, ctx: AdmissionContext): ValidationResult {
    ctx.log.info('validation for CronJob upon deletion', { name: obj.metadata.name });

    // Nothing to validate on deletion.
    return {};
  }
}

/** validateCronJob returns every problem with the CronJob, so that the user can fix them all at once. */
export function validateCronJob(cronJob: CronJob): FieldError[] {
  return [...validateCronJobName(cronJob), ...validateScheduleFormat(cronJob.spec.schedule, 'spec.schedule')];
}

/**
 * The name of a Job is the CronJob's name, a dash and a 10-digit timestamp, and must be a DNS label of at most 63
 * characters: so a CronJob's name may have at most 63 - 11 = 52.
 */
function validateCronJobName(cronJob: CronJob): FieldError[] {
  const name = cronJob.metadata.name ?? '';
  if (name.length > 52) return [field.invalid('metadata.name', name, 'must be no more than 52 characters')];
  return [];
}

/**
 * A schedule has the five fields of Kubernetes' own CronJob: minute, hour, day of month, month and day of week.
 * (cron-parser also takes a leading seconds field and `@hourly` and the like; v2 of the API has no room for them.)
 */
function validateScheduleFormat(schedule: string, path: string): FieldError[] {
  const fields = schedule.trim().split(/\s+/).length;
  if (fields !== 5) return [field.invalid(path, schedule, `must have 5 fields (minute hour day-of-month month day-of-week), not ${fields}`)];
  try {
    CronExpressionParser.parse(schedule);
    return [];
  } catch (err) {
    return [field.invalid(path, schedule, (err as Error).message)];
  }
}
