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

/** How changes are rolled out: an env var with the data's hash (Reloader's default), or a pod-template annotation. */
export type ReloadStrategy = 'env-vars' | 'annotations';

/**
 * What Reloader reads from its flags (internal/pkg/options and common.ReloaderOptions): the annotation names it looks
 * for on workloads and on ConfigMaps and Secrets, and which events roll workloads out.
 */
export interface ReloaderOptions {
  autoReloadAll: boolean;
  configmapUpdateOnChangeAnnotation: string;
  secretUpdateOnChangeAnnotation: string;
  reloaderAutoAnnotation: string;
  ignoreResourceAnnotation: string;
  configmapReloaderAutoAnnotation: string;
  secretReloaderAutoAnnotation: string;
  configmapExcludeReloaderAnnotation: string;
  secretExcludeReloaderAnnotation: string;
  autoSearchAnnotation: string;
  searchMatchAnnotation: string;
  reloadStrategy: ReloadStrategy;
  reloadOnCreate: boolean;
  reloadOnDelete: boolean;
  syncAfterRestart: boolean;
  /** Watch only these namespaces; all when empty. */
  namespaces: string[];
  /** Namespaces whose ConfigMaps and Secrets are ignored (when all namespaces are watched). */
  namespacesToIgnore: string[];
  /** Only ConfigMaps and Secrets with these labels (a label selector); all when empty. */
  resourceLabelSelector: string;
  /** 'configmaps' or 'secrets': that kind is not watched. */
  resourcesToIgnore: ('configmaps' | 'secrets')[];
  /** 'jobs' and/or 'cronjobs': those workloads are not rolled. */
  workloadTypesToIgnore: ('jobs' | 'cronjobs')[];
}

/** A comma-separated list, as pflag's StringSlice reads it ('' is the empty list). */
export function parseList(text: string): string[] {
  return text === '' ? [] : text.split(',').map((s) => s.trim());
}

/** pflag's loose booleans for the flags Reloader declares as strings (--reload-on-create=true). */
export function parseLooseBool(text: string): boolean {
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text);
}

/** Reloader's label selectors: `key:value`, and `*` for any value, become `key=value` and `key`. */
export function parseLabelSelector(text: string): string {
  return parseList(text)
    .map((kv) => {
      const [key, value] = kv.includes(':') ? kv.split(':') : kv.split('=');
      return value === undefined || value === '*' ? key! : `${key}=${value}`;
    })
    .join(',');
}

/** --reload-strategy: env-vars or annotations. */
export function parseReloadStrategy(text: string): ReloadStrategy {
  if (text !== 'env-vars' && text !== 'annotations')
    throw new Error('reload-strategy must be one of: env-vars, annotations');
  return text;
}

/** --resources-to-ignore: configmaps or secrets, not both. */
export function parseResourcesToIgnore(text: string): ('configmaps' | 'secrets')[] {
  const kinds = parseList(text).map((v) => v.toLowerCase());
  for (const v of kinds)
    if (v !== 'configmaps' && v !== 'secrets')
      throw new Error(`'resources-to-ignore' only accepts 'configmaps' or 'secrets', not '${v}'`);
  if (kinds.length > 1) throw new Error("'resources-to-ignore' only accepts 'configmaps' or 'secrets', not both");
  return kinds as ('configmaps' | 'secrets')[];
}

/** --ignored-workload-types: jobs, cronjobs, or both. */
export function parseWorkloadTypes(text: string): ('jobs' | 'cronjobs')[] {
  const kinds = parseList(text);
  for (const v of kinds)
    if (v !== 'jobs' && v !== 'cronjobs')
      throw new Error(`'ignored-workload-types' accepts 'jobs', 'cronjobs', or both, not '${v}'`);
  return kinds as ('jobs' | 'cronjobs')[];
}
