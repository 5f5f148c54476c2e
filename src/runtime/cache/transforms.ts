import type { KubeObject } from '../rest/types.js';
import type { TransformFunc } from './delta_fifo.js';

/**
 * Drops metadata.managedFields before caching (controller-runtime's TransformStripManagedFields): they are often a
 * fifth or more of an object's size and controllers rarely read them.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

/** Applies transforms in order. */
export function chainTransforms<T extends KubeObject>(...fns: TransformFunc<T>[]): TransformFunc<T> {
  return (obj) => fns.reduce((o, f) => f(o), obj);
}
