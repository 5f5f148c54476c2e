import { isConflict } from '../rest/errors.js';
import { sleep } from '../sleep.js';

/** client-go's wait.Backoff: `steps` attempts, waits growing by `factor`, each stretched by up to `jitter`. */
export interface RetryBackoff {
  /** How many attempts at most. */
  steps: number;
  /** First wait, in ms. */
  duration: number;
  /** Each wait is the previous one times this. */
  factor: number;
  /** Each wait is stretched by a random fraction of up to this much (0.1: up to 10% longer). */
  jitter: number;
  /** Upper bound for a wait, in ms. */
  cap?: number;
}

/** client-go's retry.DefaultRetry: 5 attempts, 10 ms apart, 10% jitter. */
export const defaultRetry: Readonly<RetryBackoff> = Object.freeze({ steps: 5, duration: 10, factor: 1.0, jitter: 0.1 });
/** client-go's retry.DefaultBackoff: 4 attempts, 10 ms growing ×5, for calls that may hit a busy server. */
export const defaultBackoff: Readonly<RetryBackoff> = Object.freeze({
  steps: 4,
  duration: 10,
  factor: 5.0,
  jitter: 0.1,
});

/** Runs `fn` until it succeeds, throws an error `retriable` rejects, or the backoff's steps run out (then rethrows). */
export async function onError<T>(
  backoff: RetryBackoff,
  retriable: (err: unknown) => boolean,
  fn: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  let wait = backoff.duration;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= backoff.steps || !retriable(err) || signal?.aborted) throw err;
    }
    const jittered = backoff.jitter > 0 ? wait * (1 + Math.random() * backoff.jitter) : wait;
    await sleep(jittered, signal);
    wait = Math.min(wait * backoff.factor, backoff.cap ?? Number.POSITIVE_INFINITY);
  }
}

/**
 * Runs `fn` again while it fails with 409 Conflict (client-go's retry.RetryOnConflict). `fn` must re-read the
 * object each time, so the update it makes is based on the latest version.
 */
export function retryOnConflict<T>(
  fn: () => Promise<T>,
  opts: { backoff?: RetryBackoff; signal?: AbortSignal } = {},
): Promise<T> {
  return onError(opts.backoff ?? defaultRetry, isConflict, fn, opts.signal);
}
