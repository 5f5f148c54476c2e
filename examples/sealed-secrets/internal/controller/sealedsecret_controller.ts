/*
Copyright 2026 The Sealed Secrets port's authors.

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
import { SealedSecretResource } from '../../api/v1alpha1/zz_generated.resources.js';

// +kubebuilder:rbac:groups=bitnami.com,resources=sealedsecrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=bitnami.com,resources=sealedsecrets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=bitnami.com,resources=sealedsecrets/finalizers,verbs=update

/** SealedSecretReconciler reconciles a SealedSecret object. */
export class SealedSecretReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  /**
   * reconcile is part of the main Kubernetes reconciliation loop, which aims to move the current state of the
   * cluster closer to the desired state.
   * TODO(user): compare the state the SealedSecret object asks for with the actual cluster state, then act to make the
   * cluster match it. It runs again on every change of the object, and never twice at once for the same object.
   */
  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    let sealedSecret;
    try {
      sealedSecret = await this.client.get(SealedSecretResource, req);
    } catch (err) {
      // The object was deleted after the request was queued; owned objects are garbage-collected.
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.log.info('reconciling SealedSecret', { generation: sealedSecret.metadata.generation });

    // TODO(user): your logic here

    return {};
  }

  /** setupWithManager sets up the controller with the Manager. */
  setupWithManager(mgr: Manager): void {
    newControllerManagedBy(mgr).for(SealedSecretResource).named('sealedsecret').complete(this);
  }
}
