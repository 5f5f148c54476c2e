/**
 * The marker grammar of controller-gen (sigs.k8s.io/controller-tools/pkg/markers/parse.go), as a pure parser.
 *
 *   marker := "+" name [ "=" args ]        name := seg (":" seg)*
 *
 * Parsing is directed by the declared argument types, exactly as upstream: the same text `1;2` is a list for a
 * slice argument and a bare string for a string argument. Values of type `any` (default, example, title, Enum
 * items) have their type guessed from the text.
 */
import { Scanner, unquoteGo, type Token } from './scanner.js';

/** A parsed marker argument value (JSON-compatible). */
export type MarkerValue = string | number | boolean | null | MarkerValue[] | { [key: string]: MarkerValue };

/** The declared type of a marker argument; it directs how the argument text is parsed, as in controller-gen. */
export type ArgType =
  | { kind: 'string' }
  | { kind: 'int' }
  | { kind: 'number' }
  | { kind: 'bool' }
  | { kind: 'any' }
  | { kind: 'slice'; item: ArgType }
  | { kind: 'map'; item: ArgType };

/** One argument of a marker: its type and whether it may be left out. */
export interface ArgSpec {
  type: ArgType;
  optional?: boolean;
}

/**
 * How a marker takes arguments: `flag` (no arguments, `+optional`), `anonymous` (one value after `=`,
 * `+kubebuilder:validation:Maximum=10`), `struct` (named arguments `k=v,k=v`), or `json` (the rest is JSON, `+default=`).
 */
export type MarkerShape =
  | { kind: 'flag' }
  | { kind: 'anonymous'; arg: ArgSpec }
  | { kind: 'struct'; args: Record<string, ArgSpec> }
  | { kind: 'json' };

/** A syntax error; `offset` is relative to the marker text that starts with '+'. */
export class MarkerSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'MarkerSyntaxError';
  }
}

/** A marker's text cut into the parts controller-gen's anonymous-name lookup works on. */
export interface SplitMarker {
  /** The name without its last segment when there is a value: `kubebuilder:printcolumn` for `+kubebuilder:printcolumn:name=x`. */
  name: string;
  /** Everything before the first `=`: `kubebuilder:validation:Maximum`. */
  anonName: string;
  /** Everything after the first `=` ('' when there is none). */
  rest: string;
  /** Offset of `rest` in the marker text. */
  restOffset: number;
  hasValue: boolean;
}

/** Argument type: a string (quoted, raw or bare). */
export const string: ArgType = { kind: 'string' };
/** Argument type: an integer. */
export const int: ArgType = { kind: 'int' };
/** Argument type: a number, integer or float. */
export const number: ArgType = { kind: 'number' };
/** Argument type: a boolean, `true` or `false`. */
export const bool: ArgType = { kind: 'bool' };
/** Argument type: any value, its type guessed from the text (default, example, Enum items). */
export const anyValue: ArgType = { kind: 'any' };
/** Argument type: a list of `item`, written `a;b;c` or `{a,b,c}`. */
export const sliceOf = (item: ArgType): ArgType => ({ kind: 'slice', item });
/** Argument type: a map from strings to `item`, written `{k: v, k: v}`. */
export const mapOf = (item: ArgType): ArgType => ({ kind: 'map', item });

/** Splits `+a:b:c=args` at the first `=` (controller-gen's splitMarker). */
export function splitMarker(marker: string): SplitMarker {
  const body = marker.startsWith('+') ? marker.slice(1) : marker;
  const lead = marker.length - body.length;
  const eq = body.indexOf('=');
  if (eq < 0) return { name: body, anonName: body, rest: '', restOffset: marker.length, hasValue: false };
  const anonName = body.slice(0, eq);
  const colon = anonName.lastIndexOf(':');
  return {
    name: colon >= 0 ? anonName.slice(0, colon) : anonName,
    anonName,
    rest: body.slice(eq + 1),
    restOffset: lead + eq + 1,
    hasValue: true,
  };
}

/**
 * Parses the arguments of a marker whose definition was found under `definedName` (either the anonymous name or
 * the shorter struct name). Returns the value: for flags `true`, for anonymous markers the value, for struct
 * markers an object of the given arguments, for json markers the parsed JSON (`null` for `ref(...)`).
 */
