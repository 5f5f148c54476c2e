/**
 * The cases where controller-gen's and kustomize's writers used to disagree (or both missed gopkg.in/yaml.v2), each
 * with what yaml.v2 v2.4.0 printed for the same JSON. test/crd/parity.test.ts runs the real yaml.v2 on more cases.
 */
import { describe, expect, it } from 'vitest';
import { compareYamlKeys, toYamlDocument, toYamlFile } from '../../src/yaml/index.js';

describe('strings yaml.v2 quotes', () => {
  it('leaves "<<" plain: yaml.v2 only looks up words whose first character could start one, and "<" cannot', () => {
    expect(toYamlDocument({ '<<': '<<' })).toBe('<<: <<\n');
  });

  it('quotes numbers as strconv reads them once underscores are dropped, and not what Go would reject', () => {
    const doc = {
      a: '10_',
      b: '1_000.5',
      c: '.5_0',
      d: '1e400',
      e: '0xFFFFFFFFFFFFFFFFFFFF',
      f: '0x7FFFFFFFFFFFFFFF',
      g: '08',
      h: '0o8',
    };
    expect(toYamlDocument(doc)).toBe(
      'a: "10_"\nb: "1_000.5"\nc: ".5_0"\nd: 1e400\ne: 0xFFFFFFFFFFFFFFFFFFFF\nf: "0x7FFFFFFFFFFFFFFF"\ng: "08"\nh: 0o8\n',
    );
  });

  it('quotes timestamps only in the layouts and ranges Go time.Parse accepts', () => {
    const doc = {
      a: '2024-01-15',
      b: '2024-02-30',
      c: '2024-01-15T10:00:00',
      d: '2024-01-15T10:00:00Z',
      e: '2024-01-15 10:00:00,5',
      f: '2024-13-01',
      g: '2024-02-29',
      h: '2023-02-29',
      i: '2024-01-15T10:00:00+25:00',
    };
    expect(toYamlDocument(doc)).toBe(
      'a: "2024-01-15"\nb: 2024-02-30\nc: 2024-01-15T10:00:00\nd: "2024-01-15T10:00:00Z"\ne: "2024-01-15 10:00:00,5"\nf: 2024-13-01\n' +
        'g: "2024-02-29"\nh: 2023-02-29\ni: 2024-01-15T10:00:00+25:00\n',
    );
  });

  it('escapes every character of a string that starts with a BOM (yaml.v2 checks the first character for one)', () => {
    expect(toYamlDocument({ a: '\ufeffab', b: 'a\ufeffb' })).toBe('a: "\\uFEFF\\x61\\x62"\nb: "a\\uFEFFb"\n');
  });

  it('copies line separators other than \\n into quoted and literal scalars, indenting the line after them', () => {
    expect(toYamlDocument({ s: 'a\u2028b', l: 'a\nb\u2028c' })).toBe("l: |-\n  a\n  b\u2028  c\ns: 'a\u2028  b'\n");
  });
});

describe('numbers', () => {
  it('writes an int while it fits in 64 bits, and other numbers as strconv.FormatFloat(f, g, -1, 64)', () => {
    const doc = { a: 1, b: 0.5, c: 1234567.5, d: 0.00001, e: 1e21, f: 2e19, g: -1e19, h: 1e19 };
    expect(toYamlDocument(doc)).toBe(
      'a: 1\nb: 0.5\nc: 1.2345675e+06\nd: 1e-05\ne: 1e+21\nf: 2e+19\ng: -1e+19\nh: 10000000000000000000\n',
    );
  });
});

describe('key order', () => {
  it('compares letters by code point and digit runs by their int64 value, as keyList.Less does', () => {
    const keys = ['b10', 'b9', 'a', 'B', '_x', 'a1', 'a01', '𝐀', 'ﬀ', 'a2', 'a12345678901234567890', 'a٣', 'a1000'];
    // 12345678901234567890 overflows int64 to a negative number; '٣' counts as 0x663 - '0'.
    expect([...keys].sort(compareYamlKeys)).toEqual([
      '_x',
      'B',
      'a',
      'a1',
      'a12345678901234567890',
      'a01',
      'a2',
      'a1000',
      'a٣',
      'b9',
      'b10',
      'ﬀ',
      '𝐀',
    ]);
  });
});

describe('layout', () => {
  it('writes a key longer than 128 bytes or with a line break as "? key", its value after ": "', () => {
    const long = 'k'.repeat(130);
    expect(toYamlDocument({ [long]: ['a', 'b'], 'c\rd': { x: 1 }, z: 1 })).toBe(
      `? "c\\rd"\n: x: 1\n? ${long}\n: - a\n  - b\nz: 1\n`,
    );
  });

  it('indents the continuation lines of a scalar at the root', () => {
    const words = 'a long string of words that yaml.v2 folds at the first space past column eighty, also at the root';
    expect(toYamlDocument(words)).toBe(
      'a long string of words that yaml.v2 folds at the first space past column eighty, also\n  at the root\n',
    );
    expect(toYamlDocument('one\ntwo\n')).toBe('|\n  one\n  two\n');
  });

  it('writes a file as controller-gen does: the header, then --- before each document', () => {
    expect(toYamlFile([{ a: 1 }, []], '# header\n')).toBe('# header\n---\na: 1\n---\n[]\n');
  });
});

describe('replaying shared objects', () => {
  it('writes an object met again the same way as the first time', () => {
    const shared = { type: 'object', properties: { name: { type: 'string', description: 'word '.repeat(30).trim() } } };
    const doc = { a: shared, b: { c: shared }, d: [shared], e: shared };
    const fresh = toYamlDocument(structuredClone(doc));
    for (let i = 0; i < 3; i++) expect(toYamlDocument(doc, { replaySharedObjects: true })).toBe(fresh);
  });

  it('writes objects afresh unless asked to replay them, so that changes after printing show', () => {
    const shared = { x: 1 };
    const doc = { a: shared, b: shared };
    for (let i = 0; i < 3; i++) toYamlDocument(doc);
    shared.x = 2;
    expect(toYamlDocument(doc)).toBe('a:\n  x: 2\nb:\n  x: 2\n');
  });
});
