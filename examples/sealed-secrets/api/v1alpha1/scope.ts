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

// The annotations and scopes of sealed-secrets' v1alpha1 API (types.go and sealedsecret_expansion.go).

import type { ObjectMeta } from '@kubescaffold/runtime';

const annotationPrefix = 'sealedsecrets.bitnami.com/';

/** The sealed secret may be unsealed in any namespace, under any name. */
export const SealedSecretClusterWideAnnotation = `${annotationPrefix}cluster-wide`;
/** The sealed secret may be unsealed under any name in its namespace. */
export const SealedSecretNamespaceWideAnnotation = `${annotationPrefix}namespace-wide`;
/** On an existing Secret: the controller may take it over. */
export const SealedSecretManagedAnnotation = `${annotationPrefix}managed`;
/** On an existing Secret: the controller patches it instead of replacing its data, labels and annotations. */
export const SealedSecretPatchAnnotation = `${annotationPrefix}patch`;
/** On the template: the Secret gets no owner reference to its SealedSecret. */
export const SealedSecretSkipSetOwnerReferencesAnnotation = `${annotationPrefix}skip-set-owner-references`;

/** Where a sealed value may be opened (SealingScope). */
export type SealingScope = 'strict' | 'namespace-wide' | 'cluster-wide';

/** The scope an object's annotations declare (SecretScope): strict unless annotated otherwise. */
export function secretScope(meta: ObjectMeta | undefined): SealingScope {
  if (meta?.annotations?.[SealedSecretClusterWideAnnotation] === 'true') return 'cluster-wide';
  if (meta?.annotations?.[SealedSecretNamespaceWideAnnotation] === 'true') return 'namespace-wide';
  return 'strict';
}

/** The RSA-OAEP label a value is sealed under (EncryptionLabel): `namespace/name`, the namespace, or nothing. */
export function encryptionLabel(namespace: string, name: string, scope: SealingScope): Buffer {
  if (scope === 'cluster-wide') return Buffer.alloc(0);
  if (scope === 'namespace-wide') return Buffer.from(namespace);
  return Buffer.from(`${namespace}/${name}`);
}
