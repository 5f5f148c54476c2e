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

import { createHash } from 'node:crypto';
import type { k8s } from '@kubescaffold/runtime';
import type { ReloaderOptions } from './options.js';

/** The kind of a reload source, as Reloader names it in env var names and annotations. */
export type SourceType = 'CONFIGMAP' | 'SECRET';

/**
 * A ConfigMap or Secret that changed, as Reloader's common.Config holds it: who it is, its annotations, which
 * annotations on a workload name it, and the hash of its data.
 */
export interface ReloadSource {
  type: SourceType;
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  /** The workload annotation that lists sources of this type by name (configmap.reloader.stakater.com/reload). */
  updateOnChangeAnnotation: string;
  /** The workload annotation that follows every source of this type (configmap.reloader.stakater.com/auto). */
  typedAutoAnnotation: string;
  /** SHA-1 of the data, hex (Reloader's util.GetSHAfromConfigmap / GetSHAfromSecret). */
  hash: string;
}

/**
 * SHA-1 of `key=value` entries sorted bytewise and joined by `;`, as Reloader hashes (Go sorts strings by their bytes,
 * so this sorts Buffers, not JavaScript strings).
 */
function hashEntries(entries: Buffer[]): string {
  entries.sort(Buffer.compare);
  const hash = createHash('sha1');
  entries.forEach((e, i) => {
    if (i > 0) hash.update(';');
    hash.update(e);
  });
  return hash.digest('hex');
}

const entry = (key: string, value: Buffer | string): Buffer =>
  Buffer.concat([Buffer.from(`${key}=`), Buffer.from(value)]);

/** The hash of a ConfigMap's data and binaryData (binaryData as standard base64, as the API serves it). */
export function configMapHash(cm: k8s.V1ConfigMap): string {
  return hashEntries([
    ...Object.entries(cm.data ?? {}).map(([k, v]) => entry(k, v)),
    ...Object.entries(cm.binaryData ?? {}).map(([k, v]) => entry(k, Buffer.from(v, 'base64').toString('base64'))),
  ]);
}

/** The hash of a Secret's data, over its decoded bytes. */
export function secretHash(secret: k8s.V1Secret): string {
  return hashEntries(Object.entries(secret.data ?? {}).map(([k, v]) => entry(k, Buffer.from(v, 'base64'))));
}

/** The hash of no data: what a deleted source's annotation is set to (Reloader's testutil.GetSHAfromEmptyData). */
export const EMPTY_HASH = hashEntries([]);

/** The source a ConfigMap is. */
export function configMapSource(cm: k8s.V1ConfigMap, opts: ReloaderOptions): ReloadSource {
  return {
    type: 'CONFIGMAP',
    namespace: cm.metadata?.namespace ?? '',
    name: cm.metadata?.name ?? '',
    annotations: cm.metadata?.annotations ?? {},
    updateOnChangeAnnotation: opts.configmapUpdateOnChangeAnnotation,
    typedAutoAnnotation: opts.configmapReloaderAutoAnnotation,
    hash: configMapHash(cm),
  };
}

/** The source a Secret is. */
export function secretSource(secret: k8s.V1Secret, opts: ReloaderOptions): ReloadSource {
  return {
    type: 'SECRET',
    namespace: secret.metadata?.namespace ?? '',
    name: secret.metadata?.name ?? '',
    annotations: secret.metadata?.annotations ?? {},
    updateOnChangeAnnotation: opts.secretUpdateOnChangeAnnotation,
    typedAutoAnnotation: opts.secretReloaderAutoAnnotation,
    hash: secretHash(secret),
  };
}

/**
 * A source that was deleted, known by its key only: the reconciler reads it after it is gone, so its annotations
 * (ignore, match) are not known, and its hash is that of no data.
 */
export function deletedSource(
  type: SourceType,
  key: { namespace: string; name: string },
  opts: ReloaderOptions,
): ReloadSource {
  const configMap = type === 'CONFIGMAP';
  return {
    type,
    namespace: key.namespace,
    name: key.name,
    annotations: {},
    updateOnChangeAnnotation: configMap ? opts.configmapUpdateOnChangeAnnotation : opts.secretUpdateOnChangeAnnotation,
    typedAutoAnnotation: configMap ? opts.configmapReloaderAutoAnnotation : opts.secretReloaderAutoAnnotation,
    hash: EMPTY_HASH,
  };
}
