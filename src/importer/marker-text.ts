/**
 * Marker arguments written so that the marker grammar (src/markers/grammar.ts) reads back the same value: strings
 * quoted the Go way (or as raw `...` strings, easier to read for patterns), lists as `{a,b}`, maps as `{k: v}`.
 */
import type { JSONValue } from '../markers/apiextensions.js';

const BARE = /^[A-Za-z_][A-Za-z0-9_./-]*$/;

/** A string argument: bare when it reads back as the same string, else Go-quoted. */
export function stringArg(value: string, opts: { bare?: boolean; raw?: boolean } = {}): string {
  if (opts.bare && BARE.test(value) && value !== 'true' && value !== 'false') return value;
  if (opts.raw && !value.includes('`') && !value.includes('\r')) return `\`${value}\``;
  return goQuote(value);
}

/**
 * A Go interpreted string literal: JSON's escapes are all Go escapes too. U+2028 and U+2029 are escaped as well, since
 * they end a `//` comment line in TypeScript.
 */
export function goQuote(value: string): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A TypeScript string literal in single quotes, with every line break escaped. */
export function tsString(value: string): string {
  const body = JSON.stringify(value)
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/'/g, "\\'")
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `'${body}'`;
}

/** A number as the grammar's number parser reads it back. */
export function numberArg(value: number): string {
  return Number.isInteger(value) ? String(value) : String(value).replace(/e\+?/, 'e');
}

/**
 * An argument of type `any` (Enum items, example, title): the grammar guesses its type from the text, so strings are
 * always quoted. Undefined when the value has no spelling (null, or an empty list or map, which read back as each
 * other).
 */
export function anyArg(value: JSONValue): string | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return numberArg(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const items = value.map(anyArg);
    return items.some((i) => i === undefined) ? undefined : `{${items.join(',')}}`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return undefined;
  const parts = entries.map(([k, v]) => {
    const text = anyArg(v);
    return text === undefined ? undefined : `${goQuote(k)}: ${text}`;
  });
  return parts.some((p) => p === undefined) ? undefined : `{${parts.join(',')}}`;
}

/** A JSON argument (`+kubescaffold:schema:patch={...}`) on one comment line: U+2028/9 escaped as in goQuote. */
export function jsonArg(value: JSONValue): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
