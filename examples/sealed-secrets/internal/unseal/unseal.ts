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

// The original's SealedSecret.Unseal (sealedsecret_expansion.go): the Secret a SealedSecret stands for, or why it
// cannot be had. The errors are gathered per key and worded as Go's multierror words them, since they become the
// Synced condition's message and the ErrUnsealFailed event.

import type { KeyObject } from 'node:crypto';
import type { k8s } from '@kubescaffold/runtime';
import { encryptionLabel, secretScope, SealedSecretSkipSetOwnerReferencesAnnotation } from '../../api/v1alpha1/scope.js';
import type { SealedSecret } from '../../api/v1alpha1/sealedsecret_types.js';
import { decodeStdBase64 } from '../crypto/base64.js';
import { hybridDecrypt } from '../crypto/hybrid.js';
import { renderTemplate } from './template.js';

/** How to unseal. */
export interface UnsealOptions {
  /** --accept-deprecated-v1-data: open spec.data, a whole Secret sealed at once by old kubeseal releases. */
  acceptV1Data: boolean;
  /**
   * Render spec.template.data (default true). The HTTP API opens without it: its caller is not authenticated, and a
   * template could print a value it should not learn.
   */
  renderTemplate?: boolean;
}

/** An error of one key, tagged with it (multierror.Tag). */
interface TaggedError {
  message: string;
  tag: string;
}

/**
 * Errors of several keys as one (multierror.Uniq, then InlineFormatter): equal messages once, with their keys in
 * brackets in the order met, different messages joined by "; ".
 */
export function formatTaggedErrors(errs: readonly TaggedError[]): string {
  const tagsByMessage = new Map<string, string[]>();
  for (const e of errs) tagsByMessage.set(e.message, [...(tagsByMessage.get(e.message) ?? []), e.tag]);
  return [...tagsByMessage].map(([message, tags]) => `${message} (${tags.join(', ')})`).join('; ');
}

/** Unseals `ss` with any of `keys` into the Secret it stands for, owned by it; throws with the original's message. */
export function unseal(ss: SealedSecret, keys: readonly KeyObject[], opts: UnsealOptions): k8s.V1Secret {
  const meta = ss.metadata ?? {};
  const namespace = meta.namespace ?? '';
  const name = meta.name ?? '';
  // The label pins each value to where it was sealed for: a SealedSecret renamed or moved cannot be opened.
  const label = encryptionLabel(namespace, name, secretScope(meta));
  let secret: k8s.V1Secret;

  if (ss.spec.data === undefined || ss.spec.data === null) {
    const template = ss.spec.template ?? {};
    secret = { metadata: structuredClone(template.metadata ?? {}) };
    if (template.type !== undefined) secret.type = template.type;
    if (template.immutable !== undefined) secret.immutable = template.immutable;
    const data: Record<string, string> = {};
    const plain: Record<string, string> = {};
    const errs: TaggedError[] = [];
    for (const [key, value] of Object.entries(ss.spec.encryptedData ?? {})) {
      try {
        const plaintext = hybridDecrypt(keys, decodeStdBase64(value), label);
        data[key] = plaintext.toString('base64');
        plain[key] = plaintext.toString('utf8');
      } catch (err) {
        errs.push({ message: (err as Error).message, tag: key });
      }
    }
    // spec.template.data: its plain values are visible to the templates too, but an encrypted key wins.
    const templateData = (template.data ?? {}) as Record<string, string | null>;
    for (const [key, value] of Object.entries(templateData)) {
      if (!(key in plain) && value !== null) plain[key] = value;
    }
    for (const [key, value] of opts.renderTemplate === false ? [] : Object.entries(templateData)) {
      if (value === null) {
        delete data[key];
        continue;
      }
      try {
        const rendered = renderTemplate(value, plain);
        if (!(key in (ss.spec.encryptedData ?? {}))) data[key] = Buffer.from(rendered).toString('base64');
      } catch (err) {
        errs.push({ message: (err as Error).message, tag: key });
      }
    }
    if (errs.length > 0) throw new Error(formatTaggedErrors(errs));
    if (Object.keys(data).length > 0) secret.data = data;
  } else if (opts.acceptV1Data) {
    if (Object.keys(ss.spec.encryptedData ?? {}).length > 0) {
      throw new Error("cannot use the field 'encryptedData' and the deprecated field 'data' at the same time");
    }
    const plaintext = hybridDecrypt(keys, Buffer.from(ss.spec.data, 'base64'), label);
    secret = JSON.parse(plaintext.toString('utf8')) as k8s.V1Secret;
    delete secret.apiVersion;
    delete secret.kind;
  } else {
    throw new Error("using deprecated 'data' field, use 'encryptedData' or flip the feature flag");
  }

  secret.metadata = { ...secret.metadata, namespace, name };
  if (ss.spec.template?.metadata?.annotations?.[SealedSecretSkipSetOwnerReferencesAnnotation] !== 'true') {
    // The controller reference only: the Go original sets no blockOwnerDeletion.
    secret.metadata.ownerReferences = [
      { apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', name, uid: meta.uid ?? '', controller: true },
    ];
  }
  return secret;
}

/**
 * Throws, worded as unseal words it, unless every value of `ss` opens with one of `keys` (ValidateEncryptedData):
 * what the HTTP API's /v1/verify answers, without rendering templates.
 */
export function validateEncryptedData(ss: SealedSecret, keys: readonly KeyObject[], opts: UnsealOptions): void {
  unseal(ss, keys, { ...opts, renderTemplate: false });
}
