/*
Copyright 2026 The Reloader port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import type { k8s, KubeObject, Resource } from '@kubescaffold/runtime';
import { CronJobs, DaemonSets, Deployments, Jobs, StatefulSets } from '@kubescaffold/runtime/rest';
import type { ReloaderOptions } from './options.js';

/** How a kind of workload is rolled: patched in place, a Job made from it (CronJob), or deleted and made again (Job). */
export type RollKind = 'patch' | 'create-job' | 'recreate';

/** A kind of workload Reloader rolls, and where its pod template is. */
export interface WorkloadKind<T extends KubeObject = KubeObject> {
  /** Reloader's name of the kind, in its messages. */
  type: 'Deployment' | 'CronJob' | 'Job' | 'DaemonSet' | 'StatefulSet';
  resource: Resource<T>;
  roll: RollKind;
  template(obj: T): k8s.V1PodTemplateSpec;
}

const kind = <T extends KubeObject>(k: WorkloadKind<T>): WorkloadKind => k as unknown as WorkloadKind;

/** The kinds in the order Reloader goes through them on each change (handler.doRollingUpgrade). */
export const workloadKinds: readonly WorkloadKind[] = [
  kind({ type: 'Deployment', resource: Deployments, roll: 'patch', template: (d) => d.spec!.template }),
  kind({
    type: 'CronJob',
    resource: CronJobs,
    roll: 'create-job',
    template: (c) => c.spec!.jobTemplate.spec!.template,
  }),
  kind({ type: 'Job', resource: Jobs, roll: 'recreate', template: (j) => j.spec!.template }),
  kind({ type: 'DaemonSet', resource: DaemonSets, roll: 'patch', template: (d) => d.spec!.template }),
  kind({ type: 'StatefulSet', resource: StatefulSets, roll: 'patch', template: (s) => s.spec!.template }),
];

/** The kinds rolled under `opts`: all but those of --ignored-workload-types. */
export function rolledKinds(opts: ReloaderOptions): readonly WorkloadKind[] {
  return workloadKinds.filter(
    (k) =>
      !(k.type === 'CronJob' && opts.workloadTypesToIgnore.includes('cronjobs')) &&
      !(k.type === 'Job' && opts.workloadTypesToIgnore.includes('jobs')),
  );
}
