/**
 * The hash space of server-side sharding (KEP-5866): the 64-bit FNV-1a hash of a field's UTF-8 bytes, split into
 * ranges written as 0x-prefixed, 16-digit lowercase hex (the end of the last range is 0x10000000000000000, 2^64).
 */

/** 2^64: the exclusive end of the hash space. */
export const HASH_SPACE = 1n << 64n;

const TWO_32 = 4294967296;

/** FNV-1a, 64 bits, of `value`'s UTF-8 bytes: the API server's sharding.HashField. */
export function fnv1a64(value: string): bigint {
  // Every list item and watch event of a sharded kind is hashed, so this avoids BigInt arithmetic: the state is two
  // 32-bit halves, and multiplying by the prime 2^40 + 0x1b3 is (h * 0x1b3) + (low half << 40). Uids are ASCII; any
  // other character goes through the UTF-8 encoder.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const step = (b: number): void => {
    lo ^= b;
    const low = (lo >>> 0) * 0x1b3;
    hi = (Math.imul(hi, 0x1b3) + ((lo << 8) >>> 0) + Math.floor(low / TWO_32)) >>> 0;
    lo = low >>> 0;
  };
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) for (let i = 0; i < value.length; i++) step(value.charCodeAt(i));
  else for (const b of Buffer.from(value, 'utf8')) step(b);
  return (BigInt(hi) << 32n) | BigInt(lo >>> 0);
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
