import type { Client } from './client.js';
import type { KubeObject, Resource } from '../rest/types.js';
import type { Result } from '../reconcile/index.js';
import { patchFrom } from './patch.js';
import { jsonClone } from '../json/index.js';

/** Adds `finalizer` to the object's metadata; returns true when it was not there yet (controllerutil.AddFinalizer). */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  obj.metadata ??= {};
  const list = (obj.metadata.finalizers ??= []);
  if (list.includes(finalizer)) return false;
  list.push(finalizer);
  return true;
}

/** Removes every copy of `finalizer`; returns true when one was removed (controllerutil.RemoveFinalizer). */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const list = obj.metadata?.finalizers;
  if (list === undefined) return false;
  const kept = list.filter((f) => f !== finalizer);
  if (kept.length === list.length) return false;
  obj.metadata!.finalizers = kept;
  return true;
}

/** Whether the object carries `finalizer` (controllerutil.ContainsFinalizer). */
export function containsFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** What reconcileWithFinalizer works on, and its two outcomes. */
export interface FinalizerReconcile<T extends KubeObject> {
  /** The object's resource, for the finalizer's patches. */
  resource: Resource<T>;
  /** The object as the reconciler read it. */
  object: T;
  /** The finalizer's name, e.g. "crew.example.com/finalizer". */
  finalizer: string;
  /** Brings the world to the object's spec; runs while the object is not being deleted. */
  apply(obj: T): Promise<Result | void>;
  /** Releases what the object holds; the finalizer is removed once this resolves. Runs once deletion starts. */
  cleanup(obj: T): Promise<Result | void>;
}

/**
 * One reconcile step of an object guarded by a finalizer (kube-rs's runtime::finalizer): adds the finalizer before
 * the first apply, calls apply while the object lives, and on deletion calls cleanup then removes the finalizer.
 * Finalizer writes are merge patches with an optimistic lock, so a concurrent change fails with 409 and is retried.
 */
export async function reconcileWithFinalizer<T extends KubeObject>(
  client: Client,
  r: FinalizerReconcile<T>,
): Promise<Result | void> {
  const { resource, object: obj, finalizer } = r;
  const deleting = obj.metadata?.deletionTimestamp !== undefined && obj.metadata?.deletionTimestamp !== null;
  if (deleting) {
    if (!containsFinalizer(obj, finalizer)) return {};
    const result = await r.cleanup(obj);
    const modified = jsonClone(obj);
    removeFinalizer(modified, finalizer);
    await patchFrom(client, resource, obj, modified, { optimisticLock: true });
    return result;
  }
  if (!containsFinalizer(obj, finalizer)) {
    const modified = jsonClone(obj);
    addFinalizer(modified, finalizer);
    const stored = await patchFrom(client, resource, obj, modified, { optimisticLock: true });
    return r.apply(stored);
  }
  return r.apply(obj);
}
