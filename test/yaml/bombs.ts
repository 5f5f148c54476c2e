/** Hostile YAML documents, for the tests that feed them to every parser the CLI has. */
import { YAML_LIMITS } from '../../src/yaml/read.js';

/** Ten levels of nine aliases each: 9^9 strings once expanded (the "billion laughs"). */
export function billionLaughs(): string {
  let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < 10; i++) {
    const prev = String.fromCharCode(96 + i);
    const next = String.fromCharCode(97 + i);
    text += `${next}: &${next} [${Array(9).fill(`*${prev}`).join(', ')}]\n`;
  }
  return text;
}

/** A flow sequence nested 100 000 levels deep. */
export const deepFlow = (): string => `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;

/** Compact block sequences nested 100 000 levels deep on one line. */
export const deepBlock = (): string => `${'- '.repeat(100_000)}x\n`;

/** A document one character over the size limit. */
export const oversized = (): string => `a: ${'x'.repeat(YAML_LIMITS.maxChars)}\n`;

/** Each bomb with the words its refusal has. */
export const BOMBS: Array<[name: string, text: () => string, message: RegExp]> = [
  ['a billion-laughs alias bomb', billionLaughs, /excessive aliasing/],
  ['a deeply nested flow document', deepFlow, /nested more than \d+ levels deep/],
  ['a deeply nested block document', deepBlock, /nested more than \d+ levels deep/],
  ['an oversized document', oversized, /larger than \d+ MiB/],
];
