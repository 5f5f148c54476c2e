// client-go's workqueue rate limiters. Delays are milliseconds.

/** Decides how long an item waits before it is retried. */
export interface RateLimiter<K = unknown> {
  /** The delay before this retry of item; counts the failure. */
  when(item: K): number;
  /** Stops tracking item (call on success). */
  forget(item: K): void;
  /** How many failures item has had since it was last forgotten. */
  numRequeues(item: K): number;
}

/** baseDelay * 2^failures, capped at maxDelay. */
export class ItemExponentialFailureRateLimiter<K = unknown> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  when(item: K): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp;
    return Number.isFinite(backoff) && backoff < this.maxDelayMs ? backoff : this.maxDelayMs;
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/** fastDelay for the first maxFastAttempts failures, slowDelay after. */
export class ItemFastSlowRateLimiter<K = unknown> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly fastDelayMs: number,
    private readonly slowDelayMs: number,
    private readonly maxFastAttempts: number,
  ) {}

  when(item: K): number {
    const n = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * An overall token bucket (golang.org/x/time/rate semantics): `burst` tokens, refilled at `qps`; each retry takes a
 * token, possibly going into debt, and waits until its token exists. Not per item.
 */
export class BucketRateLimiter<K = unknown> implements RateLimiter<K> {
  private tokens: number;
  private last: number | undefined;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
  }

  when(_item: K): number {
    const now = this.now();
    if (this.qps === Infinity) return 0;
    if (this.last !== undefined && now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    }
    if (this.last === undefined || now > this.last) this.last = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    if (this.qps <= 0) return Infinity;
    return (-this.tokens / this.qps) * 1000;
  }

  forget(_item: K): void {}

  numRequeues(_item: K): number {
    return 0;
  }
}

/** The longest delay of all its limiters (each one counts the failure). */
export class MaxOfRateLimiter<K = unknown> implements RateLimiter<K> {
  private readonly limiters: RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(item: K): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }

  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: K): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** One constant delay that still counts requeues; handy in tests. */
export class FixedDelayRateLimiter<K = unknown> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(private readonly delayMs: number) {}

  when(item: K): number {
    this.failures.set(item, (this.failures.get(item) ?? 0) + 1);
    return this.delayMs;
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/** client-go's DefaultControllerRateLimiter: max(per-item 5 ms → 1000 s exponential, 10 qps / 100 burst bucket). */
export function defaultControllerRateLimiter<K = unknown>(): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1000_000),
    new BucketRateLimiter<K>(10, 100),
  );
}

/** client-go's DefaultItemBasedRateLimiter: per-item exponential 1 ms → 1000 s. */
export function defaultItemBasedRateLimiter<K = unknown>(): RateLimiter<K> {
  return new ItemExponentialFailureRateLimiter<K>(1, 1000_000);
}
