import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/runtime/leaderelection/lease.js';
import {
  EXPIRED_ANNOTATION,
  MemberObserver,
  PARTITIONS_ANNOTATION,
  formatPartitions,
  parseExpired,
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

  it("takes another member's verdict on a Lease while the Lease stays at the version the verdict names", async () => {
    const clock = new FakeClock();
    const m = new MemberObserver(clock);
    const judge = (expired: string): Lease => {
      const l = lease('a', '5', '0');
      l.metadata!.annotations![EXPIRED_ANNOTATION] = expired;
      return l;
    };
    // Just joined: by its own clock c is live for 4 s more; a found c expired at version 3.
    m.observe([judge('c@3'), lease('c', '3', '1,2')]);
    expect(m.members().map((x) => [x.identity, x.live])).toEqual([
      ['a', true],
      ['c', false],
    ]);
    expect(m.heldByOther(1, 'me')).toBe(false);
    expect(m.expired('me')).toEqual(['c@3']);
    // c renewed since: the verdict no longer applies.
    m.observe([judge('c@3'), lease('c', '7', '1,2')]);
    expect(m.members().map((x) => x.live)).toEqual([true, true]);
    expect(m.expired('me')).toEqual([]);
  });

  it("starts a version's duration when a watch delivers it, and says when the next member expires", async () => {
    const clock = new FakeClock();
    const m = new MemberObserver(clock);
    m.observe([lease('a', '1', '0'), lease('b', '2', '1')]);
    expect(m.nextExpiry('a')).toBe(4000);
    await clock.advance(1000);
    m.note(lease('b', '3', '1'));
    await clock.advance(500);
    // The list shows the version the watch delivered 500 ms ago: its duration runs from then.
    m.observe([lease('a', '1', '0'), lease('b', '3', '1')]);
    expect(m.unchangedFor('b')).toBe(500);
    expect(m.nextExpiry('a')).toBe(5000);
    expect(m.nextExpiry('b')).toBe(4000);
  });

  it('does not count a released Lease (no holder) as a member', () => {
    const m = new MemberObserver(new FakeClock());
    m.observe([lease('a', '1', '', '')]);
    expect(m.members()[0]!.live).toBe(false);
  });
});

describe('the expired annotation', () => {
  it('reads lease@version entries and ignores the rest', () => {
    expect(parseExpired('a@1, b@22,c,@3,d@,e@1@2')).toEqual(['a@1', 'b@22']);
    expect(parseExpired(undefined)).toEqual([]);
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
