#!/usr/bin/env node
// How much of the hash space moves when a replica joins or leaves a shard ring: the runtime's assignment (rendezvous
// hashing with bounded loads over PARTITIONS equal ranges, default 12; ManagerOptions.sharding.partitions) against
// equal contiguous ranges (replica i of N owns [i/N, (i+1)/N) of the space), and the least any balanced scheme must
// move (the newcomer's share on a join, the leaver's on a leave). Averaged over TRIALS random identity sets (default
// 200). No cluster needed.
// Usage: npm run build && node bench/sharding-ring.js
import { randomUUID } from 'node:crypto';
import { importRuntime, printTable } from './runtime-lib.js';

const PARTITIONS = Number(process.env.PARTITIONS ?? 12);
const TRIALS = Number(process.env.TRIALS ?? 200);
const { assignPartitions } = await importRuntime('manager');

/** The owner of each of `slots` equal slices of the space under equal contiguous ranges. */
const contiguous = (members, slots) => {
  const sorted = [...members].sort();
  return Array.from({ length: slots }, (_, s) => sorted[Math.floor((s * sorted.length) / slots)]);
};
/** The fraction of slices whose owner differs. */
const moved = (a, b) => a.filter((m, i) => b[i] !== m).length / a.length;
const identity = () => `manager-7d9f8c-${randomUUID().slice(0, 5)}_${randomUUID()}`;

const rows = [];
for (let n = 1; n <= 6; n++) {
  const acc = { joinOurs: 0, joinEqual: 0, leaveOurs: 0, leaveEqual: 0, maxLoad: 0 };
  for (let t = 0; t < TRIALS; t++) {
    const ms = Array.from({ length: n + 1 }, identity);
    const before = ms.slice(0, n);
    acc.joinOurs += moved(assignPartitions(before, PARTITIONS), assignPartitions(ms, PARTITIONS));
    acc.joinEqual += moved(contiguous(before, 3600), contiguous(ms, 3600));
    // One of the n+1 leaves (a random one: identities are random).
    const after = ms.slice(1);
    acc.leaveOurs += moved(assignPartitions(ms, PARTITIONS), assignPartitions(after, PARTITIONS));
    acc.leaveEqual += moved(contiguous(ms, 3600), contiguous(after, 3600));
    const owner = assignPartitions(ms, PARTITIONS);
    acc.maxLoad = Math.max(acc.maxLoad, ...ms.map((m) => owner.filter((o) => o === m).length / PARTITIONS));
  }
  const pct = (x) => `${((100 * x) / TRIALS).toFixed(1)}%`;
  rows.push([
    `${n} → ${n + 1}`,
    `${(100 / (n + 1)).toFixed(1)}%`,
    pct(acc.joinOurs),
    pct(acc.joinEqual),
    `${n + 1} → ${n}`,
    `${(100 / (n + 1)).toFixed(1)}%`,
    pct(acc.leaveOurs),
    pct(acc.leaveEqual),
    `${(100 * acc.maxLoad).toFixed(1)}%`,
  ]);
}
console.log(`${PARTITIONS} partitions, ${TRIALS} random identity sets per row; moved = share of the hash space`);
printTable(
  ['join', 'least', 'ours', 'equal ranges', 'leave', 'least', 'ours', 'equal ranges', `ours: largest share (N+1)`],
  rows,
);
