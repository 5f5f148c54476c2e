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
import {
  parseLabelSelector,
  parseList,
  parseLooseBool,
  parseReloadStrategy,
  parseResourcesToIgnore,
  parseWorkloadTypes,
  type ReloaderOptions,
} from '../internal/reload/options.js';

/**
 * The operator's own command-line flags: Reloader's, named and defaulted as in its
 * internal/pkg/util.ConfigureReloaderFlags. cmd/main.ts parses them with the manager's flags, and -h lists them with
 * theirs.
 */
export const operatorFlags = {
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
    parse: parseReloadStrategy,
    usage: 'Specifies the desired reload strategy',
  },
  // Strings in Reloader, read as pflag's loose booleans (--reload-on-create=true).
  'reload-on-create': {
    type: 'value',
    default: 'false',
    parse: parseLooseBool,
    usage: 'Add support to watch create events',
  },
  'reload-on-delete': {
    type: 'value',
    default: 'false',
    parse: parseLooseBool,
    usage: 'Add support to watch delete events',
  },
  'sync-after-restart': { type: 'bool', default: false, usage: 'Sync add events after reloader restarts' },
  namespaces: {
    type: 'value',
    default: '',
    parse: parseList,
    usage: 'explicit list of namespaces to watch (scoped mode; creates no ClusterRole)',
  },
  'namespaces-to-ignore': { type: 'value', default: '', parse: parseList, usage: 'list of namespaces to ignore' },
  'resource-label-selector': {
    type: 'value',
    default: '',
    parse: parseLabelSelector,
    usage: 'list of key:value labels to filter on for configmaps and secrets',
  },
  'resources-to-ignore': {
    type: 'value',
    default: '',
    parse: parseResourcesToIgnore,
    usage: "list of resources to ignore (valid options 'configmaps' or 'secrets')",
  },
  'ignored-workload-types': {
    type: 'value',
    default: '',
    parse: parseWorkloadTypes,
    usage: "list of workload types to ignore (valid options: 'jobs', 'cronjobs', or both)",
  },
  // +kubebuilder:scaffold:flags
} satisfies FlagDefinitions;

/**
 * The values of the operator's flags as cmd/main.ts parsed them, each typed by its definition (string, number,
 * boolean, or what a value flag's parse returns): main.ts's `flags` has them, to hand to your controllers.
 */
export type OperatorFlags = FlagValues<typeof operatorFlags>;

/** The options the controllers read, from the parsed flags (Reloader's common.ReloaderOptions). */
export function optionsFromFlags(flags: OperatorFlags): ReloaderOptions {
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
