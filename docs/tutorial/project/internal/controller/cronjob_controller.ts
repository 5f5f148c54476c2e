import { CronExpressionParser } from 'cron-parser';
import {
  isNotFound,
  newControllerManagedBy,
  type Client,
  type k8s,
  type Manager,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@kubescaffold/runtime';
import { getControllerOf, setControllerReference } from '@kubescaffold/runtime/client';
import { realClock, type Clock } from '@kubescaffold/runtime/manager';
import { Jobs } from '@kubescaffold/runtime/rest';
import type { CronJob } from '../../api/v1/cronjob_types.js';
import { CronJobResource } from '../../api/v1/zz_generated.resources.js';

/** The annotation on each Job that records the time it was scheduled for. */
export const scheduledTimeAnnotation = 'batch.tutorial.kubebuilder.io/scheduled-at';

/** The field index that finds a CronJob's Jobs: the name of the CronJob that controls each Job. */
export const jobOwnerKey = '.metadata.controller';

/** jobOwnerIndex is what the jobOwnerKey index holds for a Job: its controller's name, if that is a CronJob. */
export function jobOwnerIndex(job: k8s.V1Job): string[] {
  const owner = getControllerOf(job);
  if (!owner || owner.apiVersion !== CronJobResource.apiVersion || owner.kind !== 'CronJob') return [];
  return [owner.name];
}

// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs/status,verbs=get

/** CronJobReconciler reconciles a CronJob object. */
export class CronJobReconciler implements Reconciler {
  /** The clock says what time it is; tests pass one that they set. */
  constructor(
    private readonly client: Client,
    private readonly clock: Clock = realClock,
  ) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    // 1: Load the CronJob by name.
    let cronJob: CronJob;
    try {
      cronJob = await this.client.get(CronJobResource, req);
    } catch (err) {
      // Deleted after the request was queued: its Jobs are garbage-collected, nothing is left to do.
      if (isNotFound(err)) return {};
      throw err;
    }

    // 2: List all active jobs, and update the status.
    const childJobs = await this.client.list(Jobs, { namespace: req.namespace, fieldSelector: `${jobOwnerKey}=${req.name}` });

    const activeJobs: k8s.V1Job[] = [];
    const successfulJobs: k8s.V1Job[] = [];
    const failedJobs: k8s.V1Job[] = [];
    let mostRecentTime: Date | undefined; // the most recent time a job ran, to know the last run in the status
    for (const job of childJobs.items) {
      const finished = jobFinishedType(job);
      if (finished === undefined) activeJobs.push(job);
      else if (finished === 'Failed') failedJobs.push(job);
      else successfulJobs.push(job);

      // The scheduled time is in an annotation: reading it here avoids relying on the jobs' own timestamps.
      const scheduledTime = scheduledTimeFor(job);
      if (scheduledTime && (!mostRecentTime || scheduledTime > mostRecentTime)) mostRecentTime = scheduledTime;
    }

    cronJob.status ??= {};
    if (mostRecentTime) cronJob.status.lastScheduleTime = mostRecentTime.toISOString().replace(/\.\d{3}Z$/, 'Z');
    else delete cronJob.status.lastScheduleTime;
    cronJob.status.active = activeJobs.map((job) => referenceTo(job));
    if (cronJob.status.active.length === 0) delete cronJob.status.active;

    ctx.log.info('job count', { 'active jobs': activeJobs.length, 'successful jobs': successfulJobs.length, 'failed jobs': failedJobs.length });
    cronJob = await this.client.status().update(CronJobResource, cronJob);

    // 3: Clean up old jobs according to the history limit. Best effort: a failure here does not fail the reconcile.
    if (cronJob.spec.failedJobsHistoryLimit !== undefined) {
      await this.deleteOldest(failedJobs, cronJob.spec.failedJobsHistoryLimit, ctx, 'old failed job');
    }
    if (cronJob.spec.successfulJobsHistoryLimit !== undefined) {
      await this.deleteOldest(successfulJobs, cronJob.spec.successfulJobsHistoryLimit, ctx, 'old successful job');
    }

    // 4: Check if we're suspended.
    if (cronJob.spec.suspend) {
      ctx.log.info('cronjob suspended, skipping');
      return {};
    }

    // 5: Get the next scheduled run.
    const now = this.clock.date();
    let missedRun: Date | undefined;
    let nextRun: Date;
    try {
      ({ lastMissed: missedRun, next: nextRun } = getNextSchedule(cronJob, now));
    } catch (err) {
      // A schedule that cannot be parsed stays unparseable until the CronJob changes, which queues it again.
      ctx.log.error(err, 'unable to figure out CronJob schedule');
      return {};
    }

    // We requeue for the next run; whatever else happens below, this is the result.
    const scheduledResult: Result = { requeueAfter: nextRun.getTime() - now.getTime() };
    const log = ctx.log.withValues({ now: now.toISOString(), 'next run': nextRun.toISOString() });

    // 6: Run a new job if it's on schedule, not past the deadline, and not blocked by our concurrency policy.
    if (!missedRun) {
      log.info('no upcoming scheduled times, sleeping until next');
      return scheduledResult;
    }

    log.info('current run', { 'current run': missedRun.toISOString() });
    const deadlineSeconds = cronJob.spec.startingDeadlineSeconds;
    if (deadlineSeconds !== undefined && missedRun.getTime() + deadlineSeconds * 1000 < now.getTime()) {
      log.info('missed starting deadline for last run, sleeping till next');
      return scheduledResult;
    }

    if (cronJob.spec.concurrencyPolicy === 'Forbid' && activeJobs.length > 0) {
      log.info('concurrency policy blocks concurrent runs, skipping', { 'num active': activeJobs.length });
      return scheduledResult;
    }
    if (cronJob.spec.concurrencyPolicy === 'Replace') {
      for (const job of activeJobs) {
        try {
          await this.client.delete(Jobs, { namespace: job.metadata!.namespace!, name: job.metadata!.name! }, { propagationPolicy: 'Background' });
        } catch (err) {
          if (!isNotFound(err)) {
            log.error(err, 'unable to delete active job', { job: job.metadata?.name });
            throw err;
          }
        }
      }
    }

    const job = constructJobForCronJob(cronJob, missedRun);
    try {
      await this.client.create(Jobs, job);
    } catch (err) {
      log.error(err, 'unable to create Job for CronJob', { job: job.metadata?.name });
      throw err;
    }
    log.info('created Job for CronJob run', { job: job.metadata?.name });

    // 7: Requeue when we either see a running job or it's time for the next scheduled run.
    return scheduledResult;
  }

  private async deleteOldest(jobs: k8s.V1Job[], limit: number, ctx: ReconcileContext, what: string): Promise<void> {
    const byStart = [...jobs].sort((a, b) => startTimeOf(a) - startTimeOf(b));
    for (const job of byStart.slice(0, Math.max(0, byStart.length - limit))) {
      try {
        await this.client.delete(Jobs, { namespace: job.metadata!.namespace!, name: job.metadata!.name! }, { propagationPolicy: 'Background' });
        ctx.log.info(`deleted ${what}`, { job: job.metadata?.name });
      } catch (err) {
        if (!isNotFound(err)) ctx.log.error(err, `unable to delete ${what}`, { job: job.metadata?.name });
      }
    }
  }

  /** setupWithManager sets up the controller with the Manager. */
  setupWithManager(mgr: Manager): void {
    // The reconciler lists a CronJob's Jobs by this index, which the manager's cache keeps up to date.
    mgr.getFieldIndexer().indexField(Jobs, jobOwnerKey, jobOwnerIndex);
    newControllerManagedBy(mgr).for(CronJobResource).owns(Jobs).named('cronjob').complete(this);
  }
}

