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
  defineResource,
  isNotFound,
  newControllerManagedBy,
  type Client,
  type k8s,
  type Manager,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@kubescaffold/runtime';

/** ConfigMapResource describes the built-in configmaps resource (v1). */
export const ConfigMapResource = defineResource<k8s.V1ConfigMap>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
});

// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core,resources=configmaps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core,resources=configmaps/finalizers,verbs=update

/** ConfigMapReconciler reconciles a ConfigMap object. */
export class ConfigMapReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  /**
   * reconcile is part of the main Kubernetes reconciliation loop, which aims to move the current state of the
   * cluster closer to the desired state.
   * TODO(user): compare the state the ConfigMap object asks for with the actual cluster state, then act to make the
   * cluster match it. It runs again on every change of the object, and never twice at once for the same object.
   */
  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    let configMap;
    try {
      configMap = await this.client.get(ConfigMapResource, req);
    } catch (err) {
      // The object was deleted after the request was queued; owned objects are garbage-collected.
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.log.info('reconciling ConfigMap', { generation: configMap.metadata?.generation });

    // TODO(user): your logic here

    return {};
  }

  /** setupWithManager sets up the controller with the Manager. */
  setupWithManager(mgr: Manager): void {
    newControllerManagedBy(mgr).for(ConfigMapResource).named('configmap').complete(this);
  }
}
