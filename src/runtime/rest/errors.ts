import { requestPermission, type RequestPermission } from './forbidden.js';
import type { Status } from './types.js';

/** A failed API call: the HTTP code, the server's reason and its full Status object. */
export class ApiError extends Error {
  /** The HTTP status code (the Status object's code when the body had one). */
  readonly code: number;
  /**
   * The Status reason (metav1.StatusReason: NotFound, Conflict, AlreadyExists, ...), which the isX functions test
   * first.
   */
  readonly reason: string | undefined;
  /** The server's Status object as received, or one built from the HTTP code when the body was not a Status. */
  readonly status: Status;
  /** For a 403 Forbidden answer: the permission the request needed (verb, group, resource, namespace, name). */
  forbidden?: RequestPermission;

  constructor(status: Status, code?: number) {
    const c = code ?? status.code ?? 0;
    super(status.message ?? `the server returned ${c}${status.reason ? ` (${status.reason})` : ''}`);
    this.name = 'ApiError';
    this.code = c;
    this.reason = status.reason;
    this.status = status;
  }

  /** Wraps a non-Status error body (e.g. a proxy's HTML page) the way client-go does: reason from the HTTP code. */
  static fromResponse(code: number, body: string, method: string, path: string, watch = false): ApiError {
    const parsed = tryParseStatus(body);
    const reason = reasonForCode(code);
    const message = `${method} ${path}: the server returned ${code}${body ? `: ${body.slice(0, 200).trim()}` : ''}`;
    const error = parsed
      ? new ApiError(parsed, code)
      : new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message }, code);
    if (code === 403) error.forbidden = requestPermission(method, path, watch);
    return error;
  }
}

function tryParseStatus(body: string): Status | undefined {
  if (!body.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(body) as { kind?: unknown };
    return v && v.kind === 'Status' ? (v as Status) : undefined;
  } catch {
    return undefined;
  }
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

function reasonOf(e: unknown): string | undefined {
  return e instanceof ApiError ? e.reason : undefined;
}

function codeOf(e: unknown): number | undefined {
  return e instanceof ApiError ? e.code : undefined;
}

// Like apimachinery's errors.IsX: the reason decides, the code is the fallback when the reason is missing.
function matches(e: unknown, reason: string, code: number): boolean {
  const r = reasonOf(e);
  if (r !== undefined && r !== '' && r !== 'Unknown') return r === reason;
  return codeOf(e) === code;
}

/** True for a 404 NotFound ApiError (apimachinery's errors.IsNotFound). */
export function isNotFound(e: unknown): boolean {
  return matches(e, 'NotFound', 404);
}
/** True for an ApiError with reason AlreadyExists: a create of an object that exists (errors.IsAlreadyExists). */
export function isAlreadyExists(e: unknown): boolean {
  return reasonOf(e) === 'AlreadyExists';
}
/**
 * True for a 409 Conflict ApiError, e.g. an update with a stale resourceVersion (errors.IsConflict); see
 * retryOnConflict.
 */
export function isConflict(e: unknown): boolean {
  return matches(e, 'Conflict', 409);
}
/** 410: the requested resourceVersion is too old (a watch or list must start over). */
export function isGone(e: unknown): boolean {
  const r = reasonOf(e);
  return r === 'Gone' || r === 'Expired' || codeOf(e) === 410;
}
/** Alias matching apimachinery's IsResourceExpired. */
export const isResourceExpired = isGone;
/** True for a 422 Invalid ApiError: the object failed validation (errors.IsInvalid). */
export function isInvalid(e: unknown): boolean {
  return matches(e, 'Invalid', 422);
}
/**
 * True for a 403 Forbidden ApiError (errors.IsForbidden); the error's `forbidden` names the permission that was
 * missing.
 */
export function isForbidden(e: unknown): boolean {
  return matches(e, 'Forbidden', 403);
}
/** True for a 401 Unauthorized ApiError: the credentials were rejected (errors.IsUnauthorized). */
export function isUnauthorized(e: unknown): boolean {
  return matches(e, 'Unauthorized', 401);
}
/** True for a 429 TooManyRequests ApiError (errors.IsTooManyRequests). */
export function isTooManyRequests(e: unknown): boolean {
  return matches(e, 'TooManyRequests', 429);
}
/** True for a 400 BadRequest ApiError (errors.IsBadRequest). */
export function isBadRequest(e: unknown): boolean {
  return matches(e, 'BadRequest', 400);
}
/**
 * True for an ApiError with reason ServerTimeout: the server could not finish in time and the call may be retried
 * (errors.IsServerTimeout).
 */
export function isServerTimeout(e: unknown): boolean {
  return reasonOf(e) === 'ServerTimeout';
}
/** True for a 504 Timeout ApiError (errors.IsTimeout). */
export function isTimeout(e: unknown): boolean {
  return matches(e, 'Timeout', 504);
}
/** True for a 500 InternalError ApiError (errors.IsInternalError). */
export function isInternalError(e: unknown): boolean {
  return matches(e, 'InternalError', 500);
}
