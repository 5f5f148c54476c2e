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

import type { FlagDefinitions, FlagValues } from '@kubescaffold/runtime';

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
function list(text: string): string[] {
  return text === '' ? [] : text.split(',').map((s) => s.trim());
}

/** pflag's loose booleans for the flags Reloader declares as strings (--reload-on-create=true). */
function looseBool(text: string): boolean {
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text);
}

/** Reloader's label selectors: `key:value`, and `*` for any value, become `key=value` and `key`. */
function labelSelector(text: string): string {
  return list(text)
    .map((kv) => {
      const [key, value] = kv.includes(':') ? kv.split(':') : kv.split('=');
      return value === undefined || value === '*' ? key! : `${key}=${value}`;
    })
    .join(',');
}

/** Reloader's flags, named and defaulted as in its internal/pkg/util.ConfigureReloaderFlags. */
export const reloaderFlags = {
  'auto-reload-all': { type: 'bool', default: false, usage: 'Auto reload all resources' },
  'configmap-annotation': {
    type: 'string',
    default: 'configmap.reloader.stakater.com/reload',
    usage: 'annotation to detect changes in configmaps, specified by name',
  },
  'secret-annotation': {
    type: 'string',
    default: 'secret.reloader.stakater.com/reload',
    usage: 'annotation to detect changes in secrets, specified by name',
  },
  'auto-annotation': {
    type: 'string',
    default: 'reloader.stakater.com/auto',
    usage: 'annotation to detect changes in secrets/configmaps',
  },
  'ignore-annotation': {
    type: 'string',
    default: 'reloader.stakater.com/ignore',
    usage: 'annotation to ignore a resource when watching for changes in secrets/configmaps',
  },
  'configmap-auto-annotation': {
    type: 'string',
    default: 'configmap.reloader.stakater.com/auto',
    usage: 'annotation to detect changes in configmaps',
  },
  'secret-auto-annotation': {
    type: 'string',
    default: 'secret.reloader.stakater.com/auto',
    usage: 'annotation to detect changes in secrets',
  },
  'auto-search-annotation': {
    type: 'string',
    default: 'reloader.stakater.com/search',
    usage: 'annotation to detect changes in configmaps or secrets tagged with special match annotation',
  },
  'search-match-annotation': {
    type: 'string',
    default: 'reloader.stakater.com/match',
    usage: 'annotation to mark secrets or configmaps to match the search',
  },
  'reload-strategy': {
    type: 'value',
    default: 'env-vars',
    parse: (text: string): ReloadStrategy => {
      if (text !== 'env-vars' && text !== 'annotations')
        throw new Error('reload-strategy must be one of: env-vars, annotations');
      return text;
    },
    usage: 'Specifies the desired reload strategy',
  },
  'reload-on-create': {
    type: 'value',
    default: 'false',
    parse: looseBool,
    usage: 'Add support to watch create events',
  },
  'reload-on-delete': {
    type: 'value',
    default: 'false',
    parse: looseBool,
    usage: 'Add support to watch delete events',
  },
  'sync-after-restart': { type: 'bool', default: false, usage: 'Sync add events after reloader restarts' },
  namespaces: {
    type: 'value',
    default: '',
    parse: list,
    usage: 'explicit list of namespaces to watch (scoped mode; creates no ClusterRole)',
  },
  'namespaces-to-ignore': { type: 'value', default: '', parse: list, usage: 'list of namespaces to ignore' },
  'resource-label-selector': {
    type: 'value',
    default: '',
    parse: labelSelector,
    usage: 'list of key:value labels to filter on for configmaps and secrets',
  },
  'resources-to-ignore': {
    type: 'value',
    default: '',
    parse: (text: string): ('configmaps' | 'secrets')[] => {
      const kinds = list(text).map((v) => v.toLowerCase());
      for (const v of kinds)
        if (v !== 'configmaps' && v !== 'secrets')
          throw new Error(`'resources-to-ignore' only accepts 'configmaps' or 'secrets', not '${v}'`);
      if (kinds.length > 1) throw new Error("'resources-to-ignore' only accepts 'configmaps' or 'secrets', not both");
      return kinds as ('configmaps' | 'secrets')[];
    },
    usage: "list of resources to ignore (valid options 'configmaps' or 'secrets')",
  },
  'ignored-workload-types': {
    type: 'value',
    default: '',
    parse: (text: string): ('jobs' | 'cronjobs')[] => {
      const kinds = list(text);
      for (const v of kinds)
        if (v !== 'jobs' && v !== 'cronjobs')
          throw new Error(`'ignored-workload-types' accepts 'jobs', 'cronjobs', or both, not '${v}'`);
      return kinds as ('jobs' | 'cronjobs')[];
    },
    usage: "list of workload types to ignore (valid options: 'jobs', 'cronjobs', or both)",
  },
} as const satisfies FlagDefinitions;

/** The options the parsed flags give. */
export function optionsFromFlags(flags: FlagValues<typeof reloaderFlags>): ReloaderOptions {
  return {
    autoReloadAll: flags['auto-reload-all'],
    configmapUpdateOnChangeAnnotation: flags['configmap-annotation'],
    secretUpdateOnChangeAnnotation: flags['secret-annotation'],
    reloaderAutoAnnotation: flags['auto-annotation'],
    ignoreResourceAnnotation: flags['ignore-annotation'],
    configmapReloaderAutoAnnotation: flags['configmap-auto-annotation'],
    secretReloaderAutoAnnotation: flags['secret-auto-annotation'],
    // Not flags in Reloader either: fixed names.
    configmapExcludeReloaderAnnotation: 'configmaps.exclude.reloader.stakater.com/reload',
    secretExcludeReloaderAnnotation: 'secrets.exclude.reloader.stakater.com/reload',
    autoSearchAnnotation: flags['auto-search-annotation'],
    searchMatchAnnotation: flags['search-match-annotation'],
    reloadStrategy: flags['reload-strategy'],
    reloadOnCreate: flags['reload-on-create'],
    reloadOnDelete: flags['reload-on-delete'],
    syncAfterRestart: flags['sync-after-restart'],
    namespaces: flags.namespaces,
    // As Reloader: only honoured when every namespace is watched.
    namespacesToIgnore: flags.namespaces.length > 0 ? [] : flags['namespaces-to-ignore'],
    resourceLabelSelector: flags['resource-label-selector'],
    resourcesToIgnore: flags['resources-to-ignore'],
    workloadTypesToIgnore: flags['ignored-workload-types'],
  };
}
