// The API server's errors, as the fake client returns them: the same reasons, codes and messages, so that isNotFound,
// isConflict and friends (and a controller's handling of them) behave as against a real server.
import { ApiError } from '../rest/errors.js';
import type { Resource } from '../rest/types.js';

/** "configmaps" or "captains.crew.example.com", as the server names a resource in messages. */
function qualified(res: Resource): string {
  return res.group === '' ? res.plural : `${res.plural}.${res.group}`;
}

function failure(res: Resource, name: string, code: number, reason: string, message: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    reason,
    code,
    details: { name, group: res.group, kind: res.plural },
  });
}

export function notFound(res: Resource, name: string): ApiError {
  return failure(res, name, 404, 'NotFound', `${qualified(res)} "${name}" not found`);
}

export function alreadyExists(res: Resource, name: string): ApiError {
  return failure(res, name, 409, 'AlreadyExists', `${qualified(res)} "${name}" already exists`);
}

export function conflict(
  res: Resource,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): ApiError {
  return failure(res, name, 409, 'Conflict', `Operation cannot be fulfilled on ${qualified(res)} "${name}": ${why}`);
}

export function invalid(res: Resource, name: string, field: string, detail: string): ApiError {
  return failure(res, name, 422, 'Invalid', `${res.kind} "${name}" is invalid: ${field}: ${detail}`);
}

export function badRequest(res: Resource, name: string, message: string): ApiError {
  return failure(res, name, 400, 'BadRequest', message);
}

/** A subresource the kind does not have: the server's 404 for an unknown path. */
export function noSuchSubresource(res: Resource, name: string, sub: string): ApiError {
  return failure(
    res,
    name,
    404,
    'NotFound',
    `the server could not find the requested resource (${sub} of ${qualified(res)} "${name}")`,
  );
}

/** A Status without details, as the server answers errors that name no object. */
function bare(code: number, reason: string, message: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    ...(reason ? { reason } : {}),
    code,
  });
}

/**
 * The server's 415 for a patch type a resource does not take: custom resources take JSON, merge and apply patches,
 * not strategic merge patches (they have no Go struct tags to merge by).
 */
export function unsupportedPatchType(): ApiError {
  return bare(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
}

/** A strategic merge patch the server cannot apply: 400 for a malformed directive, 422 for lists of lists, else 500. */
export function strategicMergeFailed(failure: 'BadRequest' | 'Invalid' | 'Internal', message: string): ApiError {
  if (failure === 'BadRequest') return bare(400, 'BadRequest', message);
  if (failure === 'Invalid')
    return bare(422, 'Invalid', 'the server rejected our request due to an error in our request');
  return bare(500, '', message);
}
