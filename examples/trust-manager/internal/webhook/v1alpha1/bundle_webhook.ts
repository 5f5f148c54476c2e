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

import type { Manager } from '@kubescaffold/runtime';
import {
  newWebhookManagedBy,
  type AdmissionContext,
  type CustomValidator,
  type ValidationResult,
} from '@kubescaffold/runtime/webhook';
import type { Bundle } from '../../../api/v1alpha1/bundle_types.js';
import { BundleResource } from '../../../api/v1alpha1/zz_generated.resources.js';

/** setupBundleWebhookWithManager registers the webhooks for Bundle with the manager. */
export function setupBundleWebhookWithManager(mgr: Manager): void {
  newWebhookManagedBy(mgr, BundleResource)
    .withValidator(new BundleCustomValidator())
    .complete();
}

// TODO(user): EDIT THIS FILE!  THIS IS SCAFFOLDING FOR YOU TO OWN!
// Webhooks, their tests and their certificates: node_modules/kubescaffold/docs/guides/webhooks.md

// TODO(user): change verbs to "verbs=create;update;delete" to validate deletion too.
// +kubebuilder:webhook:path=/validate-trust-cert-manager-io-v1alpha1-bundle,mutating=false,failurePolicy=fail,sideEffects=None,groups=trust.cert-manager.io,resources=bundles,verbs=create;update,versions=v1alpha1,name=vbundle-v1alpha1.kb.io,admissionReviewVersions=v1

/**
 * BundleCustomValidator accepts or rejects Bundle objects on create, update and delete. Return field errors to reject
 * (e.g. `{ errors: [field.invalid('spec.foo', obj.spec.foo, 'must not be empty')] }`), and warnings to admit with a warning.
 */
export class BundleCustomValidator implements CustomValidator<Bundle> {
  validateCreate(obj: Bundle, ctx: AdmissionContext): ValidationResult {
    ctx.log.info('validation for Bundle upon creation', { name: obj.metadata.name });

    // TODO(user): fill in your validation logic upon object creation.
    return {};
  }

  validateUpdate(_oldObj: Bundle, newObj: Bundle, ctx: AdmissionContext): ValidationResult {
    ctx.log.info('validation for Bundle upon update', { name: newObj.metadata.name });

    // TODO(user): fill in your validation logic upon object update.
    return {};
  }

  validateDelete(obj: Bundle, ctx: AdmissionContext): ValidationResult {
    ctx.log.info('validation for Bundle upon deletion', { name: obj.metadata.name });

    // TODO(user): fill in your validation logic upon object deletion.
    return {};
  }
}
