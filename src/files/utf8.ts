/**
 * Text the CLI reads from a project must be valid UTF-8, as Go's parser and controller-gen require: a stray byte
 * would otherwise become U+FFFD without a word and change an enum value, a pattern or a description.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../errors.js';

/** A file that is not valid UTF-8; the message names the file and the line of the first bad byte. */
export class InvalidUtf8Error extends UserError {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(`${file}:${line}: invalid UTF-8 encoding; save the file as UTF-8`);
    this.name = 'InvalidUtf8Error';
  }
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes `bytes` as UTF-8 (a BOM is kept, as readFileSync(_, 'utf8') keeps it), or throws InvalidUtf8Error naming `file` and the line. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return strict.decode(bytes);
  } catch {
    throw new InvalidUtf8Error(file, lineOf(bytes, firstInvalidByte(bytes)));
  }
}

/** Reads a file as UTF-8 text, refusing invalid bytes; `shown` names it in the error (default: `path`). */
export function readUtf8File(path: string, shown: string = path): string {
  return decodeUtf8(readFileSync(path), shown);
}

/** The 1-based line holding byte `offset`. */
function lineOf(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** The offset of the first byte that does not start or continue a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // the sequence's length and the range its second byte must fall in (no overlongs, surrogates or > U+10FFFF)
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k < n; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n;
  }
  return bytes.length;
}
