import { describe, expect, it } from 'vitest';
import { HASH_SPACE, fnv1a64, hexBound, partitionOfHash, partitionRanges } from '../../../src/runtime/sharding/hash.js';
import { inRanges, shardSelector } from '../../../src/runtime/sharding/selector.js';

describe('the shard hash', () => {
  it('is 64-bit FNV-1a of the UTF-8 bytes, as the API server hashes', () => {
    expect(fnv1a64('').toString(16)).toBe('cbf29ce484222325');
    expect(fnv1a64('a').toString(16)).toBe('af63dc4c8601ec8c');
    // The namespace "p1" as kube-apiserver 1.37 placed it (shardRange over object.metadata.namespace).
    expect(fnv1a64('p1').toString(16).padStart(16, '0')).toBe('08d59707b575eaba');
    expect(fnv1a64('é')).toBe(fnv1a64('\u00e9'));
  });

  it('equals the plain BigInt FNV-1a on random ASCII and non-ASCII strings', () => {
    const reference = (value: string): bigint => {
      let h = 0xcbf29ce484222325n;
      for (const b of Buffer.from(value, 'utf8')) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h;
    };
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 2000; i++) {
      const chars = Array.from({ length: next(40) }, () =>
        String.fromCodePoint(next(4) === 0 ? 0x80 + next(0x2000) : 0x20 + next(0x5f)),
      );
      const s = chars.join('');
      expect(fnv1a64(s), JSON.stringify(s)).toBe(reference(s));
    }
  });

  it('writes bounds as 0x and 16 hex digits, 2^64 as 0x10000000000000000', () => {
    expect(hexBound(0n)).toBe('0x0000000000000000');
    expect(hexBound(HASH_SPACE / 2n)).toBe('0x8000000000000000');
    expect(hexBound(HASH_SPACE)).toBe('0x10000000000000000');
  });

  it('cuts the space into contiguous partitions that cover it, and places hashes in them', () => {
    for (const n of [1, 3, 7, 12]) {
      const ranges = partitionRanges(n);
      expect(ranges[0]!.start).toBe(0n);
      expect(ranges.at(-1)!.end).toBe(HASH_SPACE);
      for (let i = 1; i < n; i++) expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
      for (const [i, r] of ranges.entries()) {
        expect(partitionOfHash(r.start, n)).toBe(i);
        expect(partitionOfHash(r.end - 1n, n)).toBe(i);
      }
    }
  });
});

describe('shardSelector', () => {
  it('is the syntax kube-apiserver parses: shardRange(path, quoted bounds) joined by ||', () => {
    const [a, , c] = partitionRanges(4);
    expect(shardSelector('uid', [a!, c!])).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || " +
        "shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
    );
    expect(shardSelector('namespace', [partitionRanges(1)[0]!])).toBe(
      "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')",
    );
  });

  it('matches on the client side exactly the objects whose hash falls in a range', () => {
    const ranges = partitionRanges(2);
    const obj = (uid: string) => ({ metadata: { uid, namespace: 'p1' } });
    // 'p1' hashes below 2^63, so by namespace the object is in the first half.
    expect(inRanges(obj('x'), 'namespace', [ranges[0]!])).toBe(true);
    expect(inRanges(obj('x'), 'namespace', [ranges[1]!])).toBe(false);
    const uid = 'f4c4a5a8-3c1e-4d5e-9a0b-1d2e3f405162';
    const half = fnv1a64(uid) < HASH_SPACE / 2n ? 0 : 1;
    expect(inRanges(obj(uid), 'uid', [ranges[half]!])).toBe(true);
    expect(inRanges(obj(uid), 'uid', [ranges[1 - half]!])).toBe(false);
  });
});
