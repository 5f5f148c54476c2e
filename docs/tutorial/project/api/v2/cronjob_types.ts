import type { int32, int64, k8s, ObjectMeta, Time, TypeMeta } from '@kubescaffold/runtime';

/** CronJobSpec defines the desired state of CronJob. */
export interface CronJobSpec {
  /** schedule in Cron format, see https://en.wikipedia.org/wiki/Cron. */
  // +required
  schedule: CronSchedule;

  /**
   * startingDeadlineSeconds is the deadline in seconds for starting the job if it misses its scheduled time for
   * any reason. Missed job executions will be counted as failed ones.
   */
  // +kubebuilder:validation:Minimum=0
  // +optional
  startingDeadlineSeconds?: int64;

  /** concurrencyPolicy specifies how to treat concurrent executions of a Job: Allow (default), Forbid or Replace. */
  // +optional
  // +kubebuilder:default:=Allow
  concurrencyPolicy?: ConcurrencyPolicy;

  /** suspend tells the controller to suspend subsequent executions; it does not apply to already started executions. */
  // +optional
  suspend?: boolean;

  /** jobTemplate specifies the job that will be created when executing a CronJob. */
  // +required
  jobTemplate: k8s.V1JobTemplateSpec;

  /** successfulJobsHistoryLimit is the number of successful finished jobs to retain. */
  // +kubebuilder:validation:Minimum=0
  // +optional
  successfulJobsHistoryLimit?: int32;

  /** failedJobsHistoryLimit is the number of failed finished jobs to retain. */
  // +kubebuilder:validation:Minimum=0
  // +optional
  failedJobsHistoryLimit?: int32;
}

/** CronSchedule describes a cron schedule field by field. A field left out means "every" (`*`). */
export interface CronSchedule {
  /** minute specifies the minutes during which the job executes. */
  // +optional
  minute?: CronField;

  /** hour specifies the hour during which the job executes. */
  // +optional
  hour?: CronField;

  /** dayOfMonth specifies the day of the month during which the job executes. */
  // +optional
  dayOfMonth?: CronField;

  /** month specifies the month during which the job executes. */
  // +optional
  month?: CronField;

  /** dayOfWeek specifies the day of the week during which the job executes. */
  // +optional
  dayOfWeek?: CronField;
}

/** CronField is one field of a cron schedule, such as `*`, `5`, `1-5` or `0-30/10`. */
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:Pattern=`^\S+$`
export type CronField = string;

/** ConcurrencyPolicy describes how the job will be handled; the default is Allow. */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

/** CronJobStatus defines the observed state of CronJob. */
export interface CronJobStatus {
  /** active is a list of pointers to currently running jobs. */
  // +optional
  // +listType=atomic
  active?: k8s.V1ObjectReference[];

  /** lastScheduleTime is the last time the job was successfully scheduled. */
  // +optional
  lastScheduleTime?: Time;
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
/** CronJob is the Schema for the cronjobs API. */
export interface CronJob extends TypeMeta {
  /** metadata is a standard object's metadata */
  // +optional
  metadata: ObjectMeta;

  /** spec defines the desired state of CronJob */
  // +required
  spec: CronJobSpec;

  /** status defines the observed state of CronJob */
  // +optional
  status?: CronJobStatus;
}
