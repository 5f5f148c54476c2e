import { findInChain } from '../errors.js';
import type { V1OwnerReference } from '@kubernetes/client-node';
import type { KubeObject, Resource } from '../rest/types.js';
import { parseApiVersion } from '../rest/resource.js';
import { InvalidObjectError } from '../errors.js';

/** The object already has a controller owner other than the one being set (controllerutil.AlreadyOwnedError). */
export class AlreadyOwnedError extends Error {
  constructor(
    readonly object: KubeObject,
    readonly owner: V1OwnerReference,
  ) {
    super(
      `Object ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

/** True when `err` (or an error in its cause chain) is an AlreadyOwnedError: another controller owns the object. */
export function isAlreadyOwned(err: unknown): err is AlreadyOwnedError {
  return findInChain(err, AlreadyOwnedError) !== undefined;
}

/**
 * Options of setControllerReference and setOwnerReference: the owner's kind when the object lacks it, and
 * blockOwnerDeletion.
 */
export interface OwnerReferenceOptions {
  /** The owner's resource, when the owner object lacks apiVersion/kind (objects from list responses do). */
  ownerType?: Pick<Resource, 'apiVersion' | 'kind'>;
  /** Default true for controller references, as controller-runtime sets it. */
  blockOwnerDeletion?: boolean;
}

function referenceTo(owner: KubeObject, opts: OwnerReferenceOptions): V1OwnerReference {
  const apiVersion = owner.apiVersion ?? opts.ownerType?.apiVersion;
  const kind = owner.kind ?? opts.ownerType?.kind;
  if (!apiVersion || !kind) throw new InvalidObjectError('the owner has no apiVersion/kind; pass ownerType');
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!name || !uid) throw new InvalidObjectError(`the owner ${kind} must have a name and uid (create it first)`);
  return { apiVersion, kind, name, uid };
}

function validateOwner(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace ?? '';
  if (ownerNs === '') return;
  const objNs = object.metadata?.namespace ?? '';
  if (objNs === '')
    throw new InvalidObjectError(
      `cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`,
    );
  if (objNs !== ownerNs)
    throw new InvalidObjectError(
      `cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`,
    );
}

// Same owner: same group, kind and name (the version may differ).
function sameOwner(a: V1OwnerReference, b: V1OwnerReference): boolean {
  return (
    a.kind === b.kind &&
    a.name === b.name &&
    parseApiVersion(a.apiVersion).group === parseApiVersion(b.apiVersion).group
  );
}

function upsert(object: KubeObject, ref: V1OwnerReference): void {
  object.metadata ??= {};
  const refs = (object.metadata.ownerReferences ??= []);
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
}

/**
 * Makes `owner` the managing controller of `object` (controllerutil.SetControllerReference): garbage collection
 * deletes `object` with its owner, and enqueueRequestForOwner({onlyController}) maps events back to the owner.
 */
export function setControllerReference(owner: KubeObject, object: KubeObject, opts: OwnerReferenceOptions = {}): void {
  const ref: V1OwnerReference = {
    ...referenceTo(owner, opts),
    blockOwnerDeletion: opts.blockOwnerDeletion ?? true,
    controller: true,
  };
  validateOwner(owner, object);
  const existing = getControllerOf(object);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(object, existing);
  upsert(object, ref);
}

/** Adds (or refreshes) a non-controller owner reference (controllerutil.SetOwnerReference). */
export function setOwnerReference(owner: KubeObject, object: KubeObject, opts: OwnerReferenceOptions = {}): void {
  const ref = referenceTo(owner, opts);
  if (opts.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = opts.blockOwnerDeletion;
  validateOwner(owner, object);
  upsert(object, ref);
}

/** Removes the reference to `owner`; returns true when one was removed. */
export function removeOwnerReference(owner: KubeObject, object: KubeObject, opts: OwnerReferenceOptions = {}): boolean {
  const ref = referenceTo(owner, opts);
  const refs = object.metadata?.ownerReferences;
  if (!refs) return false;
  const kept = refs.filter((r) => !sameOwner(r, ref));
  if (kept.length === refs.length) return false;
  object.metadata!.ownerReferences = kept;
  return true;
}

/** The owner reference marked controller: true, if any (metav1.GetControllerOf). */
export function getControllerOf(object: KubeObject): V1OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True when some owner reference of the object has controller: true (controllerutil.HasControllerReference). */
export function hasControllerReference(object: KubeObject): boolean {
  return getControllerOf(object) !== undefined;
}

/**
 * True when `object` has an owner reference, controller or not, to `owner`: same API group, kind and name, whatever the
 * version (controllerutil.HasOwnerReference, which takes the list of references; here the object that holds them).
 * The owner needs apiVersion and kind, or `opts.ownerType`.
 * @example
 * ```ts
 * import { hasOwnerReference, setOwnerReference } from '@kubescaffold/runtime/client';
 *
 * const owner = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'u-1' } };
 * const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'default' } };
 * console.log(hasOwnerReference(config, owner));
 * setOwnerReference(owner, config);
 * console.log(hasOwnerReference(config, owner));
 * // Output:
 * // false
 * // true
 * ```
 */
export function hasOwnerReference(object: KubeObject, owner: KubeObject, opts: OwnerReferenceOptions = {}): boolean {
  const apiVersion = owner.apiVersion ?? opts.ownerType?.apiVersion;
  const kind = owner.kind ?? opts.ownerType?.kind;
  if (!apiVersion || !kind) throw new InvalidObjectError('the owner has no apiVersion/kind; pass ownerType');
  const ref = { apiVersion, kind, name: owner.metadata?.name ?? '', uid: '' };
  return (object.metadata?.ownerReferences ?? []).some((r) => sameOwner(r, ref));
}

/** True when `owner` is the controller of `object` (matched by uid). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(object);
  return ref !== undefined && ref.uid === owner.metadata?.uid;
}