export function parseMarkerArguments(marker: string, definedName: string, shape: MarkerShape): MarkerValue {
  const split = splitMarker(marker);
  let fields = split.rest;
  let fieldsOffset = split.restOffset;
  if (shape.kind === 'json') return parseJsonArgument(split);
  // A struct marker written `+name:arg=value` carries its first argument name in the marker name.
  if (
    shape.kind === 'struct' &&
    split.hasValue &&
    split.anonName.length >= definedName.length + 1 &&
    split.anonName !== definedName
  ) {
    const glued = split.anonName.slice(definedName.length + 1);
    fields = `${glued}=${fields}`;
    fieldsOffset = split.restOffset - glued.length - 1;
  } else if (shape.kind !== 'anonymous' && !split.hasValue) {
    fields = '';
  }
  const errors: MarkerSyntaxError[] = [];
  const scanner = new Scanner(fields, (msg, off) => errors.push(new MarkerSyntaxError(msg, fieldsOffset + off)));
  const p = new ArgParser(scanner, fields, fieldsOffset, errors);
  const result = p.parseMarkerBody(shape);
  if (errors.length > 0) throw errors[0];
  return result;
}

function parseJsonArgument(split: SplitMarker): MarkerValue {
  if (split.rest.trim().startsWith('ref(')) return null; // controller-gen ignores Go constant references
  try {
    return JSON.parse(split.rest) as MarkerValue;
  } catch (err) {
    throw new MarkerSyntaxError(`invalid JSON value: ${(err as Error).message}`, split.restOffset);
  }
}

/**
 * How deep lists and maps may nest in one value. The parser and guessType recurse once per level, so a value such as
 * `{a:{a:{a:...` thousands deep ran out of stack; no marker value comes near this.
 */
const MAX_NESTING = 32;

class ArgParser {
  /** Lists and maps open around the value being parsed. */
  private depth = 0;

  constructor(
    private readonly s: Scanner,
    private readonly raw: string,
    private readonly base: number,
    private readonly errors: MarkerSyntaxError[],
  ) {}

  private fail(message: string, offset = this.s.token.offset): void {
    this.errors.push(new MarkerSyntaxError(message, this.base + offset));
  }

  private get failed(): boolean {
    return this.errors.length > 0;
  }

  private expect(kind: Token['kind'] | string, desc: string): boolean {
    const tok = this.s.scan();
    const ok = kind.length === 1 ? tok.kind === 'Char' && tok.text === kind : tok.kind === kind;
    if (!ok) this.fail(`expected ${desc}, got ${goQuote(tok.text)}`);
    return ok;
  }

  parseMarkerBody(shape: MarkerShape): MarkerValue {
    const s = this.s;
    if (shape.kind === 'flag') {
      this.expectEnd();
      return true;
    }
    if (shape.kind === 'anonymous') {
      let value: MarkerValue = null;
      if (s.peek() !== '') {
        value = this.parse(shape.arg.type, false);
      } else if (!shape.arg.optional) {
        this.fail('missing value', s.offset);
      }
      this.expectEnd();
      return value;
    }
    if (shape.kind !== 'struct') return null;
    const out: Record<string, MarkerValue> = {};
    if (s.peek() !== '') {
      while (this.expect('Ident', 'argument name')) {
        const argName = s.token.text;
        const nameOffset = s.token.offset;
        if (!this.expect('=', 'equals')) break;
        const spec = shape.args[argName];
        if (spec === undefined) {
          this.fail(unknownArgumentMessage(argName, Object.keys(shape.args)), nameOffset);
          break;
        }
        out[argName] = this.parse(spec.type, false);
        if (this.failed || s.peek() === '') break;
        if (!this.expect(',', 'comma')) break;
      }
    }
    this.expectEnd();
    if (!this.failed) {
      const missing = Object.entries(shape.args).filter(([name, spec]) => !spec.optional && !(name in out));
      if (missing.length > 0) this.fail(`missing argument ${goQuote(missing[0]![0])}`, s.offset);
    }
    return out;
  }

  private expectEnd(): void {
    if (this.failed) return;
    const tok = this.s.scan();
    if (tok.kind !== 'EOF') this.fail(`extra arguments provided: ${goQuote(this.raw.slice(tok.offset))}`, tok.offset);
  }

