/** readYamlDocuments: YAML input within Go's kinds of bounds, refused in one line naming the file. */
import { describe, expect, it } from 'vitest';
import { isUserError } from '../../src/errors.js';
import { readYamlDocument, readYamlDocuments, YAML_LIMITS, YamlInputError } from '../../src/yaml/read.js';
import { BOMBS } from './bombs.js';

function refusal(text: string): { error: YamlInputError; ms: number } {
  const start = performance.now();
  try {
    readYamlDocuments(text, 'config/x.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(YamlInputError);
    return { error: err as YamlInputError, ms: performance.now() - start };
  }
  throw new Error('the document was read');
}

describe('readYamlDocuments', () => {
  it.each(BOMBS)('refuses %s within a second, naming the file', (_name, bomb, message) => {
    const { error, ms } = refusal(bomb());
    expect(error.message).toMatch(/^config\/x\.yaml /);
    expect(error.message).toMatch(message);
    expect(isUserError(error)).toBe(true);
    expect(ms).toBeLessThan(1000);
  });

  it('reads documents nested as deep as manifests get, and aliases used as they are', () => {
    const deep = `${Array.from({ length: 100 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n')} [[[[{a: [1]}]]]]\n`;
    expect(readYamlDocuments(deep, 'f')).toHaveLength(1);
    const aliases = 'base: &b {a: 1}\nx: *b\ny: *b\n';
    expect(readYamlDocument(aliases, 'f')?.data).toEqual({ base: { a: 1 }, x: { a: 1 }, y: { a: 1 } });
  });

  it('counts nesting on YAML tokens: brackets in quotes, comments and block scalars, and deep text in them, do not count', () => {
    const text = [
      'a:',
      '  b: |',
      `    ${'- '.repeat(400)}${'['.repeat(400)}`,
      `  c: "${'['.repeat(400)}"`,
      `  d: '${'{'.repeat(400)}'`,
      `  # ${'['.repeat(400)}`,
      `  e: x${'['.repeat(400)}`,
      '',
    ].join('\n');
    const data = readYamlDocument(text, 'f')?.data as { a: Record<string, string> };
    expect(data.a.c).toBe('['.repeat(400));
  });

  it('refuses nesting just past the limit and reads it just below', () => {
    const seqs = (n: number) => `${'- '.repeat(n)}x\n`;
    expect(() => readYamlDocuments(seqs(YAML_LIMITS.maxDepth / 2 - 1), 'f')).not.toThrow();
    expect(() => readYamlDocuments(seqs(YAML_LIMITS.maxDepth), 'f')).toThrow(/nested more than/);
  });

  it('names the line of a syntax error', () => {
    expect(() => readYamlDocuments('a: b\nc: [\n', 'f.yaml')).toThrow(/^f\.yaml is not valid YAML: line 3: /);
  });

  it('refuses more than one document where one is expected', () => {
    expect(() => readYamlDocument('a: 1\n---\nb: 2\n', 'PROJECT')).toThrow(
      'PROJECT holds 2 YAML documents; one is expected',
    );
  });
});
