import { onAbort } from '../internal/abort-fanout.js';

/** How often waitForCacheSync polls (client-go: 100 ms). */
const POLL_MS = 10;

/**
 * Resolves true once every hasSynced returns true, or false if signal aborts first (client-go's
 * WaitForCacheSync). Pass informer.hasSynced or a handler registration's hasSynced.
 */
export function waitForCacheSync(signal: AbortSignal, ...hasSynced: (() => boolean)[]): Promise<boolean> {
  const all = (): boolean => hasSynced.every((f) => f());
  if (all()) return Promise.resolve(true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (v: boolean): void => {
      clearInterval(timer);
      unregister();
      resolve(v);
    };
    const timer = setInterval(() => {
      if (all()) finish(true);
    }, POLL_MS);
    const unregister = onAbort(signal, () => finish(false));
  });
}
