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

import {
  isNotFound,
  newControllerManagedBy,
  type Client,
  type Manager,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@kubescaffold/runtime';
import { Secrets } from '@kubescaffold/runtime/rest';
import type { ReloaderOptions } from '../reload/options.js';
import { sourceChanges } from '../reload/predicates.js';
import { Reloader } from '../reload/reloader.js';
import { rolledKinds } from '../reload/workloads.js';
import { secretHash, secretSource, deletedSource } from '../reload/source.js';

// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;list;watch

/**
 * SecretReconciler rolls the workloads that follow a Secret when its data changes (Reloader's secrets
 * controller): only changes of the data's hash get here (see sourceChanges); the workloads are read from the cache,
 * where Reloader lists them from the API server.
 */
export class SecretReconciler implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly reloader: Reloader,
    private readonly opts: ReloaderOptions,
  ) {}

  async reconcile(req: Request, _ctx: ReconcileContext): Promise<Result> {
    let secret;
    try {
      secret = await this.client.get(Secrets, req);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // Only deletes pass the predicate with --reload-on-delete; otherwise the Secret went after its change.
      if (this.opts.reloadOnDelete) await this.reloader.reload(deletedSource('SECRET', req, this.opts), 'deleted');
      return {};
    }
    await this.reloader.reload(secretSource(secret, this.opts), 'changed');
    return {};
  }

  /** setupWithManager sets up the controller with the Manager. */
  setupWithManager(mgr: Manager): void {
    const builder = newControllerManagedBy(mgr).for(Secrets, { predicates: [sourceChanges(secretHash, this.opts)] });
    // The workloads it rolls are read on every change: cached, and listed before the first reconcile.
    for (const kind of rolledKinds(this.opts)) builder.reads(kind.resource);
    builder.named('secrets').complete(this);
  }
}
