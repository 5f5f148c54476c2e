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

import type { ReloaderOptions } from './options.js';
import type { ReloadSource } from './source.js';

/** Whether a workload follows a source, and whether by an auto annotation (then only containers that use it roll). */
export interface ReloadDecision {
  shouldReload: boolean;
  autoReload: boolean;
  /** Patterns in the workload's annotation that are not valid regular expressions. */
  errors: string[];
}

const no: ReloadDecision = { shouldReload: false, autoReload: false, errors: [] };

/** Go's strconv.ParseBool, false for what it refuses. */
function parseBool(text: string | undefined): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text ?? '');
}

/**
 * Reloader's common.ShouldReload: the workload's own annotations decide, else its pod template's; a source named in
 * the reload annotation (comma-separated regular expressions), a searched source marked to match, or an auto
 * annotation rolls it, unless the source carries the ignore annotation or the workload excludes it by name.
 */
export function shouldReload(
  source: ReloadSource,
  workloadType: string,
  annotations: Record<string, string>,
  podAnnotations: Record<string, string>,
  opts: ReloaderOptions,
): ReloadDecision {
  const ignoredType = workloadType === 'Job' ? 'jobs' : workloadType === 'CronJob' ? 'cronjobs' : undefined;
  if (ignoredType && opts.workloadTypesToIgnore.includes(ignoredType)) return no;
  if (source.annotations[opts.ignoreResourceAnnotation] === 'true') return no;

  const has = (key: string): boolean => Object.hasOwn(annotations, key);
  // The exclude annotations are read from the workload itself, even when its pod template's annotations decide.
  const exclude =
    source.type === 'CONFIGMAP'
      ? annotations[opts.configmapExcludeReloaderAnnotation]
      : annotations[opts.secretExcludeReloaderAnnotation];
  const deciding =
    has(source.updateOnChangeAnnotation) ||
    has(opts.reloaderAutoAnnotation) ||
    has(source.typedAutoAnnotation) ||
    has(opts.autoSearchAnnotation)
      ? annotations
      : podAnnotations;
  if (exclude && exclude.split(',').some((name) => name.trim() === source.name)) return no;

  const errors: string[] = [];
  for (const raw of (deciding[source.updateOnChangeAnnotation] ?? '').split(',')) {
    const pattern = raw.trim();
    let re: RegExp;
    try {
      // As Reloader builds it: "^" + pattern + "$", so `a|b` is `^a` or `b$`.
      re = new RegExp(`^${pattern}$`);
    } catch (err) {
      errors.push(
        `invalid regex "${pattern}" in reload annotation "${source.updateOnChangeAnnotation}": ${String(err)}`,
      );
      continue;
    }
    if (re.test(source.name)) return { shouldReload: true, autoReload: false, errors };
  }

  if (deciding[opts.autoSearchAnnotation] === 'true' && source.annotations[opts.searchMatchAnnotation] === 'true')
    return { shouldReload: true, autoReload: true, errors };

  const auto = deciding[opts.reloaderAutoAnnotation] ?? '';
  const typedAuto = deciding[source.typedAutoAnnotation] ?? '';
  if (parseBool(auto) || parseBool(typedAuto) || (auto === '' && typedAuto === '' && opts.autoReloadAll))
    return { shouldReload: true, autoReload: true, errors };
  return { ...no, errors };
}
