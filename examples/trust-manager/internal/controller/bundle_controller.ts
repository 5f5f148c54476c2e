/*
Copyright 2026 The trust-manager port's authors.

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
  isConflict,
  isNotFound,
  newControllerManagedBy,
  type Client,
  type Manager,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@kubescaffold/runtime';
import { setStatusCondition, type ApplyConfiguration } from '@kubescaffold/runtime/client';
import type { Bundle } from '../../api/v1alpha1/bundle_types.js';
import { BundleResource } from '../../api/v1alpha1/zz_generated.resources.js';

/** The field manager this controller's server-side applies own fields as, in each object's managedFields. */
const FIELD_OWNER = 'bundle-controller';

// +kubebuilder:rbac:groups=trust.cert-manager.io,resources=bundles,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=trust.cert-manager.io,resources=bundles/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=trust.cert-manager.io,resources=bundles/finalizers,verbs=update

/** BundleReconciler reconciles a Bundle object. */
export class BundleReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  /**
   * reconcile is part of the main Kubernetes reconciliation loop, which aims to move the current state of the
   * cluster closer to the desired state.
   * TODO(user): compare the state the Bundle object asks for with the actual cluster state, then act to make the
   * cluster match it. It runs again on every change of the object, and never twice at once for the same object.
   */
  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    let bundle;
    try {
      bundle = await this.client.get(BundleResource, req);
    } catch (err) {
      // The object was deleted after the request was queued; owned objects are garbage-collected.
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.log.info('reconciling Bundle', { generation: bundle.metadata.generation });

    // TODO(user): your logic here

    // Server-side apply: send only the fields this controller owns, here the Available condition of the status. The
    // API server merges them in as FIELD_OWNER's and leaves what users and other controllers set alone; a field
    // another manager owns with a different value is a 409 conflict (force: true would take it instead).
    const conditions = bundle.status?.conditions?.filter((c) => c.type === 'Available') ?? [];
    // lastTransitionTime is kept while the status stays the same: it says when the status last changed.
    setStatusCondition(conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Reconciled',
      message: 'The Bundle was reconciled',
      observedGeneration: bundle.metadata.generation,
    });
    const status: ApplyConfiguration<Bundle> = {
      metadata: { name: req.name },
      status: { conditions },
    };
    try {
      await this.client.status().apply(BundleResource, status, { fieldOwner: FIELD_OWNER });
    } catch (err) {
      if (isConflict(err)) {
        ctx.log.info('field ownership conflict, will retry', { error: String(err) });
        return { requeue: true };
      }
      throw err;
    }

    return {};
  }

  /** setupWithManager sets up the controller with the Manager. */
  setupWithManager(mgr: Manager): void {
    newControllerManagedBy(mgr).for(BundleResource).named('bundle').complete(this);
  }
}
