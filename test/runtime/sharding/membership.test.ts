import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/runtime/leaderelection/lease.js';
import {
  MemberObserver,
  PARTITIONS_ANNOTATION,
  formatPartitions,
  parsePartitions,
} from '../../../src/runtime/sharding/membership.js';
import { FakeClock } from '../../support/clock.js';

const lease = (name: string, rv: string, partitions: string, holder = name): Lease => ({
  metadata: { name, resourceVersion: rv, annotations: { [PARTITIONS_ANNOTATION]: partitions } },
  spec: { holderIdentity: holder, leaseDurationSeconds: 4 },
});

describe('MemberObserver', () => {
  it('counts a Lease live until it stays unchanged for its duration on the local clock', async () => {
    const clock = new FakeClock();
    const m = new MemberObserver(clock);
    m.observe([lease('a', '1', '0,1'), lease('b', '2', '2')]);
    expect(m.members().map((x) => x.live)).toEqual([true, true]);
    await clock.advance(3000);
    m.observe([lease('a', '3', '0,1'), lease('b', '2', '2')]);
    await clock.advance(1500);
    m.observe([lease('a', '3', '0,1'), lease('b', '2', '2')]);
    // b has not changed for 4.5 s (its duration is 4 s); a changed 1.5 s ago.
    expect(m.members().map((x) => [x.identity, x.live])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(m.heldByOther(2, 'a')).toBe(false);
    expect(m.heldByOther(1, 'b')).toBe(true);
    expect(m.heldByOther(1, 'a')).toBe(false);
    expect(m.unchangedFor('b')).toBe(4500);
  });

  it('does not count a released Lease (no holder) as a member', () => {
    const m = new MemberObserver(new FakeClock());
    m.observe([lease('a', '1', '', '')]);
    expect(m.members()[0]!.live).toBe(false);
  });
});

describe('the partitions annotation', () => {
  it('round-trips, ignoring what is not a partition number', () => {
    expect(formatPartitions([7, 0, 3])).toBe('0,3,7');
    expect([...parsePartitions('0,3, 7')]).toEqual([0, 3, 7]);
    expect([...parsePartitions('x,-1,2.5,,4')]).toEqual([4]);
    expect([...parsePartitions(undefined)]).toEqual([]);
  });
});
