import { setTimeout as sleep } from 'node:timers/promises';
import type { SupervisedProcess } from './process.js';

export interface PollOptions {
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Give up at once if this process exits while we wait, quoting its output. */
  process?: SupervisedProcess;
}

/** Thrown when the supervised process died while we were waiting for it. */
export class ProcessExitedError extends Error {
  constructor(
    readonly process: SupervisedProcess,
    what: string,
  ) {
    super(`${process.describeExit()} while waiting for ${what}. Its last output:\n${tail(process.recentOutput(), 40)}`);
    this.name = 'ProcessExitedError';
  }
}

/** Calls `check` until it returns true; errors thrown by `check` count as "not yet". */
export async function pollUntil(check: () => Promise<boolean>, opts: PollOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (opts.process?.hasExited) throw new ProcessExitedError(opts.process, opts.what);
    try {
      if (await check()) return;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const out = opts.process ? `\n${opts.process.name}'s last output:\n${tail(opts.process.recentOutput(), 40)}` : '';
      throw new Error(`timed out after ${opts.timeoutMs / 1000}s waiting for ${opts.what}${why}${out}`);
    }
    await sleep(opts.intervalMs ?? 50);
  }
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
