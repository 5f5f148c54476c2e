import { describe, expect, it } from 'vitest';
import {
  FixedDelayRateLimiter,
  PartitionedQueue,
  type MetricsProvider,
  type PartitionedQueueOptions,
} from '../../../src/runtime/workqueue/index.js';

// Items are "<partition>:<name>"; partitionOf reads the partition from them.
function newQueue(over: Partial<PartitionedQueueOptions<string>> = {}) {
  const dropped: string[] = [];
  const q = new PartitionedQueue<string>({
    partitionOf: (item) => (item.includes(':') ? Number(item.split(':')[0]) : undefined),
    keyOf: (item) => item,
    onDrop: (item) => dropped.push(item),
    ...over,
  });
  return { q, dropped };
}

async function take(q: PartitionedQueue<string>): Promise<string> {
  const r = await q.get();
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.item;
}

/** Whether get() resolves before the microtasks queued so far have run (it would not when nothing is queued). */
async function resolvesNow(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('PartitionedQueue', () => {
  it('queues an item in its open partition and drops one of a partition not open, or of none', async () => {
    const { q, dropped } = newQueue();
    q.open(0);
    q.add('0:a');
    q.add('1:b');
    q.add('orphan');
    expect(q.len()).toBe(1);
    expect(dropped).toEqual(['1:b', 'orphan']);
    expect(await take(q)).toBe('0:a');
  });

  it('hands items out from the open partitions in turn, so a busy partition does not starve the others', async () => {
    const { q } = newQueue();
    q.open(0);
    q.open(1);
    q.open(2);
    for (const item of ['0:a', '0:b', '0:c', '1:a', '2:a', '2:b']) q.add(item);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) order.push(await take(q));
    expect(order).toEqual(['0:a', '1:a', '2:a', '0:b', '2:b', '0:c']);
  });

  it('on close, drops what is queued and what waits for its delay, and refuses later adds to it', async () => {
    const depth = new Map<string, number>();
    const gauge = (name: string) => ({
      inc: () => void depth.set(name, (depth.get(name) ?? 0) + 1),
      dec: () => void depth.set(name, (depth.get(name) ?? 0) - 1),
    });
    const noop = { inc: () => {}, observe: () => {}, set: () => {} };
    const provider: MetricsProvider = {
      newDepthMetric: gauge,
      newAddsMetric: () => noop,
      newLatencyMetric: () => noop,
      newWorkDurationMetric: () => noop,
      newUnfinishedWorkSecondsMetric: () => noop,
      newLongestRunningProcessorSecondsMetric: () => noop,
      newRetriesMetric: () => noop,
    };
    const { q, dropped } = newQueue({ name: 'ctrl', metricsProvider: provider });
    q.open(3);
    q.add('3:a');
    q.add('3:b');
    q.addAfter('3:c', 60_000);
    expect(depth.get('ctrl-partition-3')).toBe(2);
    q.close(3);
    expect(q.len()).toBe(0);
    expect(q.openPartitions()).toEqual([]);
    await Promise.resolve();
    expect(depth.get('ctrl-partition-3')).toBe(0);
    q.add('3:d');
    expect(dropped).toEqual(['3:d']);
    // Reopened, it starts empty: neither the queued items nor the delayed one come back.
    q.open(3);
    expect(await resolvesNow(q.get())).toBe(false);
  });

  it('keeps an item handed out with its partition: re-added while processing, it comes back once done', async () => {
    const { q } = newQueue();
    q.open(0);
    q.add('0:a');
    expect(await take(q)).toBe('0:a');
    q.add('0:a');
    expect(q.len()).toBe(0);
    const next = q.get();
    expect(await resolvesNow(next)).toBe(false);
    q.done('0:a');
    const r = await next;
    expect(r.item).toBe('0:a');
  });

  it('lets an item handed out before its partition closed be marked done, and drops its re-adds', async () => {
    const { q, dropped } = newQueue();
    q.open(0);
    q.add('0:a');
    expect(await take(q)).toBe('0:a');
    q.close(0);
    q.addRateLimited('0:a');
    expect(() => q.done('0:a')).not.toThrow();
    expect(dropped).toEqual(['0:a']);
    expect(q.len()).toBe(0);
  });

  it('gives each partition its own rate limiter, made when it opens', async () => {
    const made: number[] = [];
    let n = 0;
    const { q } = newQueue({
      newRateLimiter: () => {
        made.push(n++);
        return new FixedDelayRateLimiter(0);
      },
    });
    q.open(0);
    q.open(1);
    q.open(0);
    expect(made).toEqual([0, 1]);
    q.close(0);
    q.open(0);
    expect(made).toEqual([0, 1, 2]);
  });

  it('wakes a waiting worker when an item arrives, and ends idle ones at shutdown', async () => {
    const { q } = newQueue();
    q.open(5);
    const first = q.get();
    const second = q.get();
    q.add('5:x');
    expect((await first).item).toBe('5:x');
    q.shutDown();
    expect((await second).shutdown).toBe(true);
    q.add('5:y');
    expect(q.len()).toBe(0);
  });
});
