import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FixedDelayRateLimiter,
  LOW_PRIORITY,
  PriorityQueue,
  type GaugeMetric,
  type MetricsProvider,
} from '../../../src/runtime/workqueue/index.js';

/** Takes every ready item now, in the order the queue hands them out, marking each done. */
async function drain(q: PriorityQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    if (r.shutdown) break;
    out.push(r.item);
    q.done(r.item);
  }
  return out;
}

describe('PriorityQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const now = (): number => Date.now();

  it('hands out the highest priority first, and first in first out within a priority', async () => {
    const q = new PriorityQueue<string>({ now });
    q.add('low-1', LOW_PRIORITY);
    q.add('normal-1');
    q.add('low-2', LOW_PRIORITY);
    q.add('high', 10);
    q.add('normal-2', 0);
    expect(await drain(q)).toEqual(['high', 'normal-1', 'normal-2', 'low-1', 'low-2']);
  });

  it('hands out the priority an item was queued with', async () => {
    const q = new PriorityQueue<string>({ now });
    q.add('a', LOW_PRIORITY);
    expect(await q.get()).toEqual({ item: 'a', priority: LOW_PRIORITY, shutdown: false });
  });

  it('raises a queued item to the higher priority, at the end of that priority, and never lowers it', async () => {
    const q = new PriorityQueue<string>({ now });
    for (const k of ['a', 'b', 'c']) q.add(k, LOW_PRIORITY);
    q.add('x');
    q.add('b'); // an edit of b arrives: priority 0, behind x
    q.add('x', LOW_PRIORITY); // a lower priority does not move x down
    expect(q.len()).toBe(4);
    expect(await drain(q)).toEqual(['x', 'b', 'a', 'c']);
  });

  it('counts an item once however often it is added before it is handed out', async () => {
    const q = new PriorityQueue<string>({ now });
    q.add('a', LOW_PRIORITY);
    q.add('a');
    q.add('a', 5);
    expect(q.len()).toBe(1);
    expect(await drain(q)).toEqual(['a']);
    expect(q.len()).toBe(0);
  });

  it('hands out an item added while it is processed only once it is done', async () => {
    const q = new PriorityQueue<string>({ now });
    q.add('a');
    const first = await q.get();
    q.add('a', 3);
    expect(q.len()).toBe(0);
    q.add('b');
    expect(await q.get()).toMatchObject({ item: 'b' });
    q.done('b');
    const again = q.get();
    q.done(first.item!);
    expect(await again).toEqual({ item: 'a', priority: 3, shutdown: false });
  });

  it('waits out `after`, keeps the earlier deadline, and keeps an item ready that is ready already', () => {
    const q = new PriorityQueue<string>({ now });
    q.addAfter('a', 100);
    q.addAfter('a', 30);
    q.addAfter('a', 500);
    expect([q.len(), q.waitingLen()]).toEqual([0, 1]);
    vi.advanceTimersByTime(29);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect([q.len(), q.waitingLen()]).toEqual([1, 0]);
    q.addAfter('a', 1000); // ready: stays ready
    expect([q.len(), q.waitingLen()]).toEqual([1, 0]);
  });

  it('makes a waiting item ready at once when it is added without a delay', () => {
    const q = new PriorityQueue<string>({ now });
    q.addAfter('a', 1000, LOW_PRIORITY);
    q.add('a');
    expect([q.len(), q.waitingLen()]).toEqual([1, 0]);
  });

  it('hands out a waiting item, once due, by the priority it was added with', async () => {
    const q = new PriorityQueue<string>({ now });
    q.add('low', LOW_PRIORITY);
    q.addAfter('retry', 10, 1);
    vi.advanceTimersByTime(10);
    expect(await drain(q)).toEqual(['retry', 'low']);
  });

  it('waits as long as the rate limiter says, or `after` when that is shorter', () => {
    const q = new PriorityQueue<string>({ now, rateLimiter: new FixedDelayRateLimiter(50) });
    q.addRateLimited('a');
    q.addWithOpts('b', { rateLimited: true, after: 20 });
    q.addWithOpts('c', { rateLimited: true, after: 80 });
    vi.advanceTimersByTime(20);
    expect(q.len()).toBe(1);
    vi.advanceTimersByTime(30);
    expect(q.len()).toBe(3);
  });

  it('hands out what is ready after shutDown, then shutdown; adds after it are ignored', async () => {
    const q = new PriorityQueue<string>({ now });
    q.add('a');
    q.addAfter('later', 100);
    q.shutDown();
    q.add('b');
    expect(await q.get()).toMatchObject({ item: 'a', shutdown: false });
    expect(await q.get()).toMatchObject({ shutdown: true });
    expect(q.waitingLen()).toBe(0);
  });

  it('resolves a waiting get as soon as an item is added', async () => {
    vi.useRealTimers();
    const q = new PriorityQueue<string>();
    const pending = q.get();
    q.add('a', 2);
    expect(await pending).toEqual({ item: 'a', priority: 2, shutdown: false });
  });

  it('counts its depth per priority, moving an item whose priority was raised', async () => {
    const depth = new Map<string, number>();
    const gauge = (label: string): GaugeMetric => ({
      inc: () => depth.set(label, (depth.get(label) ?? 0) + 1),
      dec: () => depth.set(label, (depth.get(label) ?? 0) - 1),
    });
    const noop = { inc() {}, dec() {}, set() {}, observe() {} };
    const provider: MetricsProvider = {
      newDepthMetric: () => gauge(''),
      newDepthMetricWithPriority: (_name, priority) => gauge(String(priority)),
      newAddsMetric: () => noop,
      newLatencyMetric: () => noop,
      newWorkDurationMetric: () => noop,
      newUnfinishedWorkSecondsMetric: () => noop,
      newLongestRunningProcessorSecondsMetric: () => noop,
      newRetriesMetric: () => noop,
    };
    const q = new PriorityQueue<string>({ now, name: 'q', metricsProvider: provider });
    q.add('a', LOW_PRIORITY);
    q.add('b', LOW_PRIORITY);
    q.add('b');
    expect(Object.fromEntries(depth)).toEqual({ '-100': 1, '0': 1 });
    await drain(q);
    expect(Object.fromEntries(depth)).toEqual({ '-100': 0, '0': 0 });
    q.shutDown();
  });
});
