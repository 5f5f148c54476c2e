/**
 * YAML output shaped like controller-gen's (JSON -> gopkg.in/yaml.v2): every map's keys sorted in yaml.v2's
 * order, sequences at their key's indent, multi-line strings as `|-` blocks, long lines folded near 80 columns,
 * each document preceded by `---`.
 */
import { stringify } from 'yaml';

/** yaml.v2's key order (keyList.Less): letters by code point, digit runs by value, non-letters before letters. */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  return yamlKeyLess(a, b) ? -1 : 1;
}

const isLetter = (ch: string): boolean => /^\p{L}$/u.test(ch);
const isDigit = (ch: string): boolean => /^\p{Nd}$/u.test(ch);

function yamlKeyLess(aStr: string, bStr: string): boolean {
  const ar = [...aStr];
  const br = [...bStr];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const a = ar[i] as string;
    const b = br[i] as string;
    if (a === b) continue;
    const al = isLetter(a);
    const bl = isLetter(b);
    if (al && bl) return a < b;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (a === '0' || b === '0') {
      for (let k = i - 1; k >= 0 && isDigit(ar[k] as string); k--) {
        if (ar[k] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = an * 10 + Number(ar[ai]);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return a < b;
  }
  return ar.length < br.length;
}

/** One YAML document body (without the leading `---`). */
export function toYamlDocument(value: unknown): string {
  return stringify(value, {
    indent: 2,
    indentSeq: false,
    lineWidth: 80,
    minContentWidth: 20,
    singleQuote: true,
    blockQuote: 'literal',
    sortMapEntries: (a, b) => compareYamlKeys(String(a.key), String(b.key)),
  });
}

/** A manifest file: optional header, then each object as `---` + document. */
export function toYamlFile(objects: readonly unknown[], header = ''): string {
  return header + objects.map((o) => `---\n${toYamlDocument(o)}`).join('');
}
