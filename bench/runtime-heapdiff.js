#!/usr/bin/env node
// Compares two V8 heap snapshots (e.g. from HEAP_SNAPSHOTS=<dir> node bench/runtime-reconcile.js): live objects grouped
// by constructor (strings, arrays, closures and code by kind), and the groups that grew most between them.
// A diagnostic for the churn run's heap slope, not a benchmark.
// Usage: node bench/runtime-heapdiff.js before.heapsnapshot after.heapsnapshot [TOP=25]
import { readFileSync } from 'node:fs';

const [a, b] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: node bench/runtime-heapdiff.js before.heapsnapshot after.heapsnapshot');
const TOP = Number(process.env.TOP ?? 25);

/** Group name → {count, bytes} over the snapshot's nodes (self sizes). */
function groups(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    const name = snap.strings[snap.nodes[i + iName]];
    const size = snap.nodes[i + iSize];
    total += size;
    let key;
    if (type === 'object' || type === 'native') key = `${type === 'native' ? 'native ' : ''}${name}`;
    else if (type === 'closure') key = `(closure ${name || 'anonymous'})`;
    else key = `(${type})`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += size;
    out.set(key, g);
  }
  return { out, total };
}

const before = groups(a);
const after = groups(b);
const rows = [];
for (const key of new Set([...before.out.keys(), ...after.out.keys()])) {
  const x = before.out.get(key) ?? { count: 0, bytes: 0 };
  const y = after.out.get(key) ?? { count: 0, bytes: 0 };
  rows.push({ key, dCount: y.count - x.count, dBytes: y.bytes - x.bytes, count: y.count, bytes: y.bytes });
}
rows.sort((p, q) => q.dBytes - p.dBytes);
console.log(
  `total self size: ${(before.total / 1048576).toFixed(2)} MiB → ${(after.total / 1048576).toFixed(2)} MiB (${((after.total - before.total) / 1024).toFixed(0)} KiB)`,
);
console.log(
  `${'group'.padEnd(60)} ${'Δ count'.padStart(9)} ${'Δ KiB'.padStart(9)} ${'count'.padStart(9)} ${'KiB'.padStart(9)}`,
);
for (const r of rows.slice(0, TOP)) {
  console.log(
    `${r.key.slice(0, 60).padEnd(60)} ${String(r.dCount).padStart(9)} ${(r.dBytes / 1024).toFixed(1).padStart(9)} ${String(r.count).padStart(9)} ${(r.bytes / 1024).toFixed(1).padStart(9)}`,
  );
}
