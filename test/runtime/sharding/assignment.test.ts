import { describe, expect, it } from 'vitest';
import { assignPartitions, partitionsOf } from '../../../src/runtime/sharding/assignment.js';

const members = (n: number): string[] => Array.from({ length: n }, (_, i) => `replica-${i}_${(i * 7919).toString(16)}`);

describe('assignPartitions', () => {
  it('gives every partition one owner, loads differing by at most one', () => {
    for (let n = 1; n <= 8; n++) {
      for (const p of [1, 12, 16, 64]) {
        const owner = assignPartitions(members(n), p);
        expect(owner).toHaveLength(p);
        expect(owner.every((m) => members(n).includes(m))).toBe(true);
        const loads = members(n).map((m) => owner.filter((o) => o === m).length);
        expect(Math.max(...loads) - Math.min(...loads), `${n} members, ${p} partitions`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('is the same whatever order the members are listed in, and has no owner without members', () => {
    const ms = members(5);
    expect(assignPartitions([...ms].reverse(), 12)).toEqual(assignPartitions(ms, 12));
    expect(assignPartitions([ms[2]!, ms[2]!, ...ms], 12)).toEqual(assignPartitions(ms, 12));
    expect(assignPartitions([], 12)).toEqual([]);
  });

  it('lists one member partitions', () => {
    const ms = members(3);
    const all = ms.flatMap((m) => partitionsOf(ms, 12, m));
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});
