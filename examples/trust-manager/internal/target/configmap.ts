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

import { createHash } from 'node:crypto';
import { isNotFound, type Client, type KubeObject, type ObjectKey } from '@kubescaffold/runtime';
import { ConfigMaps, type PartialObjectMetadata } from '@kubescaffold/runtime/rest';
import {
  BUNDLE_HASH_ANNOTATION_KEY,
  BUNDLE_LABEL_KEY,
  type Bundle,
  type TargetTemplate,
} from '../../api/v1alpha1/bundle_types.js';
import { BundleResource } from '../../api/v1alpha1/zz_generated.resources.js';

// trust-manager's target.Reconciler for ConfigMaps (pkg/bundle/internal/target/target.go): each target written by
// server-side apply as the field manager `trust-manager`, skipped when the metadata in the target cache shows it is
// already up to date, and emptied (then deleted) when its namespace no longer matches.

/** The field manager of every write; the up-to-date check reads the fields it owns from managedFields. */
export const FIELD_MANAGER = 'trust-manager';

/** The metadata-only reads of target ConfigMaps: the target cache, which keeps managedFields. */
export interface TargetReader {
  getMetadata(res: typeof ConfigMaps, key: ObjectKey): Promise<PartialObjectMetadata>;
}

/** TrustBundleHash: the bundle's PEM and the target's annotations and labels, in key order. */
export function trustBundleHash(pem: string, target: TargetTemplate | undefined): string {
  const hash = createHash('sha256').update(pem);
  for (const map of [target?.metadata?.annotations ?? {}, target?.metadata?.labels ?? {}]) {
    for (const k of Object.keys(map).sort()) hash.update(k + map[k]);
  }
  return hash.digest('hex');
}

/** metav1.IsControlledBy: the object's controller reference is the owner, by uid. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref !== undefined && ref.uid === owner.metadata?.uid;
}

/** The keys under `data` and `binaryData` that `manager` owns, from the object's managedFields. */
export function managedDataKeys(obj: KubeObject, manager: string): Set<string> {
  const keys = new Set<string>();
  for (const entry of obj.metadata?.managedFields ?? []) {
    if (entry.manager !== manager || !entry.fieldsV1) continue;
    const fields = entry.fieldsV1 as Record<string, Record<string, unknown> | undefined>;
    for (const top of ['f:data', 'f:binaryData']) {
      for (const k of Object.keys(fields[top] ?? {})) if (k.startsWith('f:')) keys.add(k.slice(2));
    }
  }
  return keys;
}

/** What a target is applied with besides the Bundle: labels naming it, and its controller reference. */
function targetBase(namespace: string, bundle: Bundle) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: bundle.metadata.name!,
      namespace,
      labels: { [BUNDLE_LABEL_KEY]: bundle.metadata.name! },
      ownerReferences: [
        {
          apiVersion: `${BundleResource.group}/${BundleResource.version}`,
          kind: BundleResource.kind,
          name: bundle.metadata.name!,
          uid: bundle.metadata.uid!,
          blockOwnerDeletion: true,
          controller: true,
        },
      ],
    },
  };
}

/** Writes and cleans up a Bundle's target ConfigMaps. */
export class TargetReconciler {
  constructor(
    private readonly client: Pick<Client, 'apply' | 'delete'>,
    private readonly targets: TargetReader,
  ) {}

  /**
   * Writes the bundle into the target ConfigMap in `namespace` unless it is up to date (controlled by the Bundle,
   * labelled, the same hash, and `trust-manager` owning just the target key); true when it wrote.
   */
  async applyConfigMap(namespace: string, bundle: Bundle, pem: string): Promise<boolean> {
    const target = bundle.spec.target?.configMap;
    if (!target) throw new Error('target not defined');
    const name = bundle.metadata.name!;
    let existing: PartialObjectMetadata | undefined;
    try {
      existing = await this.targets.getMetadata(ConfigMaps, { namespace, name });
    } catch (err) {
      if (!isNotFound(err)) {
        throw new Error(`failed to get ConfigMap ${namespace}/${name}: ${(err as Error).message}`, { cause: err });
      }
    }
    const hash = trustBundleHash(pem, target);
    if (existing && !this.needsUpdate(existing, bundle, hash, target.key)) return false;
    const base = targetBase(namespace, bundle);
    const config = {
      ...base,
      metadata: {
        ...base.metadata,
        annotations: { ...target.metadata?.annotations, [BUNDLE_HASH_ANNOTATION_KEY]: hash },
        labels: { ...base.metadata.labels, ...target.metadata?.labels },
      },
      data: { [target.key]: pem },
    };
    try {
      await this.client.apply(ConfigMaps, config, { fieldOwner: FIELD_MANAGER, force: true });
    } catch (err) {
      throw new Error(`failed to patch ConfigMap ${namespace}/${name}: ${(err as Error).message}`, { cause: err });
    }
    return true;
  }

  /**
   * Gives up the Bundle's keys in a target it no longer wants (an apply of the labels and owner alone), and deletes
   * the ConfigMap when nothing is left in it.
   */
  async cleanupConfigMap(namespace: string, bundle: Bundle): Promise<void> {
    const name = bundle.metadata.name!;
    let left;
    try {
      left = await this.client.apply(ConfigMaps, targetBase(namespace, bundle), {
        fieldOwner: FIELD_MANAGER,
        force: true,
      });
    } catch (err) {
      throw new Error(`failed to patch ConfigMap ${namespace}/${name}: ${(err as Error).message}`, { cause: err });
    }
    if (Object.keys(left.data ?? {}).length === 0 && Object.keys(left.binaryData ?? {}).length === 0) {
      await this.client.delete(ConfigMaps, { namespace, name }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }

  private needsUpdate(obj: PartialObjectMetadata, bundle: Bundle, hash: string, key: string): boolean {
    if (!isControlledBy(obj, bundle)) return true;
    if (obj.metadata?.labels?.[BUNDLE_LABEL_KEY] !== bundle.metadata.name) return true;
    if (obj.metadata?.annotations?.[BUNDLE_HASH_ANNOTATION_KEY] !== hash) return true;
    const owned = managedDataKeys(obj, FIELD_MANAGER);
    return !(owned.size === 1 && owned.has(key));
  }
}
