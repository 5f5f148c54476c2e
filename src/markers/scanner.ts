/**
 * A tokenizer with the behaviour of Go's text/scanner in the mode controller-gen uses for marker arguments
 * (idents, ints, floats, "strings" and `raw strings`; no chars, no comments). Marker values are split on its
 * tokens, so matching it decides where a bare string ends and what counts as a number.
 */

/** The token classes of Go's text/scanner that controller-gen's marker parser sees. */
export type TokenKind = 'EOF' | 'Ident' | 'Int' | 'Float' | 'String' | 'RawString' | 'Char';

/** One scanned token. */
export interface Token {
  kind: TokenKind;
  /** The token's source text (for Char, the character). */
  text: string;
  /** Offset of the token's first character in the scanned input. */
  offset: number;
}

/** Receives the scanner's errors (an unterminated string, a bad escape) with the offset they were found at. */
export type ScanErrorHandler = (message: string, offset: number) => void;

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
const isDecimal = (ch: string): boolean => ch >= '0' && ch <= '9';
const isHex = (ch: string): boolean => isDecimal(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
const letterRe = /^\p{L}$/u;
const digitRe = /^\p{Nd}$/u;
const isIdentRune = (ch: string, first: boolean): boolean =>
  ch === '_' || letterRe.test(ch) || (!first && digitRe.test(ch));

/** A scanner over one marker's argument text, read one token or character at a time by the grammar. */
export class Scanner {
  /** When false, digits scan as single characters (controller-gen turns numbers off while reading strings). */
  scanNumbers = true;
  private pos = 0;
  private last: Token = { kind: 'EOF', text: '', offset: 0 };

  constructor(
    readonly src: string,
    private readonly onError: ScanErrorHandler = () => {},
  ) {}

  /** Offset of the next unread character. */
  get offset(): number {
    return this.pos;
  }

  /** The most recently scanned token. */
  get token(): Token {
    return this.last;
  }

  /** The next character without consuming it ('' at the end); whitespace is not skipped. */
  peek(): string {
    return this.charAt(this.pos);
  }

  /** Like peek, but consumes whitespace first. */
  peekNoSpace(): string {
    while (isWhitespace(this.peek())) this.pos += this.charAt(this.pos).length;
    return this.peek();
  }

  /** Skips whitespace and scans the next token (kind EOF at the end), which then is also `token`. */
  scan(): Token {
    this.peekNoSpace();
    const start = this.pos;
    const ch = this.peek();
    let kind: TokenKind;
    if (ch === '') {
      kind = 'EOF';
    } else if (isIdentRune(ch, true)) {
      this.pos += ch.length;
      while (this.peek() !== '' && isIdentRune(this.peek(), false)) this.pos += this.peek().length;
      kind = 'Ident';
    } else if (this.scanNumbers && (isDecimal(ch) || (ch === '.' && isDecimal(this.charAt(this.pos + 1))))) {
      kind = this.scanNumber();
    } else if (ch === '"') {
      this.scanQuoted();
      kind = 'String';
    } else if (ch === '`') {
      this.scanRaw();
      kind = 'RawString';
    } else {
      this.pos += ch.length;
      kind = 'Char';
    }
    this.last = { kind, text: this.src.slice(start, this.pos), offset: start };
    return this.last;
  }

  private charAt(i: number): string {
    const cp = this.src.codePointAt(i);
    return cp === undefined ? '' : String.fromCodePoint(cp);
  }

  private error(message: string, offset = this.pos): void {
    this.onError(message, offset);
  }

  private scanQuoted(): void {
    const start = this.pos;
    this.pos++; // opening quote
    for (;;) {
      const ch = this.peek();
      if (ch === '' || ch === '\n') {
        this.error('literal not terminated', start);
        return;
      }
      this.pos += ch.length;
      if (ch === '"') return;
      if (ch === '\\' && this.peek() !== '') this.pos += this.peek().length;
    }
  }

  private scanRaw(): void {
    const start = this.pos;
    this.pos++;
    const end = this.src.indexOf('`', this.pos);
    if (end < 0) {
      this.pos = this.src.length;
      this.error('literal not terminated', start);
      return;
    }
    this.pos = end + 1;
  }

  /** Go's scanNumber: prefixes 0x/0o/0b, legacy octal, '_' separators, fractions and exponents. */
  private scanNumber(): TokenKind {
    let kind: TokenKind = 'Int';
    let base = 10;
    let prefix = '';
    let hasDigits = false;
    let invalidDigit = -1;
    const digits = (): void => {
      for (;;) {
        const ch = this.peek();
        if (ch === '_') {
          this.pos++;
          continue;
        }
        const ok = base === 16 ? isHex(ch) : isDecimal(ch);
        if (!ok) return;
        if (base < 10 && ch >= String(base) && invalidDigit < 0) invalidDigit = this.pos;
        hasDigits = true;
        this.pos++;
      }
    };
    if (this.peek() !== '.') {
      if (this.peek() === '0') {
        this.pos++;
        const p = this.peek().toLowerCase();
        if (p === 'x' || p === 'o' || p === 'b') {
          this.pos++;
          prefix = p;
          base = p === 'x' ? 16 : p === 'o' ? 8 : 2;
        } else {
          prefix = '0';
          base = 8;
          hasDigits = true; // the leading 0 is a digit
        }
      }
      digits();
      if (this.peek() === '.') {
        kind = 'Float';
        this.pos++;
        if (prefix === 'o' || prefix === 'b') this.error('invalid radix point');
        digits();
      }
    } else {
      kind = 'Float';
      this.pos++;
      digits();
    }
    if (!hasDigits)
      this.error(
        `${base === 16 ? 'hexadecimal' : base === 8 ? 'octal' : base === 2 ? 'binary' : 'decimal'} literal has no digits`,
      );
    const e = this.peek().toLowerCase();
    if (e === 'e' || e === 'p') {
      if (e === 'e' && prefix !== '' && prefix !== '0')
        this.error(`'${this.peek()}' exponent requires decimal mantissa`);
      if (e === 'p' && prefix !== 'x') this.error(`'${this.peek()}' exponent requires hexadecimal mantissa`);
      this.pos++;
      kind = 'Float';
      if (this.peek() === '+' || this.peek() === '-') this.pos++;
      const before = this.pos;
      while (isDecimal(this.peek()) || this.peek() === '_') this.pos++;
      if (this.pos === before) this.error('exponent has no digits');
    } else if (prefix === 'x' && kind === 'Float') {
      this.error("hexadecimal mantissa requires a 'p' exponent");
    }
    if (kind === 'Int' && invalidDigit >= 0) {
      this.error(`invalid digit '${this.src[invalidDigit]}' in octal literal`, invalidDigit);
    }
    return kind;
  }
}

/** Go's strconv.Unquote for "..." and `...` literals. */
export function unquoteGo(lit: string): string {
  if (lit.startsWith('`')) {
    if (lit.length < 2 || !lit.endsWith('`')) throw new Error('invalid syntax');
    return lit.slice(1, -1).replaceAll('\r', '');
  }
  if (lit.length < 2 || !lit.startsWith('"') || !lit.endsWith('"')) throw new Error('invalid syntax');
  const body = lit.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch === '"' || ch === '\n') throw new Error('invalid syntax');
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const esc = body[++i];
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
      '"': '"',
    };
    if (esc !== undefined && esc in simple) {
      out += simple[esc];
      continue;
    }
    const hexLen = esc === 'x' ? 2 : esc === 'u' ? 4 : esc === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const hex = body.slice(i + 1, i + 1 + hexLen);
      if (hex.length !== hexLen || !/^[0-9a-fA-F]+$/.test(hex)) throw new Error('invalid syntax');
      const code = parseInt(hex, 16);
      if (esc === 'x') out += String.fromCharCode(code);
      else if (code > 0x10ffff || (code >= 0xd800 && code < 0xe000)) throw new Error('invalid syntax');
      else out += String.fromCodePoint(code);
      i += hexLen;
      continue;
    }
    if (esc !== undefined && esc >= '0' && esc <= '7') {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw new Error('invalid syntax');
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
      continue;
    }
    throw new Error('invalid syntax');
  }
  return out;
}
