import type { Clock } from '../../src/runtime/clock.js';
import { settle } from './eventually.js';

interface Timer {
  at: number;
  resolve: (elapsed: boolean) => void;
}

/**
 * A Clock that moves only when told (client-go's clock/testing.FakeClock): sleeps resolve when advance() passes their
 * time, so code with 15-second leases runs in a test in milliseconds and in the same order every time.
 */
export class FakeClock implements Clock {
  private t = 0;
  private readonly timers: Timer[] = [];
  private readonly epoch = Date.parse('2026-01-01T00:00:00Z');

  now(): number {
    return this.t;
  }

  date(): Date {
    return new Date(this.epoch + this.t);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const i = this.timers.indexOf(timer);
        if (i >= 0) this.timers.splice(i, 1);
        resolve(false);
      };
      // As the runtime's sleep: a wait that ends leaves no listener behind on the signal (long runs would pile them up).
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        resolve: (elapsed) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(elapsed);
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Moves time forward by `ms` without waking anyone, as a process sees time after it was paused (SIGSTOP): sleepers
   * whose time has passed wake on the next advance().
   */
  jump(ms: number): void {
    this.t += ms;
  }

  /** Moves time forward by `ms`, waking each sleeper at its time and letting what it started run before the next. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      // After a jump() the clock may be past a sleeper's time already: it never goes back.
      this.t = Math.max(this.t, due.at);
      for (const timer of this.timers.filter((x) => x.at <= this.t)) {
        this.timers.splice(this.timers.indexOf(timer), 1);
        timer.resolve(true);
      }
    }
    this.t = target;
    await settle();
  }

  /** Advances in steps of `stepMs` until `cond` holds; fails after `limitMs` of fake time. Returns the time it took. */
  async advanceUntil(
    cond: () => boolean,
    what: string,
    opts: { stepMs?: number; limitMs?: number } = {},
  ): Promise<number> {
    const start = this.t;
    const step = opts.stepMs ?? 100;
    const limit = opts.limitMs ?? 120_000;
    await settle();
    while (!cond()) {
      if (this.t - start >= limit) throw new Error(`${what} did not happen within ${limit} ms of fake time`);
      await this.advance(step);
    }
    return this.t - start;
  }
}
