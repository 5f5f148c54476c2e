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
  aggregateFieldErrors,
  field,
  newWebhookManagedBy,
  type AdmissionContext,
  type CustomValidator,
  type FieldError,
  type ValidationResult,
} from '@kubescaffold/runtime/webhook';
import type { Bundle, TargetMetadata } from '../../../api/v1alpha1/bundle_types.js';
import { BundleResource } from '../../../api/v1alpha1/zz_generated.resources.js';
import { validateAnnotations, validateLabelSelector, validateLabels } from '../../validation/meta.js';

/** setupBundleWebhookWithManager registers the webhooks for Bundle with the manager. */
export function setupBundleWebhookWithManager(mgr: Manager): void {
  newWebhookManagedBy(mgr, BundleResource)
    .withValidator(new BundleCustomValidator())
    .complete();
}

// trust-manager's webhook (pkg/webhook/validation.go): what the CRD's schema cannot say about a Bundle. Deletes are
// always allowed, so only create and update are sent.
// +kubebuilder:webhook:path=/validate-trust-cert-manager-io-v1alpha1-bundle,mutating=false,failurePolicy=fail,sideEffects=None,groups=trust.cert-manager.io,resources=bundles,verbs=create;update,versions=v1alpha1,name=vbundle-v1alpha1.kb.io,admissionReviewVersions=v1

/** The field errors of a Bundle, in the original's order. */
export function validateBundle(bundle: Bundle): FieldError[] {
  const el: FieldError[] = [];
  const path = 'spec';
  let sourceCount = 0;
  let defaultCAsCount = 0;

  for (const [i, source] of (bundle.spec?.sources ?? []).entries()) {
    const at = `${path}.sources[${i}]`;
    let unionCount = 0;
    for (const kind of ['configMap', 'secret'] as const) {
      const ref = source[kind];
      if (!ref) continue;
      const refPath = `${at}.${kind}`;
      sourceCount++;
      unionCount++;
      const includeAllKeys = ref.includeAllKeys ?? false;
      const word = kind === 'configMap' ? 'configMap' : 'secret';
      if (!ref.name && !ref.selector)
        el.push(field.invalid(refPath, "name: ' ', selector: nil", 'must validate one and only one schema (oneOf): [name, selector]. Found none valid'));
      if (ref.name && ref.selector)
        el.push(field.invalid(refPath, `name: ${ref.name}, selector: {}`, 'must validate one and only one schema (oneOf): [name, selector]. Found both set'));
      if (!ref.key && !includeAllKeys)
        el.push(field.invalid(refPath, `key: ' ', includeAllKeys: ${includeAllKeys}`, `source ${word} key must be defined when includeAllKeys is false`));
      if (ref.key && includeAllKeys)
        el.push(field.invalid(refPath, `key: ${ref.key}, includeAllKeys: ${includeAllKeys}`, `source ${word} key cannot be defined when includeAllKeys is true`));
      el.push(...validateLabelSelector(ref.selector, `${refPath}.selector`));
    }
    if (source.inLine) {
      sourceCount++;
      unionCount++;
    }
    if (source.useDefaultCAs !== undefined && source.useDefaultCAs !== null) {
      defaultCAsCount++;
      unionCount++;
      if (source.useDefaultCAs) sourceCount++;
    }
    if (unionCount !== 1)
      el.push(field.forbidden(at, `must define exactly one source type for each item but found ${unionCount} defined types`));
  }

  if (sourceCount === 0) el.push(field.forbidden(`${path}.sources`, 'must define at least one source'));
  if (defaultCAsCount > 1)
    el.push(field.forbidden(`${path}.sources`, `must request default CAs either once or not at all but got ${defaultCAsCount} requests`));

  const target = bundle.spec?.target;
  for (const kind of ['configMap', 'secret'] as const) {
    const t = target?.[kind];
    if (!t) continue;
    for (const [i, source] of (bundle.spec?.sources ?? []).entries()) {
      const ref = source[kind];
      if (ref && (ref.name ?? '') === bundle.metadata?.name && (ref.key ?? '') === t.key)
        el.push(field.forbidden(`${path}.sources[${i}].${kind}.${ref.name ?? ''}.${ref.key ?? ''}`, 'cannot define the same source as target'));
    }
  }
  if (target?.configMap) el.push(...validateTargetMetadata(target.configMap.metadata, `${path}.target.configMap.metadata`));
  if (target?.secret) el.push(...validateTargetMetadata(target.secret.metadata, `${path}.target.secret.metadata`));
  el.push(...validateLabelSelector(target?.namespaceSelector, `${path}.target.namespaceSelector`));
  return el;
}

/** Labels and annotations copied to targets: valid, and none of trust-manager's own prefixes. */
function validateTargetMetadata(metadata: TargetMetadata | undefined, path: string): FieldError[] {
  const el: FieldError[] = [];
  for (const [what, map, validate] of [
    ['annotations', metadata?.annotations, validateAnnotations],
    ['labels', metadata?.labels, validateLabels],
  ] as const) {
    const at = `${path}.${what}`;
    for (const key of Object.keys(map ?? {})) {
      for (const prefix of ['trust.cert-manager.io/', 'trust-manager.io/']) {
        if (key.startsWith(prefix)) el.push(field.invalid(at, key, `${prefix}* ${what} are not allowed`));
      }
    }
    el.push(...validate(map, at));
  }
  return el;
}

/**
 * BundleCustomValidator denies a Bundle with the original's messages: its field errors joined as one plain error
 * (a 403 with the aggregate as its message, as controller-runtime answers an error that is not an API status).
 */
export class BundleCustomValidator implements CustomValidator<Bundle> {
  validateCreate(obj: Bundle, ctx: AdmissionContext): ValidationResult {
    return this.validate(obj, ctx);
  }

  validateUpdate(_oldObj: Bundle, newObj: Bundle, ctx: AdmissionContext): ValidationResult {
    return this.validate(newObj, ctx);
  }

  validateDelete(): ValidationResult {
    return {};
  }

  private validate(bundle: Bundle, ctx: AdmissionContext): ValidationResult {
    ctx.log.debug('received validation request', { name: bundle.metadata?.name });
    const errs = validateBundle(bundle);
    if (errs.length > 0) throw new Error(aggregateFieldErrors(errs));
    return {};
  }
}
