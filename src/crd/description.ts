/** `--max-desc-len`: controller-gen's description truncation (pkg/crd/desc_visitor.go), measured in UTF-8 bytes. */
import type { JSONSchemaProps } from '../markers/apiextensions.js';

const sentenceTerminal = /\p{Sentence_Terminal}/u;
const whiteSpace = /\p{White_Space}/u;

/** Shortens every description in a schema to `maxLen` UTF-8 bytes (`--max-desc-len`); 0 removes them. */
export function truncateDescriptions(schema: JSONSchemaProps, maxLen: number): void {
  visitSchemas(schema, (s) => {
    if (s.description === undefined) return;
    if (maxLen === 0) delete s.description;
    else s.description = truncate(s.description, maxLen);
  });
}

/**
 * Cuts one description to `maxLen` bytes as controller-gen does: at the last sentence end, else at the last space with
 * `...` added.
 */
export function truncate(desc: string, maxLen: number): string {
  const bytes = Buffer.from(desc, 'utf8');
  if (bytes.length <= maxLen) return desc;
  const cut = bytes
    .subarray(0, maxLen)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const chars = [...cut];
  for (let i = chars.length - 1; i > 0; i--)
    if (sentenceTerminal.test(chars[i] as string)) return chars.slice(0, i + 1).join('');
  for (let i = chars.length - 1; i > 0; i--)
    if (whiteSpace.test(chars[i] as string)) return `${chars.slice(0, i).join('')}...`;
  return `${cut}...`;
}

/** Calls `fn` on a schema and every schema nested in it. */
export function visitSchemas(s: JSONSchemaProps, fn: (s: JSONSchemaProps) => void): void {
  fn(s);
  for (const p of Object.values(s.properties ?? {})) visitSchemas(p, fn);
  if (s.items) visitSchemas(s.items, fn);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') visitSchemas(s.additionalProperties, fn);
  for (const list of [s.allOf, s.anyOf, s.oneOf]) for (const x of list ?? []) visitSchemas(x, fn);
  if (s.not) visitSchemas(s.not, fn);
}
