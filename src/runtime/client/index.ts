/**
 * controller-runtime's client: the `Client` interface reconcilers are written against (with the options its calls
 * take), the cached client, server-side apply's typed apply configurations and `extract`, patches, conditions,
 * finalizers, owner references, createOrUpdate, retries, and the value types of API objects. `newClient(kc)` (@kubescaffold/runtime/rest) makes the uncached one.
 *
 * @module @kubescaffold/runtime/client
 */
export type { Client, SubResourceWriter } from './client.js';
// The per-call options are metav1's and declared with the REST client that sends them.
export type {
  ApplyConfiguration,
  ApplyOptions,
  CreateOptions,
  DeepPartial,
  FieldValidation,
  DeleteOptions,
  ListOptions,
  ObjectKey,
  ObjectList,
  PatchOptions,
  PatchType,
  Preconditions,
  UpdateOptions,
} from '../rest/types.js';
export type {
  int32,
  int64,
  Condition,
  Quantity,
  IntOrString,
  Time,
  MicroTime,
  Duration,
  JSONValue,
  RawExtension,
} from './apitypes.js';
export {
  setStatusCondition,
  findStatusCondition,
  removeStatusCondition,
  isStatusConditionTrue,
  isStatusConditionFalse,
  type NewCondition,
} from './conditions.js';
export {
  createMergePatch,
  mergeFrom,
  patchFrom,
  jsonPointerEscape,
  keyOf,
  type MergeFromOptions,
  type JsonPatchOperation,
} from './patch.js';
export { retryOnConflict, onError as retryOnError, defaultRetry, defaultBackoff, type RetryBackoff } from './retry.js';
export {
  addFinalizer,
  removeFinalizer,
  containsFinalizer,
  reconcileWithFinalizer,
  type FinalizerReconcile,
} from './finalizers.js';
export {
  setControllerReference,
  setOwnerReference,
  removeOwnerReference,
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  isControlledBy,
  AlreadyOwnedError,
  isAlreadyOwned,
  type OwnerReferenceOptions,
} from './ownerref.js';
export { extract, type ExtractOptions } from './extract.js';
export { createOrUpdate, createOrPatch, type OperationResult, type MutateFn } from './create-or-update.js';
export { deepEqual } from '../json/index.js';
export {
  CachedClient,
  type CachedClientOptions,
  type CachedListOptions,
  type CachedReadOptions,
  type ReadYourWritesOptions,
} from './cached-client.js';
