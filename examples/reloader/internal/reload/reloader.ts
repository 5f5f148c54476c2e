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

import type { Client, KubeObject, Logger, k8s } from '@kubescaffold/runtime';
import type { EventRecorder } from '@kubescaffold/runtime/manager';
import { Jobs } from '@kubescaffold/runtime/rest';
import { containerUsing, reloaderEnvVar } from './containers.js';
import type { ReloaderOptions } from './options.js';
import { shouldReload } from './should-reload.js';
import { EMPTY_HASH, type ReloadSource } from './source.js';
import { rolledKinds, type WorkloadKind } from './workloads.js';

// What Reloader's ClusterRole grants it on the workloads, which it patches, makes or deletes, and on the Events it
// records, plus watch: the port caches the workloads; the controllers add their own kind's read verbs.
// +kubebuilder:rbac:groups=apps,resources=deployments;daemonsets;statefulsets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=batch,resources=cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch

/** The field manager of Reloader's writes, as its callbacks name it. */
export const FIELD_MANAGER = 'Reloader';

/** The pod-template annotation of the annotations strategy. */
export const LAST_RELOADED_FROM = 'reloader.stakater.com/last-reloaded-from';

/** What happened to the source: it changed (or was created), or it was deleted. */
export type SourceEvent = 'changed' | 'deleted';

/** What the Reloader reads and writes with. */
export interface ReloaderDeps {
  /**
   * Lists the workloads: the manager's client, which reads them from its cache (the controllers declare them with
   * reads()) and waits for the cache to show its own writes (client.cache.readYourWrites).
   */
  reader: Client;
  /** Writes the workloads. */
  writer: Client;
  /** Records Reloaded and ReloadFail Events on the workloads it rolls. */
  recorder: EventRecorder;
  opts: ReloaderOptions;
  log: Logger;
  /** The time of the annotations strategy's observedAt. */
  now?: () => Date;
}

/** A change to one workload: the patch, or the object as it must be written (kinds that are not patched). */
type Change = { patch: unknown; type: 'strategic' | 'json' } | { object: KubeObject };

/**
 * Rolls the workloads of a source's namespace that follow it (Reloader's handler.PerformAction over each kind): for
 * each, decides from its annotations, finds the container that uses the source, and writes the hash into its env var
 * or its pod template's annotation.
 */
export class Reloader {
  private readonly now: () => Date;

