// The value parsers of Go's flag package (strconv.ParseBool, strconv.ParseInt with base 0), with strconv's error
// words ("parse error", "value out of range"), and Go's %q, which the messages quote values with.

const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** A value parsed, or the reason strconv would give for refusing it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: 'parse error' | 'value out of range' };

/** strconv.ParseBool: 1, t, T, true, TRUE, True and 0, f, F, false, FALSE, False; nothing else. */
export function parseBool(text: string): Parsed<boolean> {
  if (TRUE.has(text)) return { ok: true, value: true };
  if (FALSE.has(text)) return { ok: true, value: false };
  return { ok: false, reason: 'parse error' };
}

const DIGITS: Record<number, RegExp> = {
  2: /^[01]+(?:_?[01]+)*$/,
  8: /^[0-7]+(?:_?[0-7]+)*$/,
  10: /^[0-9]+(?:_?[0-9]+)*$/,
  16: /^[0-9a-fA-F]+(?:_?[0-9a-fA-F]+)*$/,
};

/**
 * strconv.ParseInt(text, 0, 64) within Number's safe integers: an optional sign, then 0x/0o/0b or a leading 0 (octal)
 * or decimal digits; `_` may separate digits, or follow a base prefix, as in Go's literals.
 */
export function parseInt(text: string): Parsed<number> {
  const sign = text.startsWith('-') ? -1n : 1n;
  let rest = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  let base = 10;
  const prefix = /^0([xXoObB])/.exec(rest);
  if (prefix) {
    base = { x: 16, o: 8, b: 2 }[prefix[1]!.toLowerCase() as 'x' | 'o' | 'b'];
    rest = rest.slice(2);
    // Go allows an underscore right after the prefix (0x_1f).
    if (rest.startsWith('_')) rest = rest.slice(1);
  } else if (rest.length > 1 && rest.startsWith('0')) {
    base = 8;
    rest = rest.slice(1);
    if (rest.startsWith('_')) rest = rest.slice(1);
  }
  if (!DIGITS[base]!.test(rest)) return { ok: false, reason: 'parse error' };
  const digits = rest.replaceAll('_', '');
  const magnitude = base === 10 ? BigInt(digits) : BigInt(`0${{ 16: 'x', 8: 'o', 2: 'b' }[base]}${digits}`);
  const value = sign * magnitude;
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
    return { ok: false, reason: 'value out of range' };
  return { ok: true, value: Number(value) };
}

const ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's %q of a string: double quotes, with Go's escapes for quotes, backslashes and control characters. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ESCAPES[ch] !== undefined) out += ESCAPES[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + '"';
}
