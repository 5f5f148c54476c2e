import { isObject, type JsonValue } from './values.js';

// kustomize prints each object by marshalling it to JSON and converting that to YAML with go-yaml v2
// (sigs.k8s.io/yaml), so the text follows libyaml's block emitter: keys sorted in go-yaml's order, strings quoted by
// YAML 1.1 rules, long lines folded past column 80, sequences not indented under their key. This is that emitter,
// for JSON data.

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

/** go-yaml v2's keyList.Less for string keys: letters before other characters, digit runs compared as numbers. */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + Number(ar[ai]);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

// What go-yaml v2's resolve() would read a plain scalar as, when not a string: then the string must be quoted.
const YAML11_WORDS = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF',
  '-.inf', '-.Inf', '-.INF', '<<',
]);
const GO_INT = /^[-+]?(?:0[xX]_?[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*|0[oO]_?[0-7]+(?:_[0-7]+)*|0[bB]_?[01]+(?:_[01]+)*|0_?[0-7]*(?:_[0-7]+)*|[1-9][0-9]*(?:_[0-9]+)*)$/;
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const BINARY = /^-?0b[01]+$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP = /^\d{4}-\d{1,2}-\d{1,2}(?:[Tt ]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[-+]\d{2}:\d{2})?)?$/;

function resolvesAsNonString(s: string): boolean {
  if (YAML11_WORDS.has(s)) return true;
  if (/^[-+0-9.]/.test(s) && (GO_INT.test(s) || YAML_FLOAT.test(s) || BINARY.test(s))) return true;
  return BASE60_FLOAT.test(s) || TIMESTAMP.test(s);
}

const isBreak = (c: string) => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlank = (c: string | undefined) => c === undefined || c === ' ' || c === '\t';

/** libyaml's is_printable, as go-yaml v2 has it: no NEL and nothing beyond the Basic Multilingual Plane. */
function isPrintable(c: string): boolean {
  const n = c.codePointAt(0)!;
  return n === 0x0a || (n >= 0x20 && n <= 0x7e) || (n >= 0xa0 && n <= 0xd7ff) || (n >= 0xe000 && n <= 0xfffd && n !== 0xfeff);
}

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** libyaml's yaml_emitter_analyze_scalar, for block context. */
function analyze(s: string): Analysis {
  const chars = [...s];
  if (chars.length === 0) return { multiline: false, blockPlainAllowed: false, singleQuotedAllowed: true, blockAllowed: false };
  let blockIndicators = s.startsWith('---') || s.startsWith('...');
  let special = false;
  let lineBreaks = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]) || isBreak(chars[i + 1]!);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':') && followedByWhitespace) blockIndicators = true;
      else if (c === '-' && followedByWhitespace) blockIndicators = true;
    } else if (c === ':' && followedByWhitespace) {
      blockIndicators = true;
    } else if (c === '#' && precededByWhitespace) {
      blockIndicators = true;
    }
    if (!isPrintable(c)) special = true;
    if (c === ' ') {
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
    precededByWhitespace = isBlank(c) || isBreak(c);
  }
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

type Style = 'plain' | 'single' | 'double' | 'literal';

/** go-yaml v2's stringv choice, then libyaml's select_scalar_style downgrade. */
function stringStyle(s: string, simpleKey: boolean): Style {
  let style: Style = s.includes('\n') ? 'literal' : resolvesAsNonString(s) ? 'double' : 'plain';
  const a = analyze(s);
  if (style === 'plain' && !a.blockPlainAllowed) style = 'single';
  if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
  return style;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which go-yaml v2 uses for non-integer numbers. */
function goFloat(n: number): string {
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

const DOUBLE_ESCAPES: Record<string, string> = {
  '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\x0b': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e', '"': '"', '\\': '\\',
  '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P',
};

class Emitter {
  out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  private put(text: string): void {
    this.out += text;
    this.column += [...text].length;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(text);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  node(v: JsonValue, mappingContext: boolean): void {
    if (Array.isArray(v)) {
      if (v.length === 0) return this.emptyFlow('[', ']');
      this.increaseIndent(false, mappingContext && !this.indention);
      for (const item of v) {
        this.writeIndent();
        this.indicator('-', true, false, true);
        this.node(item, false);
      }
      this.popIndent();
      return;
    }
    if (isObject(v)) {
      const keys = Object.keys(v).sort((a, b) => (goYamlKeyLess(a, b) ? -1 : goYamlKeyLess(b, a) ? 1 : 0));
      if (keys.length === 0) return this.emptyFlow('{', '}');
      this.increaseIndent(false, false);
      for (const key of keys) {
        this.writeIndent();
        this.scalar(key, true);
        this.indicator(':', false, false, false);
        this.node(v[key]!, true);
      }
      this.popIndent();
      return;
    }
    if (v === null) return this.scalarText('null', 'plain', false);
    if (typeof v === 'boolean') return this.scalarText(String(v), 'plain', false);
    if (typeof v === 'number') return this.scalarText(Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : goFloat(v), 'plain', false);
    this.scalar(v, false);
  }

  private emptyFlow(open: string, close: string): void {
    this.indicator(open, true, true, false);
    this.indicator(close, false, false, false);
  }

  private scalar(s: string, simpleKey: boolean): void {
    this.scalarText(s, stringStyle(s, simpleKey), simpleKey);
  }

  private scalarText(s: string, style: Style, simpleKey: boolean): void {
    this.increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    if (style === 'plain') this.plain(s, allowBreaks);
    else if (style === 'single') this.singleQuoted(s, allowBreaks);
    else if (style === 'double') this.doubleQuoted(s, allowBreaks);
    else this.literal(s);
    this.popIndent();
  }

  private plain(s: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    const chars = [...s];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(s: string, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const chars = [...s];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1 && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(c);
        spaces = true;
      } else {
        this.put(c === "'" ? "''" : c);
        this.indention = false;
        spaces = false;
      }
    }
    this.indicator("'", false, false, false);
  }

  private doubleQuoted(s: string, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const chars = [...s];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (!isPrintable(c) || c === '\uFEFF' || isBreak(c) || c === '"' || c === '\\') {
        const n = c.codePointAt(0)!;
        const short = DOUBLE_ESCAPES[c];
        if (short) this.put(`\\${short}`);
        else if (n <= 0xff) this.put(`\\x${n.toString(16).toUpperCase().padStart(2, '0')}`);
        else if (n <= 0xffff) this.put(`\\u${n.toString(16).toUpperCase().padStart(4, '0')}`);
        else this.put(`\\U${n.toString(16).toUpperCase().padStart(8, '0')}`);
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else {
          this.put(c);
        }
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
  }

  private literal(s: string): void {
    this.indicator('|', true, false, false);
    const chars = [...s];
    if (chars[0] === ' ' || isBreak(chars[0]!)) this.indicator(String(BEST_INDENT), false, false, false);
    const last = chars[chars.length - 1]!;
    if (!isBreak(last)) this.indicator('-', false, false, false);
    else if (chars.length === 1 || isBreak(chars[chars.length - 2]!)) this.indicator('+', false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.putBreak();
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }

  endDocument(): void {
    this.indent = -1;
    this.writeIndent();
  }
}

/** One object as kustomize prints it. */
export function toKustomizeYaml(obj: JsonValue): string {
  const e = new Emitter();
  e.node(obj, false);
  e.endDocument();
  return e.out;
}

/** Documents joined the way kustomize's ResMap.AsYaml does. */
export function resourcesToYaml(objs: JsonValue[]): string {
  return objs.map(toKustomizeYaml).join('---\n');
}
