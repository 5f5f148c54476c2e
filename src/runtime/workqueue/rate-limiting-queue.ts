import { DelayingQueue } from './delaying-queue.js';
import type { QueueOptions } from './queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** Options of a RateLimitingQueue: a Queue's options plus the rate limiter. */
export interface RateLimitingQueueOptions<T> extends QueueOptions<T> {
  /** Sees the queue's key for each item (the item itself unless keyOf is set). Default: defaultControllerRateLimiter(). */
  rateLimiter?: RateLimiter;
}

/** client-go's rate-limiting queue: a delaying queue whose retries wait as long as the rate limiter says. */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  private readonly rateLimiter: RateLimiter;
  private readonly limiterKeyOf: (item: T) => unknown;

  constructor(opts: RateLimitingQueueOptions<T> = {}) {
    super(opts);
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter();
    this.limiterKeyOf = opts.keyOf ?? ((item) => item);
  }

  /** Adds item once the rate limiter allows it (counting one more failure). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(this.limiterKeyOf(item)));
  }

  /** Clears item's failure history; the item itself stays queued if it is. */
  forget(item: T): void {
    this.rateLimiter.forget(this.limiterKeyOf(item));
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(this.limiterKeyOf(item));
  }
}