  constructor(private readonly deps: ReloaderDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** Rolls every workload that follows `source`; rejects with the first write that fails, as Reloader returns it. */
  async reload(source: ReloadSource, event: SourceEvent): Promise<void> {
    for (const kind of rolledKinds(this.deps.opts)) {
      const { items } = await this.deps.reader.list(kind.resource, { namespace: source.namespace });
      for (const item of items) await this.rollOne(kind, item, source, event);
    }
  }

  private async rollOne(kind: WorkloadKind, item: KubeObject, source: ReloadSource, event: SourceEvent): Promise<void> {
    const template = kind.template(item);
    const decision = shouldReload(
      source,
      kind.type,
      item.metadata?.annotations ?? {},
      template.metadata?.annotations ?? {},
      this.deps.opts,
    );
    const name = item.metadata?.name ?? '';
    for (const error of decision.errors)
      this.deps.log.error(new Error(error), 'skipping invalid reload annotation', { kind: kind.type, name });
    if (!decision.shouldReload) return;

    const change = this.change(kind, item, source, event, decision.autoReload);
    if (!change) return;
    const ns = source.namespace;
    try {
      if ('patch' in change)
        await this.deps.writer.patch(kind.resource, { namespace: ns, name }, change.patch, {
          type: change.type,
          fieldManager: FIELD_MANAGER,
        });
      else if (kind.roll === 'create-job') await this.createJobFrom(change.object as k8s.V1CronJob);
      else await this.recreateJob(change.object as k8s.V1Job);
    } catch (err) {
      const message = `Update for '${name}' of type '${kind.type}' in namespace '${ns}' failed with error ${String(err)}`;
      this.deps.recorder.event(item, 'Warning', 'ReloadFail', message);
      throw err;
    }
    this.deps.log.info('reloaded', { source: source.name, type: source.type, kind: kind.type, name, namespace: ns });
    this.deps.recorder.event(
      item,
      'Normal',
      'Reloaded',
      `Changes detected in '${source.name}' of type '${source.type}' in namespace '${ns}', Updated '${name}' of type '${kind.type}' in namespace '${ns}'`,
    );
  }

  /**
   * The write that rolls `item`, or undefined when it needs none (no container uses the source, or its env var
   * already holds the hash). Kinds that are not patched get their pod template changed in place, and are written whole.
   */
  private change(
    kind: WorkloadKind,
    item: KubeObject,
    source: ReloadSource,
    event: SourceEvent,
    autoReload: boolean,
  ): Change | undefined {
    const template = kind.template(item);
    const podSpec = template.spec ?? { containers: [] };
    const container = containerUsing(podSpec, source, autoReload);
    if (!container) return undefined;
    const patched = kind.roll === 'patch';

    if (this.deps.opts.reloadStrategy === 'annotations') {
      const hash = event === 'deleted' ? EMPTY_HASH : source.hash;
      // The field order of Reloader's common.ReloadSource, which it marshals.
      const value = JSON.stringify({
        type: source.type,
        name: source.name,
        namespace: source.namespace,
        hash,
        containerRefs: [container.name],
        observedAt: Math.floor(this.now().getTime() / 1000),
      });
      template.metadata = {
        ...template.metadata,
        annotations: { ...template.metadata?.annotations, [LAST_RELOADED_FROM]: value },
      };
      return patched
        ? {
            type: 'strategic',
            patch: { spec: { template: { metadata: { annotations: { [LAST_RELOADED_FROM]: value } } } } },
          }
        : { object: item };
    }

    const envVar = reloaderEnvVar(source);
    const env = container.env ?? [];
    const index = env.findIndex((e) => e.name === envVar);
    if (event === 'deleted') {
      if (index === -1) return undefined;
      const containerIndex = podSpec.containers.findIndex((c) => c.name === container.name);
      env.splice(index, 1);
      return patched
        ? {
            type: 'json',
            patch: [{ op: 'remove', path: `/spec/template/spec/containers/${containerIndex}/env/${index}` }],
          }
        : { object: item };
    }
    if (index !== -1 && env[index]!.value === source.hash) return undefined;
    if (index === -1) container.env = [...env, { name: envVar, value: source.hash }];
    else env[index]!.value = source.hash;
    return patched
      ? {
          type: 'strategic',
          patch: {
            spec: {
              template: {
                spec: { containers: [{ name: container.name, env: [{ name: envVar, value: source.hash }] }] },
              },
            },
          },
        }
      : { object: item };
  }

  /** A Job from the CronJob's template, as `kubectl create job --from=cronjob/...` makes one (Reloader's CreateJobFromCronjob). */
  private async createJobFrom(cronJob: k8s.V1CronJob): Promise<void> {
    const template = cronJob.spec!.jobTemplate;
    const job: k8s.V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        generateName: `${cronJob.metadata!.name}-`,
        namespace: cronJob.metadata!.namespace,
        annotations: { 'cronjob.kubernetes.io/instantiate': 'manual', ...template.metadata?.annotations },
        ...(template.metadata?.labels ? { labels: template.metadata.labels } : {}),
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'CronJob',
            name: cronJob.metadata!.name!,
            uid: cronJob.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: template.spec,
    };
    await this.deps.writer.create(Jobs, job, { fieldManager: FIELD_MANAGER });
  }

  /** Deletes the Job and makes it again with the changed template, its generated selector and labels left out (ReCreateJobFromjob). */
  private async recreateJob(old: k8s.V1Job): Promise<void> {
    const meta = old.metadata!;
    await this.deps.writer.delete(
      Jobs,
      { namespace: meta.namespace!, name: meta.name! },
      { propagationPolicy: 'Background' },
    );
    const labels = { ...old.spec!.template.metadata?.labels };
    for (const l of [
      'controller-uid',
      'batch.kubernetes.io/controller-uid',
      'batch.kubernetes.io/job-name',
      'job-name',
    ])
      delete labels[l];
    const { resourceVersion: _rv, uid: _uid, creationTimestamp: _created, ...keptMeta } = meta;
    const { selector: _selector, ...spec } = old.spec!;
    const job: k8s.V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: keptMeta,
      spec: { ...spec, template: { ...spec.template, metadata: { ...spec.template.metadata, labels } } },
    };
    await this.deps.writer.create(Jobs, job, { fieldManager: FIELD_MANAGER });
  }
}
