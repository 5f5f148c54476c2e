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

import type { KubeObject } from '@kubescaffold/runtime';
import { predicateFuncs, type Predicate } from '@kubescaffold/runtime/controller';
import type { ReloaderOptions } from './options.js';

/**
 * The events Reloader acts on (its controller's Add, Update and Delete): an update that changes the data's hash; a
 * create with --reload-on-create, but not the initial list's unless --sync-after-restart; a delete with
 * --reload-on-delete. Sources in --namespaces-to-ignore are left alone.
 */
export function sourceChanges<T extends KubeObject>(hash: (obj: T) => string, opts: ReloaderOptions): Predicate<T> {
  const watched = (obj: T): boolean => !opts.namespacesToIgnore.includes(obj.metadata?.namespace ?? '');
  return predicateFuncs<T>({
    create: (e) => opts.reloadOnCreate && (!e.isInInitialList || opts.syncAfterRestart) && watched(e.object),
    update: (e) => watched(e.objectNew) && hash(e.objectOld) !== hash(e.objectNew),
    delete: (e) => opts.reloadOnDelete && watched(e.object),
    generic: () => false,
  });
}
