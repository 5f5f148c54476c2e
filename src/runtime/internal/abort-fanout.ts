/**
 * One 'abort' listener per signal, however many waits share it.
 *
 * A manager hands one AbortSignal to every informer, and each of their watches, lists and backoff sleeps used to
 * add its own listener to it. Node warns once an EventTarget holds more than 10 listeners of one type
 * (MaxListenersExceededWarning), so a manager caching ten kinds printed that warning at every start though nothing
 * leaked. Here the signal carries a single listener that calls every registered callback, and a finished wait
 * removes only its callback from a set, so a long-lived signal never collects listeners.
 */

type Callbacks = Set<() => void>;

const fanouts = new WeakMap<AbortSignal, Callbacks>();

/**
 * Calls callback once when signal aborts; returns the function that unregisters it (safe to call more than once, and
 * after the abort). An already aborted signal does not call it: callers check `signal.aborted` first, as with
 * addEventListener.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = fanouts.get(signal);
  if (callbacks === undefined) {
    const registered: Callbacks = new Set();
    callbacks = registered;
    fanouts.set(signal, registered);
    signal.addEventListener('abort', () => fire(signal, registered), { once: true });
  }
  // A wrapper per registration, so that one callback registered twice is called twice and removed once each.
  const entry = (): void => callback();
  callbacks.add(entry);
  const set = callbacks;
  return () => {
    set.delete(entry);
  };
}

function fire(signal: AbortSignal, callbacks: Callbacks): void {
  fanouts.delete(signal);
  // The live set: a callback that another one unregisters during the abort is not called.
  for (const cb of callbacks) cb();
  callbacks.clear();
}

/** Resolves once signal aborts (at once if it has), through the signal's one shared listener. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => void onAbort(signal, resolve));
}
