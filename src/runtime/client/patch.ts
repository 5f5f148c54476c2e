import type { Client } from './client.js';
import type { KubeObject, PatchOptions, Resource } from '../rest/types.js';
import { deepEqual, isObject as isPlainObject } from '../json/index.js';
import { InvalidObjectError } from '../errors.js';

/**
 * The RFC 7386 JSON merge patch that turns `original` into `modified`: changed keys get the new value, removed
 * keys get null, nested objects are diffed, arrays are replaced whole.
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isPlainObject(original) || !isPlainObject(modified)) return modified === undefined ? null : modified;
  const patch: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(modified)) {
    if (v === undefined) continue;
    const before = original[k];
    if (before === undefined) {
      patch[k] = v;
    } else if (isPlainObject(before) && isPlainObject(v)) {
      const sub = createMergePatch(before, v) as Record<string, unknown>;
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (!deepEqual(before, v)) {
      patch[k] = v;
    }
  }
  for (const [k, v] of Object.entries(original)) {
    if (v !== undefined && modified[k] === undefined) patch[k] = null;
  }
  return patch;
}

/** Options of {@link mergeFrom} (controller-runtime's MergeFromOption). */
export interface MergeFromOptions {
  /**
   * Put the original's resourceVersion into the patch, so the server rejects it with 409 Conflict if the object
   * changed since it was read (controller-runtime's MergeFromWithOptimisticLock).
   */
  optimisticLock?: boolean;
}

/** The merge patch from `original` to `modified` (controller-runtime's client.MergeFrom). */
export function mergeFrom<T extends KubeObject>(
  original: T,
  modified: T,
  opts: MergeFromOptions = {},
): Record<string, unknown> {
  const patch = createMergePatch(original, modified) as Record<string, unknown>;
  if (opts.optimisticLock) {
    const rv = original.metadata?.resourceVersion;
    if (rv === undefined || rv === '')
      throw new InvalidObjectError('optimistic lock needs the original object to have a resourceVersion');
    const meta = isPlainObject(patch.metadata) ? patch.metadata : {};
    patch.metadata = { ...meta, resourceVersion: rv };
  }
  return patch;
}

/** Sends the merge patch from `original` to `modified` and returns the object the server stored. */
export function patchFrom<T extends KubeObject>(
  client: Client,
  res: Resource<T>,
  original: T,
  modified: T,
  opts: MergeFromOptions & Omit<PatchOptions, 'type'> = {},
): Promise<T> {
  const { optimisticLock, ...patchOpts } = opts;
  return client.patch(res, keyOf(modified), mergeFrom(original, modified, { optimisticLock }), {
    ...patchOpts,
    type: 'merge',
  });
}

/** An RFC 6902 JSON patch operation. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** Escapes a key for a JSON pointer (RFC 6901), e.g. a label name holding '/'. */
export function jsonPointerEscape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The object key of `obj` (client.ObjectKeyFromObject). */
export function keyOf(obj: KubeObject): { namespace?: string; name: string } {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') throw new InvalidObjectError('object has no metadata.name');
  const namespace = obj.metadata?.namespace;
  return namespace ? { namespace, name } : { name };
}
