import { onAbort } from './internal/abort-fanout.js';

/**
 * Resolves after ms (true), or early (false) when signal aborts; the timer never outlives the wait. Shared by every
 * layer that waits between attempts (reflector backoff, REST retries, leader election, retryOnConflict).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unregister();
      resolve(true);
    }, ms);
    const unregister = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          resolve(false);
        })
      : (): void => undefined;
  });
}
