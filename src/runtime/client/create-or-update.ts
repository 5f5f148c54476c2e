import { isNotFound } from '../rest/errors.js';
import type { Client } from './client.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { deepEqual, jsonClone } from '../json/index.js';
import { createMergePatch, keyOf } from './patch.js';
import { InvalidObjectError } from '../errors.js';

/** What createOrUpdate / createOrPatch did (controllerutil.OperationResult). */
export type OperationResult = 'unchanged' | 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly';

/** Mutates the object toward the desired state; must not change its name or namespace. */
export type MutateFn<T> = (obj: T) => void | Promise<void>;

async function mutate<T extends KubeObject>(obj: T, fn: MutateFn<T>): Promise<void> {
  const before = keyOf(obj);
  await fn(obj);
  const after = keyOf(obj);
  if (before.name !== after.name || (before.namespace ?? '') !== (after.namespace ?? '')) {
    throw new InvalidObjectError('MutateFn cannot mutate object name and/or object namespace');
  }
}

/** Replaces obj's contents with src's, so the caller's reference sees what the server holds (as Go fills obj in place). */
function fillInPlace<T extends KubeObject>(obj: T, src: T): void {
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, src);
}

/** Reads the object named by `obj` into it; when there is none, applies `fn` and creates it instead (true). */
async function createIfMissing<T extends KubeObject>(
  client: Client,
  res: Resource<T>,
  obj: T,
  fn: MutateFn<T>,
): Promise<boolean> {
  let current: T;
  try {
    current = await client.get(res, keyOf(obj));
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await mutate(obj, fn);
    fillInPlace(obj, await client.create(res, obj));
    return true;
  }
  fillInPlace(obj, current);
  return false;
}

/**
 * Reads the object named by `obj`, applies `fn`, and creates it if missing or updates it if `fn` changed it
 * (controllerutil.CreateOrUpdate). `obj` is filled in place with the object the server returned.
 */
export async function createOrUpdate<T extends KubeObject>(
  client: Client,
  res: Resource<T>,
  obj: T,
  fn: MutateFn<T>,
): Promise<OperationResult> {
  if (await createIfMissing(client, res, obj, fn)) return 'created';
  const existing = jsonClone(obj);
  await mutate(obj, fn);
  if (deepEqual(existing, obj)) return 'unchanged';
  fillInPlace(obj, await client.update(res, obj));
  return 'updated';
}

/**
 * Like createOrUpdate but writes merge patches: one for the object without status and, when `fn` changed the
 * status, one to the status subresource (controllerutil.CreateOrPatch).
 */
export async function createOrPatch<T extends KubeObject>(
  client: Client,
  res: Resource<T>,
  obj: T,
  fn: MutateFn<T>,
): Promise<OperationResult> {
  if (await createIfMissing(client, res, obj, fn)) return 'created';
  const { status: beforeStatus, ...before } = jsonClone(obj) as Record<string, unknown>;
  await mutate(obj, fn);
  const { status: afterStatus, ...after } = jsonClone(obj) as Record<string, unknown>;
  const specChanged = !deepEqual(before, after);
  const statusChanged = !deepEqual(beforeStatus, afterStatus);
  if (!specChanged && !statusChanged) return 'unchanged';
  const key = keyOf(obj);
  let stored: T | undefined;
  if (specChanged) {
    stored = await client.patch(res, key, createMergePatch(before, after), { type: 'merge' });
  }
  if (statusChanged) {
    const statusPatch = createMergePatch({ status: beforeStatus }, { status: afterStatus });
    stored = await client.status().patch(res, key, statusPatch, { type: 'merge' });
  }
  if (stored) fillInPlace(obj, stored);
  return specChanged ? (statusChanged ? 'updatedStatus' : 'updated') : 'updatedStatusOnly';
}
