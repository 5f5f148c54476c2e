/**
 * client-go's exponential backoff manager: each call returns the current delay plus up to jitter×delay, then doubles
 * it up to the cap; after resetAfterMs without a call (a healthy stretch) it starts over from the initial delay.
 */
export class Backoff {
  private current: number;
  private lastStart = -Infinity;

  constructor(
    private readonly initialMs = 800,
    private readonly capMs = 30_000,
    private readonly resetAfterMs = 120_000,
    private readonly factor = 2,
    private readonly jitter = 1,
    private readonly now: () => number = () => performance.now(),
    private readonly random: () => number = Math.random,
  ) {
    this.current = initialMs;
  }

  /** Starts over from the initial delay (the server answers again: no reason to wait out the last failures). */
  reset(): void {
    this.current = this.initialMs;
    this.lastStart = -Infinity;
  }

  next(): number {
    const now = this.now();
    if (now - this.lastStart > this.resetAfterMs) this.current = this.initialMs;
    this.lastStart = now;
    const base = this.current;
    this.current = Math.min(this.capMs, this.current * this.factor);
    return this.jitter > 0 ? base + this.random() * this.jitter * base : base;
  }
}

export { sleep } from '../sleep.js';
