/**
 * Waiting in tests for something to become true: polled until it holds or a bound passes. The bound is a limit on
 * waiting, never an assertion about speed: pass one derived from what is tested (a lease duration, a resync period)
 * or keep the default, which is generous for a loaded two-core machine. When it runs out the error says what was
 * awaited, the check's last error, and whatever `diagnose` reports (logs, events, object state).
 */
export interface EventuallyOptions {
  /** What is awaited, for the failure message ("the leader to reconcile all 5 objects"). */
  what: string;
  /** How long to keep trying (ms). Default 30000. */
  timeoutMs?: number;
  /** Time between checks (ms). Default 50. */
  intervalMs?: number;
  /** Called once the time is up; what it returns is added to the error. */
  diagnose?: () => string | Promise<string>;
}

/** Resolves once `check` returns true; a check that throws counts as not yet. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  options: EventuallyOptions | string = 'the condition to hold',
): Promise<void> {
  const opts = typeof options === 'string' ? { what: options } : options;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (performance.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 50));
  }
  let message = `timed out after ${timeoutMs} ms waiting for ${opts.what}`;
  if (lastError !== undefined)
    message += `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
  if (opts.diagnose) {
    try {
      message += `\n${await opts.diagnose()}`;
    } catch (err) {
      message += `\n(diagnostics failed: ${err instanceof Error ? err.message : String(err)})`;
    }
  }
  throw new Error(message);
}

/**
 * Lets everything already queued run (promise callbacks, and then callbacks of the current event-loop turn), for a
 * test asserting that something has NOT happened yet. It waits for no length of time.
 */
export async function settle(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
