/**
 * The hash space of server-side sharding (KEP-5866): the 64-bit FNV-1a hash of a field's UTF-8 bytes, split into
 * ranges written as 0x-prefixed, 16-digit lowercase hex (the end of the last range is 0x10000000000000000, 2^64).
 */

const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;
/** 2^64: the exclusive end of the hash space. */
export const HASH_SPACE = 1n << 64n;

/** FNV-1a, 64 bits, of `value`'s UTF-8 bytes: the API server's sharding.HashField. */
export function fnv1a64(value: string): bigint {
  // Two 32-bit halves in plain numbers would be faster; BigInt keeps this obviously equal to the Go code, and a
  // replica hashes each object once per event at most.
  let h = OFFSET;
  for (const b of Buffer.from(value, 'utf8')) {
    h ^= BigInt(b);
    h = (h * PRIME) & MASK;
  }
  return h;
}

/** A bound as the API server wants it: '0x' and 16 hex digits, or 0x10000000000000000 for 2^64. */
export function hexBound(n: bigint): string {
  return `0x${n.toString(16).padStart(16, '0')}`;
}

/** One partition of the hash space: [start, end). */
export interface HashRange {
  /** The first hash in it. */
  readonly start: bigint;
  /** The first hash past it. */
  readonly end: bigint;
}

/** The hash space cut into `count` equal partitions (the last takes the remainder), as ranges. */
export function partitionRanges(count: number): HashRange[] {
  const span = HASH_SPACE / BigInt(count);
  return Array.from({ length: count }, (_, i) => ({
    start: span * BigInt(i),
    end: i === count - 1 ? HASH_SPACE : span * BigInt(i + 1),
  }));
}

/** The partition (of `count` equal ones) that `hash` falls in. */
export function partitionOfHash(hash: bigint, count: number): number {
  const span = HASH_SPACE / BigInt(count);
  return Math.min(count - 1, Number(hash / span));
}
