import { describe, expect, it, vi } from 'vitest';
import {
  RateLimitingQueue,
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
  type MetricsProvider,
} from '../../../src/runtime/workqueue/index.js';

function recordingProvider() {
  const values = {
    depth: 0,
    adds: 0,
    retries: 0,
    latency: [] as number[],
    work: [] as number[],
    unfinished: 0,
    longest: 0,
  };
  const provider: MetricsProvider = {
    newDepthMetric: () => ({ inc: () => void values.depth++, dec: () => void values.depth-- }),
    newAddsMetric: () => ({ inc: () => void values.adds++ }),
    newLatencyMetric: () => ({ observe: (s) => void values.latency.push(s) }),
    newWorkDurationMetric: () => ({ observe: (s) => void values.work.push(s) }),
    newUnfinishedWorkSecondsMetric: () => ({ set: (v) => void (values.unfinished = v) }),
    newLongestRunningProcessorSecondsMetric: () => ({ set: (v) => void (values.longest = v) }),
    newRetriesMetric: () => ({ inc: () => void values.retries++ }),
  };
  return { values, provider };
}

describe('queue metrics', () => {
  it('counts adds, depth, latency, work duration and retries as client-go does', async () => {
    let now = 0;
    const { values, provider } = recordingProvider();
    const q = new RateLimitingQueue<string>({ name: 'test', metricsProvider: provider, now: () => now });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(values.adds).toBe(2);
    expect(values.depth).toBe(2);
    now = 1500;
    await q.get();
    expect(values.depth).toBe(1);
    expect(values.latency).toEqual([1.5]);
    now = 2000;
    q.done('a');
    expect(values.work).toEqual([0.5]);
    q.addRateLimited('c');
    expect(values.retries).toBe(1);
    q.shutDown();
  });

  it('brings unfinished work back to 0 when work handed out before shutdown is done after it', async () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const { values, provider } = recordingProvider();
      const q = new RateLimitingQueue<string>({ name: 'test', metricsProvider: provider, now: () => now });
      q.add('a');
      await q.get();
      now = 5000;
      vi.advanceTimersByTime(UNFINISHED_WORK_UPDATE_PERIOD_MS);
      expect([values.unfinished, values.longest]).toEqual([5, 5]);
      q.shutDown();
      q.done('a');
      expect([values.unfinished, values.longest]).toEqual([0, 0]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('records nothing without a name', () => {
    const { values, provider } = recordingProvider();
    const q = new RateLimitingQueue<string>({ metricsProvider: provider });
    q.add('a');
    expect(values.adds).toBe(0);
    q.shutDown();
  });
});
