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

// time.ParseDuration's units, in nanoseconds.
const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_DURATION_NS = (1n << 63n) - 1n;

/**
 * time.ParseDuration, in milliseconds: an optional sign, then one or more decimal numbers each with a unit (ns, us,
 * µs, ms, s, m, h), as in `300ms`, `1.5h` or `2h45m`; `0` alone is zero. Go counts whole nanoseconds, a fraction's
 * remainder cut off, up to int64's limit (about 292 years); so does this. Go's flag package calls every refusal a
 * parse error.
 */
export function parseDuration(text: string): Parsed<number> {
  let rest = text;
  const negative = rest.startsWith('-');
  if (negative || rest.startsWith('+')) rest = rest.slice(1);
  if (rest === '0') return { ok: true, value: 0 };
  if (rest === '') return { ok: false, reason: 'parse error' };
  let ns = 0n;
  while (rest !== '') {
    // A number (digits, a fraction, or both), then the longest unit that matches.
    const m = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m || (m[1] === '' && !m[2])) return { ok: false, reason: 'parse error' };
    const unit = UNIT_NS[m[3]!]!;
    ns += BigInt(m[1] || '0') * unit;
    if (m[2]) ns += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    if (ns > MAX_DURATION_NS + (negative ? 1n : 0n)) return { ok: false, reason: 'parse error' };
    rest = rest.slice(m[0].length);
  }
  const ms = Number(ns) / 1e6;
  return { ok: true, value: negative ? -ms : ms };
}

/** time.Duration's String, from milliseconds: `0s`, `500ms`, `1.5s`, `1m30s`, `1h0m0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  const trim = (n: number): string => String(Number(n.toFixed(9)));
  if (abs < 1000) {
    if (abs >= 1) return `${sign}${trim(abs)}ms`;
    if (abs >= 1e-3) return `${sign}${trim(abs * 1e3)}µs`;
    return `${sign}${trim(abs * 1e6)}ns`;
  }
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const s = trim((abs % 60_000) / 1000);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
