import { fnv1a64 } from './hash.js';

/**
 * Which member owns each partition: rendezvous hashing with bounded loads. Each partition ranks the members by a
 * hash of (member, partition); members take partitions in rounds of that ranking, none more than ceil(P/N). Every
 * replica computes the same answer from the same member set. A join moves only the partitions the newcomer needs to
 * reach its share, and a leave moves only the leaver's (bench/sharding-ring.js measures both against equal
 * contiguous ranges, which move about half the space on each change).
 * @returns the owner of each partition, indexed by partition; empty when there are no members.
 */
export function assignPartitions(members: readonly string[], partitions: number): string[] {
  const sorted = [...new Set(members)].sort();
  if (sorted.length === 0) return [];
  const floor = Math.floor(partitions / sorted.length);
  // Every (member, partition) pair, best first; a pair is taken while its partition is free and its member has room.
  const pairs = sorted.flatMap((m) =>
    Array.from({ length: partitions }, (_, p) => ({ m, p, score: fnv1a64(`${m}/${p}`) })),
  );
  pairs.sort((a, b) =>
    a.score !== b.score ? (a.score > b.score ? -1 : 1) : a.m < b.m ? -1 : a.m > b.m ? 1 : a.p - b.p,
  );
  const owner: string[] = new Array<string>(partitions).fill('');
  const load = new Map<string, number>(sorted.map((m) => [m, 0]));
  // First everyone up to floor(P/N), then the remainder, one more each, so loads differ by at most one.
  for (const cap of [floor, floor + 1]) {
    for (const { m, p } of pairs) {
      if (owner[p] !== '' || load.get(m)! >= cap) continue;
      owner[p] = m;
      load.set(m, load.get(m)! + 1);
    }
  }
  return owner;
}

/** The partitions `member` owns under assignPartitions. */
export function partitionsOf(members: readonly string[], partitions: number, member: string): number[] {
  const owner = assignPartitions(members, partitions);
  return owner.flatMap((m, p) => (m === member ? [p] : []));
}
