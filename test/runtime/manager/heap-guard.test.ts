import { describe, expect, it } from 'vitest';
import { HeapLimitError, isHeapLimitError } from '../../../src/runtime/errors.js';
import { gcPressure, watchHeap } from '../../../src/runtime/manager/heap-guard.js';

describe('watchHeap', () => {
  it('tells once, with the size reached, what is cached and the limit to raise, when the share is reached', () => {
    let used = 70;
    const told: HeapLimitError[] = [];
    const guard = watchHeap({
      fraction: 0.75,
      describe: () => '3 objects cached (ConfigMap v1 3)',
      onExceeded: (err) => told.push(err),
      heapUse: () => ({ used: used * 1024 * 1024, limit: 96 * 1024 * 1024 }),
    });
    try {
      guard.check();
      expect(told).toEqual([]);
      used = 72;
      guard.check();
      used = 90;
      guard.check();
      expect(told).toHaveLength(1);
      expect(isHeapLimitError(told[0])).toBe(true);
      expect(told[0]!.message).toBe(
        "the heap is full: 72 MiB of its 96 MiB limit still in use after a full garbage collection, with 3 objects cached (ConfigMap v1 3); raise the memory limit of the manager's container (the scaffolded manifest gives the heap 70% of it, with --max-old-space-size-percentage=70), or cache less (cache.byObject selectors, metadata-only watches, or sharding across replicas)",
      );
    } finally {
      guard.stop();
    }
  });

  it('counts a full collection as under pressure only when it follows another within a second and paused the program for a large share of the time between', () => {
    const pressed = gcPressure();
    // The first full collection has none before it.
    expect(pressed(0, 100)).toBe(false);
    // Within a second, but a pause of 20 of the 520 ms since the last one ended: a busy heap, not one under pressure
    // (a first pass holding its queue beside the cache).
    expect(pressed(600, 20)).toBe(false);
    // Within a second, and a pause of 300 of the 780 ms since.
    expect(pressed(1100, 300)).toBe(true);
    // A long pause, but more than a second after the one before.
    expect(pressed(2500, 900)).toBe(false);
  });
});
