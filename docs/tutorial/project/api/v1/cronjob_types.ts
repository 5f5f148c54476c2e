import type { int32, int64, k8s, ObjectMeta, Time, TypeMeta } from '@kubescaffold/runtime';

/** CronJobSpec defines the desired state of CronJob. */
export interface CronJobSpec {
  /** schedule in Cron format, see https://en.wikipedia.org/wiki/Cron. */
  // +kubebuilder:validation:MinLength=0
  // +required
  schedule: string;

  /**
   * startingDeadlineSeconds is the deadline in seconds for starting the job if it misses its scheduled time for
   * any reason. Missed job executions will be counted as failed ones.
   */
  // +kubebuilder:validation:Minimum=0
  // +optional
  startingDeadlineSeconds?: int64;

  /**
   * concurrencyPolicy specifies how to treat concurrent executions of a Job. Valid values are:
   * - "Allow" (default): allows CronJobs to run concurrently;
   * - "Forbid": forbids concurrent runs, skipping the next run if the previous one hasn't finished yet;
   * - "Replace": cancels the currently running job and replaces it with a new one.
   */
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

/**
 * ConcurrencyPolicy describes how the job will be handled. Only one of the following concurrent policies may be
 * specified. If none of them is specified, the default one is Allow.
 */
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
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
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
