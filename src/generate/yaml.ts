/**
 * YAML output byte-compatible with controller-gen's (an object marshalled to JSON, read back and written by
 * gopkg.in/yaml.v2): keys in yaml.v2's order, sequences at their key's indent, `|-` blocks for multi-line
 * strings, plain scalars folded at the first space past column 80, and yaml.v2's choice of plain, single- or
 * double-quoted style for each string. Only JSON values are supported (objects, arrays, strings, numbers,
 * booleans, null), which is all a manifest holds.
 */

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

/** yaml.v2's key order (keyList.Less): letters by code point, digit runs by value, non-letters before letters. */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  if (isPlainAsciiKey(a) && isPlainAsciiKey(b)) return a < b ? -1 : 1;
  return yamlKeyLess(a, b) ? -1 : 1;
}

// Keys of ASCII letters, '-', '_', '.', '/' (no digits) compare by code unit in yaml.v2's order too, except that
// non-letters sort before letters; those characters are all below 'A', so plain comparison agrees.
const isPlainAsciiKey = (k: string): boolean => /^[A-Za-z\-_./]*$/.test(k) && !/_/.test(k);

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

type Style = 'plain' | 'single' | 'double' | 'literal';

const isBreak = (c: string | undefined): boolean => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isSpace = (c: string | undefined): boolean => c === ' ';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';
const isBlankz = (c: string | undefined): boolean => c === undefined || isBlank(c) || isBreak(c) || c === '\0';
/** yaml.v2's is_printable: note that it leaves out U+0085 and everything beyond the BMP (emoji get escaped). */
function isPrintable(c: string): boolean {
  const v = c.codePointAt(0)!;
  return v === 0x0a || (v >= 0x20 && v <= 0x7e) || (v >= 0xa0 && v <= 0xd7ff) || (v >= 0xe000 && v <= 0xfffd && v !== 0xfeff);
}

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

/** yaml_emitter_analyze_scalar. */
function analyze(value: string): Analysis {
  if (value === '') return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  const chars = /[\ud800-\udfff]/.test(value) ? [...value] : value;
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  if (value.startsWith('---') || value.startsWith('...')) blockIndicators = true;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':') && followedByWhitespace) blockIndicators = true;
      else if (c === '-' && followedByWhitespace) blockIndicators = true;
    } else if (c === ':' && followedByWhitespace) blockIndicators = true;
    else if (c === '#' && precededByWhitespace) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (isSpace(c)) {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(c);
  }
  const a: Analysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) {
    a.blockPlain = false;
    a.singleQuoted = false;
  }
  if (spaceBreak || special) {
    a.blockPlain = false;
    a.singleQuoted = false;
    a.block = false;
  }
  if (lineBreaks) a.blockPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

/** Whether yaml.v2 would read the plain text back as something other than a string (encoder.stringv). */
function resolvesToNonString(s: string): boolean {
  const special = ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE'];
  const more = ['off', 'Off', 'OFF', '', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF'];
  if (special.includes(s) || more.includes(s)) return true;
  const c = s[0];
  if (c === '.') return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (c === undefined || !('+-0123456789'.includes(c))) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  if (/^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.test(plain)) return true;
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)) return true;
  if (/^-?0b[01]+$/.test(plain)) return true;
  // base-60 floats (1:20) are quoted too
  return /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);
}

/** yaml.v2's timestamp forms: 2006-1-2, and 2006-1-2[Tt ]15:4:5(.999)(Z|±07:00). */
function isTimestamp(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(Z|[-+]\d{2}:\d{2})?)?$/.exec(s);
  if (!m) return false;
  const [, , mo, d, sep, h, mi, se, zone] = m;
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return false;
  if (sep === undefined) return true;
  if (sep !== 'T' && sep !== 't' && zone !== undefined) return false;
  if ((sep === 'T' || sep === 't') && zone === undefined) return false;
  return Number(h) < 24 && Number(mi) < 60 && Number(se) < 60;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64) for the non-integral numbers a manifest can hold. */
