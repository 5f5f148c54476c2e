import { crypto } from '../internal/builtins.js';

const { createHash } = crypto;

/** A well-mixed 64-bit score (FNV-1a over similar strings such as 'pod-a/1', 'pod-a/2' ranks too alike). */
function score(s: string): bigint {
  return createHash('sha256').update(s).digest().readBigUInt64BE(0);
}

/**
 * Which member owns each partition: rendezvous hashing with bounded loads. Every (member, partition) pair gets a
 * score; pairs are taken best first while the partition is free and the member below its share (floor(P/N), one
 * more for the P mod N members whose own score is highest), so loads differ by at most one. Every replica computes
 * the same answer from the same member set. Compared with equal contiguous ranges it moves less of the space when a
 * member joins or leaves, though more than the least possible (bench/sharding-ring.js measures both).
 * @returns the owner of each partition, indexed by partition; empty when there are no members.
 */
export function assignPartitions(members: readonly string[], partitions: number): string[] {
  const sorted = [...new Set(members)].sort();
  if (sorted.length === 0) return [];
  const floor = Math.floor(partitions / sorted.length);
  const extra = partitions % sorted.length;
  const share = new Map(
    sorted
      .map((m) => ({ m, s: score(m) }))
      .sort((a, b) => (a.s === b.s ? (a.m < b.m ? -1 : 1) : a.s > b.s ? -1 : 1))
      .map(({ m }, i) => [m, floor + (i < extra ? 1 : 0)]),
  );
  const pairs = sorted.flatMap((m) => Array.from({ length: partitions }, (_, p) => ({ m, p, s: score(`${m}/${p}`) })));
  pairs.sort((a, b) => (a.s !== b.s ? (a.s > b.s ? -1 : 1) : a.m < b.m ? -1 : a.m > b.m ? 1 : a.p - b.p));
  const owner: string[] = new Array<string>(partitions).fill('');
  const load = new Map<string, number>(sorted.map((m) => [m, 0]));
  for (const { m, p } of pairs) {
    if (owner[p] !== '' || load.get(m)! >= share.get(m)!) continue;
    owner[p] = m;
    load.set(m, load.get(m)! + 1);
  }
  return owner;
}

/** The partitions `member` owns under assignPartitions. */
export function partitionsOf(members: readonly string[], partitions: number, member: string): number[] {
  const owner = assignPartitions(members, partitions);
  return owner.flatMap((m, p) => (m === member ? [p] : []));
}
