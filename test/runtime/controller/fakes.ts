import type { RateLimiter } from '../../../src/runtime/workqueue/index.js';
import type { RequestQueue, Source } from '../../../src/runtime/controller/index.js';
import type { Request } from '../../../src/runtime/reconcile/index.js';

/** A source the test drives by hand: push requests, choose whether it ever syncs. */
export class FakeSource implements Source {
  queue: RequestQueue | undefined;
  startedWith: AbortSignal | undefined;
  constructor(private readonly synced = true) {}
  async start(signal: AbortSignal, queue: RequestQueue): Promise<void> {
    this.startedWith = signal;
    this.queue = queue;
  }
  waitForSync(signal: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
  }
  push(...reqs: Request[]): void {
    if (!this.queue) throw new Error('source not started');
    for (const r of reqs) this.queue.add(r);
  }
  toString(): string {
    return 'fake source';
  }
}

/** Records the rate limiter calls and retries after 1 ms so tests run fast. */
export class RecordingRateLimiter implements RateLimiter {
  readonly whens: unknown[] = [];
  readonly forgets: unknown[] = [];
  private readonly failures = new Map<unknown, number>();
  when(item: unknown): number {
    this.whens.push(item);
    this.failures.set(item, (this.failures.get(item) ?? 0) + 1);
    return 1;
  }
  forget(item: unknown): void {
    this.forgets.push(item);
    this.failures.delete(item);
  }
  numRequeues(item: unknown): number {
    return this.failures.get(item) ?? 0;
  }
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
