/** decodeUtf8: invalid UTF-8 is an error at file:line, not U+FFFD. */
import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidByte, InvalidUtf8Error } from '../../src/files/utf8.js';

const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('decodeUtf8', () => {
  it('decodes valid UTF-8 as readFileSync does, a BOM included', () => {
    const text = '\uFEFFenum: Größe ✓ 🚀\n';
    expect(decodeUtf8(Buffer.from(text, 'utf8'), 'f')).toBe(text);
  });

  it('refuses an invalid byte, naming the file and the line it is on', () => {
    const input = bytes('// +kubebuilder:validation:Enum=a;b\n\n// +kubebuilder:validation:Enum=x', [0xff], 'y\n');
    expect(() => decodeUtf8(input, 'api/v1/captain_types.ts')).toThrow(
      new InvalidUtf8Error('api/v1/captain_types.ts', 3),
    );
    expect(() => decodeUtf8(input, 'api/v1/captain_types.ts')).toThrow(
      'api/v1/captain_types.ts:3: invalid UTF-8 encoding',
    );
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
  ])('finds %s where the fatal decoder fails', (_name, bad) => {
    const input = bytes('ok\nok ', bad, ' tail\n');
    expect(firstInvalidByte(input)).toBe(6);
    expect(() => decodeUtf8(input, 'f')).toThrow('f:2: invalid UTF-8 encoding');
  });

  it('agrees with the fatal TextDecoder on whether bytes are valid', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 2000; n++) {
      const input = Uint8Array.from(
        { length: 1 + (next() % 6) },
        () => [0x41, 0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xa0, 0x90][next() % 10]!,
      );
      let valid = true;
      try {
        decoder.decode(input);
      } catch {
        valid = false;
      }
      expect(firstInvalidByte(input) === input.length).toBe(valid);
    }
  });
});
