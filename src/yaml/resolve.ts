/**
 * Which strings gopkg.in/yaml.v2 double-quotes: those it would read back, written plain, as something other than a
 * string (resolve.go), plus YAML 1.1's base-60 numbers (encoder.stringv quotes them for other parsers' sake).
 */

// resolve.go's resolveMap. It also holds "<<", but yaml.v2 only looks a string up when its first character is one
// of these words' first characters, so "<<" stays plain.
const WORDS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]);

/** Whether yaml.v2 writes `s` double-quoted (unless it has a line break, which makes it a literal block). */
export function resolvesToNonString(s: string): boolean {
  if (WORDS.has(s)) return true;
  const c = s[0] as string;
  // strconv.ParseFloat on the text as it is: Go's float syntax lets '_' stand between digits.
  if (c === '.')
    return /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/.test(s) && isFiniteFloat(s.replaceAll('_', ''));
  if (!'+-0123456789'.includes(c)) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  if (isGoInt(plain)) return true;
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain) && isFiniteFloat(plain)) return true;
  // resolve's fallback for "0b" followed by a signed binary number, which strconv.ParseInt(_, 0, 64) turned down
  if (/^0b[-+][01]+$/.test(plain) && fitsInt64(plain[2] === '-', BigInt(`0b${plain.slice(3)}`))) return true;
  return /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);
}

/** strconv.ParseFloat without error: out of float64's range is an error (and then the text is a string). */
const isFiniteFloat = (text: string): boolean => Number.isFinite(Number(text));

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const fitsInt64 = (negative: boolean, magnitude: bigint): boolean =>
  magnitude <= (negative ? INT64_MAX + 1n : INT64_MAX);

/** strconv.ParseInt(text, 0, 64) or strconv.ParseUint(text, 0, 64) succeeds: Go's prefixes, in 64 bits. */
function isGoInt(text: string): boolean {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!m) return false;
  const [, sign, digits] = m as unknown as [string, string, string];
  // a leading 0 alone means octal in Go; BigInt reads 0x/0o/0b (either case) itself
  const magnitude = BigInt(/^0[0-7]/.test(digits) ? `0o${digits.slice(1)}` : digits);
  return fitsInt64(sign === '-', magnitude) || (sign === '' && magnitude <= UINT64_MAX);
}

/**
 * yaml.v2's timestamps: Go's time.Parse with 2006-1-2T15:4:5.999999999Z07:00 (or a lower-case t), 2006-1-2
 * 15:4:5.999999999, or 2006-1-2, including its range checks (a 30th of February is a plain string).
 */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt]| +)(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(Z|[-+]\d{2}:\d{2})?)?$/.exec(s);
  if (!m) return false;
  const [, y, mo, d, sep, h, mi, se, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  if (month < 1 || month > 12 || Number(d) < 1 || Number(d) > daysIn(month, year)) return false;
  if (sep === undefined) return true;
  // the T layouts end in a zone, the space layout has none
  if ((sep === 'T' || sep === 't') !== (zone !== undefined)) return false;
  if (zone !== undefined && zone !== 'Z' && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4)) > 60)) return false;
  return Number(h) < 24 && Number(mi) < 60 && Number(se) < 60;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
