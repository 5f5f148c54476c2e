import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DelayingQueue } from '../../../src/runtime/workqueue/index.js';

describe('DelayingQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const fakeNow = (): number => Date.now();

  it('adds an item only once its delay has passed', () => {
    const q = new DelayingQueue<string>({ now: fakeNow });
    q.addAfter('a', 50);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(49);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
  });

  it('adds at once for a zero or negative delay', () => {
    const q = new DelayingQueue<string>({ now: fakeNow });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
  });

  it('keeps the earlier deadline when the same item is parked twice', () => {
    const q = new DelayingQueue<string>({ now: fakeNow });
    q.addAfter('a', 100);
    q.addAfter('a', 10);
    q.addAfter('a', 500);
    expect(q.waitingLen()).toBe(1);
    vi.advanceTimersByTime(10);
    expect(q.len()).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(q.len()).toBe(1);
  });

  it('releases items in deadline order', async () => {
    const q = new DelayingQueue<string>({ now: fakeNow });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    vi.advanceTimersByTime(30);
    const got: string[] = [];
    for (let i = 0; i < 3; i++) got.push((await q.get()).item!);
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('clears its timer and parked items on shutdown', () => {
    const q = new DelayingQueue<string>({ now: fakeNow });
    q.addAfter('a', 10);
    q.shutDown();
    expect(vi.getTimerCount()).toBe(0);
    q.addAfter('b', 10);
    vi.advanceTimersByTime(100);
    expect(q.len()).toBe(0);
    expect(q.waitingLen()).toBe(0);
  });
});