function formatFloat(x: number): string {
  if (Number.isNaN(x)) return '.nan';
  if (!Number.isFinite(x)) return x > 0 ? '.inf' : '-.inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return String(x);
  const [mant, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 21 || (exp >= 6 && !Number.isInteger(x))) {
    const sign = exp < 0 ? '-' : '+';
    return `${mant}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(x);
}

/** Number of code points (yaml.v2 counts columns in characters). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      n--;
      i++;
    }
  }
  return n;
}

/** Output written by the Writer from some point on, with the Writer's state at its end. */
interface Written {
  text: string;
  column: number;
  whitespace: boolean;
  indention: boolean;
}

class Writer {
  private chunks: string[] = [];
  private column = 0;
  private whitespace = true;
  private indention = true;

  text(): string {
    return this.chunks.join('');
  }

  mark(): number {
    return this.chunks.length;
  }

  since(mark: number): Written {
    return { text: this.chunks.slice(mark).join(''), column: this.column, whitespace: this.whitespace, indention: this.indention };
  }

  replay(w: Written): void {
    this.chunks.push(w.text);
    this.column = w.column;
    this.whitespace = w.whitespace;
    this.indention = w.indention;
  }

  put(s: string): void {
    this.chunks.push(s);
    this.column += codePoints(s);
  }

  private breakLine(): void {
    this.chunks.push('\n');
    this.column = 0;
  }

  indent(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.breakLine();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  indicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(ind);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** A scalar with the style yaml.v2 picks; `indent` is where continuation lines start. */
  scalar(value: string, requested: Style, indent: number, simpleKey: boolean): void {
    const a = analyze(value);
    let style = requested;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlain) style = 'single';
      if (value === '' && simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    const allowBreaks = !simpleKey;
    switch (style) {
      case 'plain':
        this.plain(value, indent, allowBreaks);
        break;
      case 'single':
        this.singleQuoted(value, indent, allowBreaks);
        break;
      case 'double':
        this.doubleQuoted(value, indent, allowBreaks);
        break;
      case 'literal':
        this.literal(value, indent);
        break;
    }
  }

  private plain(value: string, indent: number, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let i = 0;
    while (i < value.length) {
      if (value.charCodeAt(i) === 32) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && value.charCodeAt(i + 1) !== 32) this.indent(indent);
        else this.put(' ');
        spaces = true;
        i++;
        continue;
      }
      let j = value.indexOf(' ', i);
      if (j < 0) j = value.length;
      this.put(value.slice(i, j));
      this.indention = false;
      spaces = false;
      i = j;
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(value: string, indent: number, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const chars = [...value];
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i] as string;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && !isSpace(chars[i + 1])) this.indent(indent);
        else this.put(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.breakLine();
        this.breakLine();
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.indent(indent);
        if (c === "'") this.put("'");
        this.put(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(value: string, indent: number, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const chars = [...value];
    let spaces = false;
    const escapes: Record<string, string> = {
      '\0': '0',
      '\x07': 'a',
      '\b': 'b',
      '\t': 't',
      '\n': 'n',
      '\v': 'v',
      '\f': 'f',
      '\r': 'r',
      '\x1b': 'e',
      '"': '"',
      '\\': '\\',
      '\u0085': 'N',
      '\u00a0': '_',
      '\u2028': 'L',
      '\u2029': 'P',
    };
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i] as string;
      if (!isPrintable(c) || c === '\ufeff' || isBreak(c) || c === '"' || c === '\\') {
        const v = c.codePointAt(0)!;
        const esc = escapes[c];
        if (esc !== undefined) this.put(`\\${esc}`);
        else if (v <= 0xff) this.put(`\\x${v.toString(16).toUpperCase().padStart(2, '0')}`);
        else if (v <= 0xffff) this.put(`\\u${v.toString(16).toUpperCase().padStart(4, '0')}`);
        else this.put(`\\U${v.toString(16).toUpperCase().padStart(8, '0')}`);
        spaces = false;
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.indent(indent);
          if (isSpace(chars[i + 1])) this.put('\\');
        } else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(value: string, indent: number): void {
    this.indicator('|', true, false, false);
    if (isSpace(value[0]) || isBreak(value[0])) this.indicator(String(BEST_INDENT), false, false, false);
    let chomp = '';
    const last = value.length - 1;
    if (value.length === 0 || !isBreak(value[last])) chomp = '-';
    else if (last === 0 || isBreak(value[last - 1])) chomp = '+';
    if (chomp) this.indicator(chomp, false, false, false);
    this.breakLine();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    let i = 0;
    while (i < value.length) {
      const c = value[i] as string;
      if (isBreak(c)) {
        this.breakLine();
        this.indention = true;
        breaks = true;
        i++;
        continue;
      }
      let j = i;
      while (j < value.length && !isBreak(value[j])) j++;
      if (breaks) this.indent(indent);
      this.put(value.slice(i, j));
      this.indention = false;
      breaks = false;
      i = j;
    }
  }
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function isEmptyCollection(v: Json): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const k in v) if (v[k] !== undefined) return false;
  return true;
}

/** Map keys in yaml.v2's order; keys whose value is undefined are left out, as JSON marshalling would. */
function sortedKeys(obj: { [key: string]: Json }): string[] {
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  return keys.every(isPlainAsciiKey) ? keys.sort() : keys.sort(compareYamlKeys);
}

/*
 * Schemas of named types are shared objects (PodSpec under every Kind's template): their YAML at a given indent is
 * always the same text, so it is written once and replayed. An object is recorded the second time it is met, which
 * costs nothing for the (many) objects that occur once.
 */
const seen = new WeakSet<object>();
const replays = new WeakMap<object, Map<number, Written>>();

class Encoder {
  readonly w = new Writer();

  /** A non-empty mapping or sequence as the value of a mapping key. */
  private value(v: Json[] | { [key: string]: Json }, indent: number): void {
    const emit = (): void => (Array.isArray(v) ? this.sequence(v, indent) : this.mapping(v, indent + BEST_INDENT));
    const cached = replays.get(v)?.get(indent);
    if (cached) {
      this.w.replay(cached);
      return;
    }
    if (!seen.has(v)) {
      seen.add(v);
      emit();
      return;
    }
    const mark = this.w.mark();
    emit();
    let byIndent = replays.get(v);
    if (!byIndent) replays.set(v, (byIndent = new Map()));
    byIndent.set(indent, this.w.since(mark));
  }

  node(v: Json, indent: number): void {
    if (v === null || v === undefined) this.w.scalar('null', 'plain', indent + BEST_INDENT, false);
    else if (typeof v === 'boolean') this.w.scalar(String(v), 'plain', indent + BEST_INDENT, false);
    else if (typeof v === 'number') this.w.scalar(formatFloat(v), 'plain', indent + BEST_INDENT, false);
    else if (typeof v === 'string') this.string(v, indent + BEST_INDENT, false);
    else if (Array.isArray(v)) {
      if (v.length === 0) this.w.indicator('[]', true, false, false);
      else this.sequence(v, indent);
    } else if (isEmptyCollection(v)) this.w.indicator('{}', true, false, false);
    else this.mapping(v, indent);
  }

  private string(s: string, indent: number, simpleKey: boolean): void {
    const style: Style = s.includes('\n') ? 'literal' : resolvesToNonString(s) ? 'double' : 'plain';
    this.w.scalar(s, style, indent, simpleKey);
  }

  /** A block mapping whose keys start at `indent`. */
  mapping(obj: { [key: string]: Json }, indent: number): void {
    for (const k of sortedKeys(obj)) {
      this.w.indent(indent);
      if (k.includes('\n') || Buffer.byteLength(k) > 128) {
        // not a simple key for yaml.v2: `? key` on its own, then `: value`
        this.w.indicator('?', true, false, true);
        this.string(k, indent + BEST_INDENT, false);
        this.w.indent(indent);
        this.w.indicator(':', true, false, true);
      } else {
        this.string(k, indent + BEST_INDENT, true);
        this.w.indicator(':', false, false, false);
      }
      const v = obj[k] as Json;
      // nested mappings go one level in; sequences stay at the key's indent (yaml.v2's indentless sequences)
      if (typeof v === 'object' && v !== null && !isEmptyCollection(v)) this.value(v, indent);
      else this.node(v, indent);
    }
  }

  /** A block sequence whose dashes stand at `indent`. */
  sequence(items: Json[], indent: number): void {
    for (const item of items) {
      this.w.indent(indent);
      this.w.indicator('-', true, false, true);
      if (typeof item === 'object' && item !== null && !isEmptyCollection(item)) {
        if (Array.isArray(item)) this.sequence(item, indent + BEST_INDENT);
        else this.mapping(item, indent + BEST_INDENT);
      } else this.node(item, indent);
    }
  }
}

/** One YAML document body (without the leading `---`), as yaml.v2 writes it. */
export function toYamlDocument(value: unknown): string {
  const e = new Encoder();
  const v = value as Json;
  if (typeof v === 'object' && v !== null && !isEmptyCollection(v)) {
    if (Array.isArray(v)) e.sequence(v, 0);
    else e.mapping(v, 0);
  } else e.node(v, -BEST_INDENT);
  const text = e.w.text();
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A manifest file: optional header, then each object as `---` + document. */
export function toYamlFile(objects: readonly unknown[], header = ''): string {
  return header + objects.map((o) => `---\n${toYamlDocument(o)}`).join('');
}
