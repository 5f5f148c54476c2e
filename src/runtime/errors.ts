/**
 * The runtime's typed errors, each with an isX predicate as apimachinery's errors.IsNotFound: what a caller can test
 * for instead of matching messages. Errors the API server answered are ApiError (rest/errors.ts, isNotFound ...);
 * these are the runtime's own. The predicates follow the cause chain (as Go's errors.As unwraps), so a typed error
 * wrapped as another error's cause is still recognised.
 */

/**
 * The first error of class `cls` in the cause chain of `err` (itself first), as Go's errors.As unwraps; the typed errors
 * kept beside their modules (KubeConfigError, SelectorParseError, ...) build their isX predicates on it. Follows a
 * bounded number of steps, since a cause chain can be circular.
 */
export function findInChain<T extends Error>(err: unknown, cls: abstract new (...args: never[]) => T): T | undefined {
  let cur: unknown = err;
  for (let depth = 0; cur instanceof Error && depth < 16; depth++) {
    if (cur instanceof cls) return cur;
    cur = cur.cause;
  }
  return undefined;
}

/**
 * Invalid options, arguments or wiring given by the caller: a controller without a name, the builder used out of
 * order, a ManagerOptions field missing, a path or an index registered twice. Fixing the program fixes it; retrying
 * does not.
 */
export class ConfigurationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigurationError';
  }
}

/** True when `err` (or an error in its cause chain) is a ConfigurationError: the caller's options or arguments are invalid. */
export function isConfigurationError(err: unknown): err is ConfigurationError {
  return findInChain(err, ConfigurationError) !== undefined;
}

/**
 * An object handed to the runtime lacks what the operation needs (metadata.name, a namespace for a namespaced kind,
 * apiVersion and kind, an owner's uid, a resourceVersion for an optimistic lock) or breaks one of its rules (a
 * cross-namespace owner reference, a MutateFn that renamed the object). Checked before any request is sent.
 */
export class InvalidObjectError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidObjectError';
  }
}

/** True when `err` (or an error in its cause chain) is an InvalidObjectError: the object given cannot be used as it is. */
export function isInvalidObjectError(err: unknown): err is InvalidObjectError {
  return findInChain(err, InvalidObjectError) !== undefined;
}

/**
 * Why a component was used in the wrong state: `AlreadyStarted` (started twice), `NotStarted` (used before it was
 * started) or `Stopped` (used after it stopped or was closed).
 */
export type LifecycleErrorReason = 'AlreadyStarted' | 'NotStarted' | 'Stopped';

/**
 * A component (manager, controller, cache, informer, webhook server, transport ...) used in the wrong state of its
 * life: started twice, used before it was started, or used after it stopped. `reason` says which.
 */
export class LifecycleError extends Error {
  /** AlreadyStarted, NotStarted or Stopped. */
  readonly reason: LifecycleErrorReason;
  constructor(message: string, reason: LifecycleErrorReason, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LifecycleError';
    this.reason = reason;
  }
}

/**
 * True when `err` (or an error in its cause chain) is a LifecycleError (CacheNotStartedError is one); with `reason`,
 * only one for that reason.
 */
export function isLifecycleError(err: unknown, reason?: LifecycleErrorReason): err is LifecycleError {
  const found = findInChain(err, LifecycleError);
  return found !== undefined && (reason === undefined || found.reason === reason);
}

/**
 * Something did not happen in time: caches that did not sync, a reconcile or a Lease request over its bound, a
 * graceful shutdown that did not finish, a dial that got no answer. IdleTimeoutError (a silent watch or request) is
 * one. Usually worth retrying.
 */
export class TimeoutError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TimeoutError';
  }
}

/** True when `err` (or an error in its cause chain) is a TimeoutError, IdleTimeoutError included. */
export function isTimeoutError(err: unknown): err is TimeoutError {
  return findInChain(err, TimeoutError) !== undefined;
}

/**
 * Why talking to a server failed: `Unreachable` (no connection could be made) or `BadResponse` (what it sent cannot
 * be understood: a malformed body or watch event, an unknown event type, a watch that closed at once).
 */
export type TransportErrorReason = 'Unreachable' | 'BadResponse';

/**
 * Talking to a server (the API server, the webhook server for its readiness check) failed below the API: it could not
 * be reached, or its answer cannot be understood. `reason` says which; the underlying error, if any, is the cause.
 */
export class TransportError extends Error {
  /** Unreachable or BadResponse. */
  readonly reason: TransportErrorReason;
  constructor(message: string, reason: TransportErrorReason, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransportError';
    this.reason = reason;
  }
}

/** True when `err` (or an error in its cause chain) is a TransportError; with `reason`, only one for that reason. */
export function isTransportError(err: unknown, reason?: TransportErrorReason): err is TransportError {
  const found = findInChain(err, TransportError);
  return found !== undefined && (reason === undefined || found.reason === reason);
}

/**
 * The operation stopped because its process or component is shutting down: setupSignalHandler's abort reason
 * (`received SIGTERM`), a server or cache stopped before it was ready. Not a failure to report.
 */
export class ShutdownError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ShutdownError';
  }
}

/** True when `err` (or an error in its cause chain) is a ShutdownError: the work stopped because of a shutdown. */
export function isShutdownError(err: unknown): err is ShutdownError {
  return findInChain(err, ShutdownError) !== undefined;
}

/**
 * Leadership was lost: the Lease was taken by another holder or could not be renewed in time. Manager.start() rejects
 * with it (the process should exit so another replica can lead), and it is the abort reason of the signal that work
 * done while leading was given.
 */
export class LeaderElectionLostError extends Error {
  constructor(options?: ErrorOptions & { message?: string }) {
    super(options?.message ?? 'leader election lost', options);
    this.name = 'LeaderElectionLostError';
  }
}

/**
 * Raised instead of sending a write when this replica's term in a shard ring has ended (its Lease went unrenewed for
 * renewDeadline, or the process was paused): another replica may already hold its partitions.
 */
export class ShardTermEndedError extends Error {
  constructor(options?: ErrorOptions & { message?: string }) {
    super(
      options?.message ??
        'shard ring term ended: this replica no longer holds its partitions, so the write was not sent',
      options,
    );
    this.name = 'ShardTermEndedError';
  }
}

/** True when `err` (or an error in its cause chain) is a ShardTermEndedError. */
export function isShardTermEnded(err: unknown): err is ShardTermEndedError {
  return findInChain(err, ShardTermEndedError) !== undefined;
}

/** True when `err` (or an error in its cause chain) is a LeaderElectionLostError. */
export function isLeaderElectionLost(err: unknown): err is LeaderElectionLostError {
  return findInChain(err, LeaderElectionLostError) !== undefined;
}

/**
 * The manager stopped because its heap was nearly full after a full garbage collection: what it caches outgrew the
 * memory it was given, and V8 would soon abort the process in the middle of an allocation. The message says how far
 * the heap got, what the caches hold, and which limit to raise.
 */
export class HeapLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeapLimitError';
  }
}

/** True when `err` (or an error in its cause chain) is a HeapLimitError. */
export function isHeapLimitError(err: unknown): err is HeapLimitError {
  return findInChain(err, HeapLimitError) !== undefined;
}
