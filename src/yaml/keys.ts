/**
 * Mapping keys in gopkg.in/yaml.v2's order (sorter.go, keyList.Less), which is what controller-gen and kustomize
 * print: letters by code point, non-letters before letters, runs of digits by their value.
 */

/** yaml.v2's keyList.Less for two string keys, as a sort comparator. */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  if (isPlainAsciiKey(a) && isPlainAsciiKey(b)) return a < b ? -1 : 1;
  return keyLess(a, b) ? -1 : 1;
}

/** Sorts `keys` in place into yaml.v2's order. */
export function sortYamlKeys(keys: string[]): string[] {
  // Most manifest keys take the fast path: plain code unit order is yaml.v2's order for them.
  return keys.every(isPlainAsciiKey) ? keys.sort() : keys.sort(compareYamlKeys);
}

// Keys of ASCII letters and '-', '.', '/' (all below 'A', so "non-letters first" holds) and no digits compare by
// code unit exactly as keyList.Less compares them.
const isPlainAsciiKey = (k: string): boolean => /^[A-Za-z\-./]*$/.test(k);

const isLetter = (ch: string): boolean => /^\p{L}$/u.test(ch);
const isDigit = (ch: string): boolean => /^\p{Nd}$/u.test(ch);

function keyLess(aStr: string, bStr: string): boolean {
  const ar = [...aStr];
  const br = [...bStr];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const a = ar[i] as string;
    const b = br[i] as string;
    if (a === b) continue;
    const al = isLetter(a);
    const bl = isLetter(b);
    // Go compares runes: code points, not UTF-16 code units (they differ beyond the BMP).
    if (al && bl) return a.codePointAt(0)! < b.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (a === '0' || b === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = goDigitStep(an, ar[ai] as string);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = goDigitStep(bn, br[bi] as string);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return a.codePointAt(0)! < b.codePointAt(0)!;
  }
  return ar.length < br.length;
}

/** Go's `n = n*10 + int64(r-'0')`: int64 arithmetic that wraps on long runs, and r-'0' for any Unicode digit. */
const goDigitStep = (n: bigint, digit: string): bigint =>
  BigInt.asIntN(64, n * 10n + BigInt(digit.codePointAt(0)! - 48));
