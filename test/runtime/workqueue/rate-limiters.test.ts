import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  RateLimitingQueue,
  defaultControllerRateLimiter,
} from '../../../src/runtime/workqueue/index.js';

describe('rate limiters', () => {
  it('ItemExponentialFailureRateLimiter doubles per failure up to the max, per item, until forgotten', () => {
    const l = new ItemExponentialFailureRateLimiter(1, 1000);
    expect([1, 2, 3, 4, 5].map(() => l.when('one'))).toEqual([1, 2, 4, 8, 16]);
    expect(l.numRequeues('one')).toBe(5);
    expect(l.when('two')).toBe(1);
    expect(l.when('two')).toBe(2);
    expect(l.numRequeues('two')).toBe(2);
    l.forget('one');
    expect(l.numRequeues('one')).toBe(0);
    expect(l.when('one')).toBe(1);
  });

  it('ItemExponentialFailureRateLimiter caps at maxDelay without overflowing', () => {
    const l = new ItemExponentialFailureRateLimiter(1, 1000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = l.when('x');
    expect(last).toBe(1000);
  });

  it('ItemFastSlowRateLimiter is fast for maxFastAttempts, then slow', () => {
    const l = new ItemFastSlowRateLimiter(5, 10_000, 3);
    expect([1, 2, 3, 4, 5].map(() => l.when('one'))).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(l.numRequeues('one')).toBe(5);
    l.forget('one');
    expect(l.when('one')).toBe(5);
  });

  it('BucketRateLimiter allows a burst, then spaces retries at 1/qps and refills over time', () => {
    let now = 0;
    const l = new BucketRateLimiter(10, 3, () => now);
    expect([l.when('a'), l.when('b'), l.when('c')]).toEqual([0, 0, 0]);
    expect(l.when('d')).toBeCloseTo(100);
    expect(l.when('e')).toBeCloseTo(200);
    now = 1000; // 10 tokens refilled, capped at the burst, minus the debt of 2
    expect(l.when('f')).toBe(0);
    expect(l.numRequeues('f')).toBe(0);
  });

  it('MaxOfRateLimiter takes the longest delay and the most requeues', () => {
    const l = new MaxOfRateLimiter(
      new ItemFastSlowRateLimiter(5, 3000, 3),
      new ItemExponentialFailureRateLimiter(1, 1000),
    );
    expect([1, 2, 3, 4].map(() => l.when('one'))).toEqual([5, 5, 5, 3000]);
    expect(l.numRequeues('one')).toBe(4);
    l.forget('one');
    expect(l.numRequeues('one')).toBe(0);
  });

  it('defaultControllerRateLimiter starts at 5 ms per item', () => {
    const l = defaultControllerRateLimiter();
    expect(l.when('a')).toBe(5);
    expect(l.when('a')).toBe(10);
    expect(l.when('b')).toBe(5);
  });
});

describe('RateLimitingQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('addRateLimited waits per the limiter and counts requeues until forget', () => {
    const q = new RateLimitingQueue<string>({
      rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
      now: () => Date.now(),
    });
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(1);
    vi.advanceTimersByTime(9);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.len()).toBe(1);
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(2);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    q.shutDown();
  });

  it('uses the queue key for the limiter when keyOf is set', () => {
    const q = new RateLimitingQueue<{ name: string }>({
      keyOf: (r) => r.name,
      rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
      now: () => Date.now(),
    });
    q.addRateLimited({ name: 'a' });
    q.addRateLimited({ name: 'a' });
    expect(q.numRequeues({ name: 'a' })).toBe(2);
    q.shutDown();
  });
});