/** A job is finished when it has a "Complete" or "Failed" condition marked as true. */
export function jobFinishedType(job: k8s.V1Job): 'Complete' | 'Failed' | undefined {
  const finished = job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  return finished?.type as 'Complete' | 'Failed' | undefined;
}

function scheduledTimeFor(job: k8s.V1Job): Date | undefined {
  const raw = job.metadata?.annotations?.[scheduledTimeAnnotation];
  if (raw === undefined) return undefined;
  const time = new Date(raw);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

// Jobs that have not started sort first, as a zero time does in Go.
function startTimeOf(job: k8s.V1Job): number {
  return job.status?.startTime ? new Date(job.status.startTime).getTime() : 0;
}

function referenceTo(job: k8s.V1Job): k8s.V1ObjectReference {
  return {
    apiVersion: Jobs.apiVersion,
    kind: Jobs.kind,
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    resourceVersion: job.metadata?.resourceVersion,
  };
}

/**
 * getNextSchedule finds the last run that was missed (the one to start now, if any) and the next run after `now`.
 * It starts from the last scheduled run, or the CronJob's creation, or the starting deadline, whichever is latest.
 */
export function getNextSchedule(cronJob: CronJob, now: Date): { lastMissed?: Date; next: Date } {
  const next = (after: Date): Date =>
    CronExpressionParser.parse(cronJob.spec.schedule, { currentDate: after, tz: 'UTC' }).next().toDate();

  // For optimization purposes, cheat a bit and start from our last observed run time.
  const lastRun = cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp;
  let earliestTime = lastRun ? new Date(lastRun) : now;
  if (cronJob.spec.startingDeadlineSeconds !== undefined) {
    // Controller is not going to schedule anything below this point.
    const schedulingDeadline = new Date(now.getTime() - cronJob.spec.startingDeadlineSeconds * 1000);
    if (schedulingDeadline > earliestTime) earliestTime = schedulingDeadline;
  }
  if (earliestTime > now) return { next: next(now) };

  let lastMissed: Date | undefined;
  let starts = 0;
  for (let t = next(earliestTime); t <= now; t = next(t)) {
    lastMissed = t;
    // An object might miss several starts. For example, if the controller gets wedged on Friday at 5:01pm when
    // everyone has gone home, and someone comes in on Tuesday AM and discovers the problem and restarts the
    // controller, then all the hourly jobs, more than 80 of them for one hourly scheduledJob, should all start
    // running with no further intervention (if the scheduledJob allows concurrency and late starts). A schedule
    // that runs far more often than the controller looks is given up on, rather than looped over.
    if (++starts > 100) {
      throw new Error('Too many missed start times (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.');
    }
  }
  return { lastMissed, next: next(now) };
}

/**
 * constructJobForCronJob builds the Job for the run scheduled at `scheduledTime`: its name is deterministic, so
 * that a second reconcile of the same run cannot create a second Job.
 */
export function constructJobForCronJob(cronJob: CronJob, scheduledTime: Date): k8s.V1Job {
  const template = cronJob.spec.jobTemplate;
  const job: k8s.V1Job = {
    apiVersion: Jobs.apiVersion,
    kind: Jobs.kind,
    metadata: {
      name: `${cronJob.metadata.name}-${Math.floor(scheduledTime.getTime() / 1000)}`,
      namespace: cronJob.metadata.namespace,
      labels: { ...template.metadata?.labels },
      annotations: { ...template.metadata?.annotations, [scheduledTimeAnnotation]: scheduledTime.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    },
    spec: structuredClone(template.spec),
  };
  setControllerReference(cronJob, job, { ownerType: CronJobResource });
  return job;
}