  parse(type: ArgType, inSlice: boolean): MarkerValue {
    switch (type.kind) {
      case 'number':
        return this.parseNumber(false);
      case 'int':
        return this.parseNumber(true);
      case 'string':
        return this.parseString(false);
      case 'bool': {
        if (!this.expect('Ident', 'true or false')) return null;
        const text = this.s.token.text;
        if (text === 'true' || text === 'false') return text === 'true';
        this.fail(`expected true or false, got ${goQuote(text)}`);
        return null;
      }
      case 'any':
        return this.parse(guessType(this.s, this.raw, !inSlice), inSlice);
      case 'slice':
        return this.nested(() => this.parseSlice(type.item));
      case 'map':
        return this.nested(() => this.parseMap(type.item));
    }
  }

  private nested(parse: () => MarkerValue): MarkerValue {
    if (this.depth >= MAX_NESTING) {
      this.fail(`values nested more than ${MAX_NESTING} levels deep`, this.s.offset);
      return null;
    }
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private parseNumber(integer: boolean): MarkerValue {
    const s = this.s;
    const negative = s.peek() === '-';
    if (negative) s.scan();
    const tok = s.scan();
    if (integer ? tok.kind !== 'Int' : tok.kind !== 'Int' && tok.kind !== 'Float') {
      this.fail(
        integer ? `expected integer, got ${goQuote(tok.text)}` : `expected integer or float, got ${goQuote(tok.text)}`,
      );
      return null;
    }
    const text = (negative ? '-' : '') + tok.text;
    if (integer) {
      if (!/^[+-]?[0-9]+$/.test(text)) {
        this.fail(`unable to parse integer: strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
        return null;
      }
      return Number.parseInt(text, 10);
    }
    const value = parseGoFloat(text);
    if (value === undefined) {
      this.fail(`unable to parse number: strconv.ParseFloat: parsing ${goQuote(text)}: invalid syntax`);
      return null;
    }
    return value;
  }

  /** Quoted ("..." or `...`) strings, or bare text up to the next `,` `;` `}` (and `:` inside maps). */
  parseString(inMap: boolean): string {
    const s = this.s;
    s.scanNumbers = false;
    try {
      const isDelim = (ch: string): boolean =>
        ch === ',' || ch === ';' || ch === '}' || ch === '' || (inMap && ch === ':');
      // An empty bare value stops at its delimiter (upstream would swallow the delimiter and the next argument).
      if (isDelim(s.peekNoSpace())) return '';
      const first = s.scan();
      if (first.kind === 'String' || first.kind === 'RawString') {
        try {
          return unquoteGo(first.text);
        } catch {
          this.fail(`unable to parse string: invalid syntax`);
          return '';
        }
      }
      let end = first.offset + first.text.length;
      while (!isDelim(s.peekNoSpace())) {
        const tok = s.scan();
        end = tok.offset + tok.text.length;
      }
      return this.raw.slice(first.offset, end);
    } finally {
      s.scanNumbers = true;
    }
  }

  /** `{a,b,c}` (nestable) or the legacy `a;b;c`. */
  private parseSlice(item: ArgType): MarkerValue {
    const s = this.s;
    const out: MarkerValue[] = [];
    if (s.peekNoSpace() === '{') {
      s.scan();
      for (let hint = s.peekNoSpace(); hint !== '}' && hint !== ''; hint = s.peekNoSpace()) {
        out.push(this.parse(item, true));
        if (this.failed) return out;
        if (s.peekNoSpace() === '}') break;
        if (!this.expect(',', 'comma')) return out;
      }
      this.expect('}', 'close curly brace');
      return out;
    }
    for (let hint = s.peekNoSpace(); hint !== ',' && hint !== '}' && hint !== ''; hint = s.peekNoSpace()) {
      out.push(this.parse(item, true));
      if (this.failed) return out;
      const next = s.peekNoSpace();
      if (next === ',' || next === '}' || next === '') break;
      const tok = s.scan();
      if (tok.text !== ';') {
        this.fail(`expected comma, got ${goQuote(tok.text)}`);
        return out;
      }
    }
    return out;
  }

  /** `{key: value, "key2": value}`; keys are strings. */
  private parseMap(item: ArgType): MarkerValue {
    const s = this.s;
    const out: Record<string, MarkerValue> = {};
    if (!this.expect('{', 'open curly brace')) return out;
    for (let hint = s.peekNoSpace(); hint !== '}' && hint !== ''; hint = s.peekNoSpace()) {
      const key = this.parseString(true);
      if (this.failed || !this.expect(':', 'colon')) return out;
      out[key] = this.parse(item, false);
      if (this.failed) return out;
      if (s.peekNoSpace() === '}') break;
      if (!this.expect(',', 'comma')) return out;
    }
    this.expect('}', 'close curly brace');
    return out;
  }
}

/**
 * controller-gen's guessType: quoted -> string; `{` -> map if the first element is a string followed by `:`
 * (or `{}`), else slice; true/false -> bool; a number immediately followed by `,` `;` `}` or the end -> int or
 * float; anything else a bare string. At the top level, a `;` before the next `,` makes a legacy slice.
 */
function guessType(scanner: Scanner, raw: string, allowSlice: boolean, depth = 0): ArgType {
  // Past the parser's own bound the guess no longer matters: the parser stops there with an error.
  if (depth > MAX_NESTING) return string;
  const subRaw = raw.slice(scanner.offset);
  if (allowSlice) {
    const item = guessType(scanner, raw, false, depth);
    const sub = new Scanner(subRaw);
    let tok: Token;
    do tok = sub.scan();
    while (!(tok.kind === 'EOF' || (tok.kind === 'Char' && (tok.text === ',' || tok.text === ';'))));
    return tok.text === ';' ? sliceOf(item) : item;
  }
  let hadScanError = false;
  const sub = new Scanner(subRaw, () => {
    hadScanError = true;
  });
  let hint = sub.peekNoSpace();
  if (hint === '"' || hint === "'" || hint === '`') return string;
  if (hint === '{') {
    sub.scan();
    hint = sub.peekNoSpace();
    const first = guessType(sub, subRaw, false, depth + 1);
    if (first.kind === 'string') {
      new ArgParser(sub, subRaw, 0, []).parseString(true);
      const next = sub.scan();
      if ((next.kind === 'Char' && next.text === ':') || hint === '}') return mapOf(anyValue);
    }
    return sliceOf(first);
  }
  let probablyString = false;
  if (hint === 't' || hint === 'f') {
    const tok = sub.scan();
    if (tok.kind === 'Ident' && (tok.text === 'true' || tok.text === 'false')) return bool;
    probablyString = true;
  }
  if (!probablyString) {
    let tok = sub.scan();
    if (tok.kind === 'Char' && tok.text === '-') tok = sub.scan();
    if (!hadScanError && (tok.kind === 'Int' || tok.kind === 'Float')) {
      const follow = sub.peekNoSpace();
      if (follow === ',' || follow === ';' || follow === '' || follow === '}') return tok.kind === 'Int' ? int : number;
    }
  }
  return string;
}

/** Go's strconv.ParseFloat for the literals the scanner produces. */
function parseGoFloat(text: string): number | undefined {
  const t = text.replaceAll('_', '');
  if (/^[+-]?0[xX]/.test(t)) {
    const m = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?$/.exec(t);
    if (!m) return undefined;
    const mant = parseInt((m[2] ?? '') + (m[3] ?? ''), 16) / 16 ** (m[3]?.length ?? 0);
    const v = mant * 2 ** Number(m[4] ?? 0);
    return m[1] === '-' ? -v : v;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return undefined;
  return Number(t);
}

/** Go's %q of a string, for messages that quote user input the way controller-gen does. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

function unknownArgumentMessage(name: string, known: string[]): string {
  const close = closest(name, known);
  const hint = close ? `; did you mean ${goQuote(close)}?` : '';
  return `unknown argument ${goQuote(name)}${hint} (known: ${known.join(', ')})`;
}

/** The candidate with the smallest edit distance, if it is close enough to be a plausible typo. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  for (const c of candidates) {
    // The distance is at least the difference in length: skip candidates that cannot be close enough or closer, so
    // that a mistyped name thousands of characters long costs no edit-distance table (it took seconds per marker).
    const cl = c.toLowerCase();
    if (Math.abs(cl.length - lower.length) > Math.min(limit, bestDist)) continue;
    const d = cl === lower ? 0 : editDistance(lower, cl);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return bestDist <= limit ? best : undefined;
}

/** The Levenshtein distance between two strings, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    prev = cur;
  }
  return prev[b.length] as number;
}
