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

// What kubeseal does with the controller's certificate: seal each value of a Secret for one SealedSecret's scope.
// The controller never seals; tests and tools that make SealedSecrets do.

import type { KeyObject } from 'node:crypto';
import type { ObjectMeta } from '@kubescaffold/runtime';
import { encryptionLabel, secretScope } from '../../api/v1alpha1/scope.js';
import { hybridEncrypt } from './hybrid.js';

/** Seals `plaintext` for the SealedSecret that `meta` names and annotates (its scope), as base64 for encryptedData. */
export function sealValue(publicKey: KeyObject, meta: ObjectMeta, plaintext: string | Buffer): string {
  const label = encryptionLabel(meta.namespace ?? '', meta.name ?? '', secretScope(meta));
  return hybridEncrypt(publicKey, Buffer.from(plaintext), label).toString('base64');
}
