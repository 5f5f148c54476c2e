/**
 * libyaml's block emitter as gopkg.in/yaml.v2 carries it (emitterc.go), cut down to what JSON data needs: scalar
 * analysis, the choice among plain, single-quoted, double-quoted and literal styles, and writing with yaml.v2's
 * column tracking, so that long lines fold where yaml.v2 folds them (the first space past column 80).
 */

export const BEST_INDENT = 2;
const BEST_WIDTH = 80;

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

const isBreak = (c: string | undefined): boolean =>
  c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isSpace = (c: string | undefined): boolean => c === ' ';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';
const isBlankz = (c: string | undefined): boolean => c === undefined || isBlank(c) || isBreak(c) || c === '\0';

/** yaml.v2's is_printable: it leaves out U+0085 and everything beyond the BMP (emoji get escaped). */
function isPrintable(c: string): boolean {
  const v = c.codePointAt(0)!;
  return (
    v === 0x0a || (v >= 0x20 && v <= 0x7e) || (v >= 0xa0 && v <= 0xd7ff) || (v >= 0xe000 && v <= 0xfffd && v !== 0xfeff)
  );
}

/** What yaml_emitter_analyze_scalar finds out about a scalar, for block context. */
export interface ScalarAnalysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

// Printable characters of the BMP, with \n as the only line break: what nearly every string in a manifest holds.
const SIMPLE_TEXT = /^[\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;
// For SIMPLE_TEXT: indicators at the start, then ": " or ":" at the end, and " #" or "\n#", further on.
const FIRST_INDICATOR = /^(?:[#,[\]{}&*!|>'"%@`]|[?:-](?: |$)|---|\.\.\.)/;
const LATER_INDICATOR = /[\s\S]:(?: |$)|[ \n]#/;

export function analyzeScalar(value: string): ScalarAnalysis {
  if (value === '') return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  if (SIMPLE_TEXT.test(value)) {
    // the loop below, with regular expressions: no special characters, and no break but \n
    const first = value.charCodeAt(0);
    const last = value.charCodeAt(value.length - 1);
    const lineBreaks = value.includes('\n');
    return conclude({
      blockIndicators: FIRST_INDICATOR.test(value) || LATER_INDICATOR.test(value),
      lineBreaks,
      special: false,
      leadingSpace: first === 32,
      leadingBreak: first === 10,
      trailingSpace: last === 32,
      trailingBreak: last === 10,
      breakSpace: lineBreaks && value.includes('\n '),
      spaceBreak: lineBreaks && value.includes(' \n'),
    });
  }
  // Indexing code units is enough (and faster) unless there are surrogate pairs.
  const chars = /[\ud800-\udfff]/.test(value) ? [...value] : value;
  let blockIndicators = value.startsWith('---') || value.startsWith('...');
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
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    // is_blank, not is_blankz: a following line break does not count here
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
  return conclude({
    blockIndicators,
    lineBreaks,
    special,
    leadingSpace,
    leadingBreak,
    trailingSpace,
    trailingBreak,
    breakSpace,
    spaceBreak,
  });
}

interface ScalarFacts {
  blockIndicators: boolean;
  lineBreaks: boolean;
  special: boolean;
  leadingSpace: boolean;
  leadingBreak: boolean;
  trailingSpace: boolean;
  trailingBreak: boolean;
  breakSpace: boolean;
  spaceBreak: boolean;
}

function conclude(f: ScalarFacts): ScalarAnalysis {
  const {
    blockIndicators,
    lineBreaks,
    special,
    leadingSpace,
    leadingBreak,
    trailingSpace,
    trailingBreak,
    breakSpace,
    spaceBreak,
  } = f;
  const a: ScalarAnalysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
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
  if (lineBreaks || blockIndicators) a.blockPlain = false;
  return a;
}

/** yaml_emitter_select_scalar_style: the style asked for, given up for the next one where the text forbids it. */
function selectStyle(value: string, requested: ScalarStyle, simpleKey: boolean, a: ScalarAnalysis): ScalarStyle {
  let style = requested;
  if (simpleKey && a.multiline) style = 'double';
  if (style === 'plain' && (!a.blockPlain || (value === '' && simpleKey))) style = 'single';
  if (style === 'single' && !a.singleQuoted) style = 'double';
  if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
  return style;
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

const ESCAPES: Record<string, string> = {
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

/** Output written by the Writer from some point on, with the Writer's state at its end. */
export interface Written {
  text: string;
  column: number;
  whitespace: boolean;
  indention: boolean;
}

const SPACES: string[] = [];
const spaces = (n: number): string => (SPACES[n] ??= ' '.repeat(n));

// U+000A, U+000D, U+0085, U+2028, U+2029 (isBreak) by code unit
const isBreakCode = (c: number): boolean => c === 10 || c === 13 || c === 0x85 || c === 0x2028 || c === 0x2029;
const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/**
 * The emitter's output and the state its layout decisions read: column, and whether the line is still blank. Text
 * is appended to one string (V8 joins the pieces once, when the text is read) and written a run of characters at a
 * time: only spaces (where a line may fold), line breaks and characters that are escaped or doubled are looked at one
 * by one. Columns count characters (code points), as yaml.v2 does.
 */
export class Writer {
  /** Text before the last mark(); `out` is the text written since. */
  private chunks: string[] = [];
  private chunksLength = 0;
  private out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;

  text(): string {
    return this.chunks.length === 0 ? this.out : this.chunks.join('') + this.out;
  }

  /** Length of the text written so far (an offset into text()). */
  get length(): number {
    return this.chunksLength + this.out.length;
  }

  /** The state after the text written so far, for replaying that text elsewhere. */
  state(): Omit<Written, 'text'> {
    return { column: this.column, whitespace: this.whitespace, indention: this.indention };
  }

  mark(): number {
    if (this.out !== '') {
      this.chunks.push(this.out);
      this.chunksLength += this.out.length;
      this.out = '';
    }
    return this.chunks.length;
  }

  since(mark: number): Written {
    const text = this.chunks.length === mark ? this.out : this.chunks.slice(mark).join('') + this.out;
    return { text, column: this.column, whitespace: this.whitespace, indention: this.indention };
  }

  replay(w: Written): void {
    this.out += w.text;
    this.column = w.column;
    this.whitespace = w.whitespace;
    this.indention = w.indention;
  }

  private put(s: string): void {
    this.out += s;
    this.column += codePoints(s);
  }

  /** Text known to be `width` characters wide. */
  private putWide(s: string, width: number): void {
    this.out += s;
    this.column += width;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  /** write_break: a line feed is written as such, any other break character (U+2028...) is copied as it is. */
  private writeBreak(c: string): void {
    this.out += c;
    this.column = 0;
  }

  /** yaml_emitter_write_indent: to column `indent`, on a new line unless this one is still blank up to there. */
  indent(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    if (this.column < indent) this.putWide(spaces(indent - this.column), indent - this.column);
    this.whitespace = true;
    this.indention = true;
  }

  indicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.putWide(' ', 1);
    this.put(ind);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** A mapping key's text with its ':', `width` characters wide, written at the start of a line (see encode.ts). */
  key(text: string, width: number): void {
    this.putWide(text, width);
    this.whitespace = false;
    this.indention = false;
  }

  /** A plain scalar that needs no analysis: null, a boolean or a number. */
  word(text: string): void {
    if (!this.whitespace) this.putWide(' ', 1);
    this.put(text);
    this.whitespace = false;
    this.indention = false;
  }

  /** A string in the style yaml.v2 settles on; `indent` is where continuation lines start. */
  scalar(
    value: string,
    requested: ScalarStyle,
    indent: number,
    simpleKey: boolean,
    analysis = analyzeScalar(value),
  ): void {
    const allowBreaks = !simpleKey;
    switch (selectStyle(value, requested, simpleKey, analysis)) {
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

  /**
   * A plain scalar has no line breaks and only printable characters of the BMP (analysis rules the rest out), one
   * column each. It folds at a single space found past column 80 (the space becomes the line break).
   */
  private plain(value: string, indent: number, allowBreaks: boolean): void {
    if (!this.whitespace) this.putWide(' ', 1);
    const n = value.length;
    // the last space can stand at column + n - 1 at most
    if (!allowBreaks || this.column + n - 1 <= BEST_WIDTH) {
      this.putWide(value, n);
    } else {
      // the line being written started at index `from`, in column `start`
      let from = 0;
      let start = this.column;
      for (let i = value.indexOf(' '); i >= 0; i = value.indexOf(' ', i + 1)) {
        // the first of a run of spaces, past column 80, not followed by another: a word was written, so the line
        // is not blank and write_indent breaks it
        if (start + (i - from) > BEST_WIDTH && value.charCodeAt(i - 1) !== 32 && value.charCodeAt(i + 1) !== 32) {
          this.out += value.slice(from, i);
          this.column = start + (i - from);
          this.indention = false;
          this.indent(indent);
          from = i + 1;
          start = this.column;
        }
      }
      this.putWide(from === 0 ? value : value.slice(from), n - from);
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(value: string, indent: number, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const n = value.length;
    let spaces = false;
    let breaks = false;
    let i = 0;
    while (i < n) {
      const c = value.charCodeAt(i);
      if (c === 32) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < n - 1 && value.charCodeAt(i + 1) !== 32)
          this.indent(indent);
        else this.putWide(' ', 1);
        spaces = true;
        i++;
      } else if (isBreakCode(c)) {
        if (!breaks && c === 10) this.putBreak();
        this.writeBreak(value[i] as string);
        this.indention = true;
        breaks = true;
        i++;
      } else {
        if (breaks) this.indent(indent);
        // a run of other characters; a quote is doubled
        let j = i;
        let width = 0;
        let quotes = false;
        while (j < n) {
          const d = value.charCodeAt(j);
          if (d === 32 || isBreakCode(d)) break;
          if (d === 39) {
            quotes = true;
            width += 2;
            j++;
          } else {
            width++;
            j += isHighSurrogate(d) && j + 1 < n ? 2 : 1;
          }
        }
        const run = value.slice(i, j);
        this.putWide(quotes ? run.replaceAll("'", "''") : run, width);
        this.indention = false;
        spaces = false;
        breaks = false;
        i = j;
      }
    }
    this.indicator("'", false, false, false);
  }

  private doubleQuoted(value: string, indent: number, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const chars = [...value];
    // yaml.v2's is_bom looks at the value's first character, not the current one: after a leading BOM, everything
    // is escaped.
    const escapeAll = value.startsWith('\ufeff');
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i] as string;
      if (escapeAll || !isPrintable(c) || isBreak(c) || c === '"' || c === '\\') {
        const v = c.codePointAt(0)!;
        const esc = ESCAPES[c];
        if (esc !== undefined) this.put(`\\${esc}`);
        else if (v <= 0xff) this.put(`\\x${v.toString(16).toUpperCase().padStart(2, '0')}`);
        else if (v <= 0xffff) this.put(`\\u${v.toString(16).toUpperCase().padStart(4, '0')}`);
        else this.put(`\\U${v.toString(16).toUpperCase().padStart(8, '0')}`);
        spaces = false;
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.indent(indent);
          // an escaped space keeps a run of spaces from being folded away
          if (isSpace(chars[i + 1])) this.put('\\');
        } else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
  }

  private literal(value: string, indent: number): void {
    this.indicator('|', true, false, false);
    if (isSpace(value[0]) || isBreak(value[0])) this.indicator(String(BEST_INDENT), false, false, false);
    // chomping: strip without a final break, keep with more than one
    const last = value.length - 1;
    if (!isBreak(value[last])) this.indicator('-', false, false, false);
    else if (last === 0 || isBreak(value[last - 1])) this.indicator('+', false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    let i = 0;
    const n = value.length;
    if (SIMPLE_TEXT.test(value)) {
      // lines between \n, each as write_break and write_indent leave them: an empty line gets no indentation
      for (let end = value.indexOf('\n'); i < n; end = value.indexOf('\n', i)) {
        if (end < 0) end = n;
        if (end > i) {
          if (breaks) this.indent(indent);
          this.putWide(value.slice(i, end), end - i);
          this.indention = false;
        }
        if (end < n) {
          this.writeBreak('\n');
          this.indention = true;
          breaks = true;
        } else breaks = false;
        i = end + 1;
      }
      return;
    }
    while (i < n) {
      const c = value.charCodeAt(i);
      if (isBreakCode(c)) {
        this.writeBreak(value[i] as string);
        this.indention = true;
        breaks = true;
        i++;
        continue;
      }
      let j = i + 1;
      while (j < n && !isBreakCode(value.charCodeAt(j))) j++;
      if (breaks) this.indent(indent);
      this.put(value.slice(i, j));
      this.indention = false;
      breaks = false;
      i = j;
    }
  }
}
