import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { publicApiFiles, publicEntryPoints } from '../../scripts/lib/public-api.js';

// The repository's own eslint.config.js, applied to source text as if it were a file at `filePath`.
const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function missingDocs(source: string, filePath: string): Promise<number[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'jsdoc/require-jsdoc').map((m) => m.line);
}

// A module of the public API: src/runtime/rest/index.ts re-exports it (export ... from './types.js').
const PUBLIC = 'src/runtime/rest/types.ts';

describe('doc comments on the public API (jsdoc/require-jsdoc in eslint.config.js)', () => {
  it('reports every kind of undocumented export, one error each', async () => {
    const source = [
      'export interface Options { name: string; run(): void }', // 1: interface, its property and its method
      'export type Mode = "a" | "b";', // 2
      'export function build(): void {}', // 3
      'export const LIMIT = 3;', // 4
      'export class Thing {', // 5
      '  size = 0;', // 6: public field
      '  grow(): void {}', // 7: public method
      '  private hidden(): void {}',
      '  #secret = 1;',
      '  constructor() {}',
      '}',
    ].join('\n');
    expect(await missingDocs(source, PUBLIC)).toEqual([1, 1, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('refuses `export { name }` of a local declaration, whose comment require-jsdoc would not see', async () => {
    const [result] = await eslint.lintText('/** One. */\nconst local = 1;\nexport { local };\n', { filePath: PUBLIC });
    expect(result?.messages.map((m) => `${m.line}:${m.ruleId}`)).toEqual(['3:no-restricted-syntax']);
  });

  it('accepts the same exports with doc comments, and ignores what is not exported or private', async () => {
    const source = [
      '/** Options. */',
      'export interface Options {',
      '  /** Its name. */',
      '  name: string;',
      '  /** Runs. */',
      '  run(): void;',
      '}',
      '/** A mode. */',
      'export type Mode = "a" | "b";',
      '/** A pair: the fields of an inline object type need no comments of their own. */',
      'export type Pair = { left: number; right: number };',
      '/** Builds. */',
      'export function build(): void {}',
      '/** The limit. */',
      'export const LIMIT = 3;',
      '/** A thing. */',
      'export class Thing {',
      '  /** Its size. */',
      '  size = 0;',
      '  /** Grows it. */',
      '  grow(): void {}',
      '  private hidden(): void {}',
      '}',
      'interface Internal { x: number }',
      'function helper(): Internal { return { x: 1 }; }',
      'helper();',
    ].join('\n');
    expect(await missingDocs(source, PUBLIC)).toEqual([]);
  });

  it('does not count a blank /** */ block as a doc comment', async () => {
    const [result] = await eslint.lintText('/** */\nexport const LIMIT = 3;\n', { filePath: PUBLIC });
    expect(result?.messages.map((m) => m.ruleId)).toContain('jsdoc/no-blank-blocks');
  });

  it('leaves modules outside the public API alone', async () => {
    expect(await missingDocs('export const LIMIT = 3;\n', 'src/cli/anything.ts')).toEqual([]);
    expect(await missingDocs('export const LIMIT = 3;\n', 'src/runtime/workqueue/deque.ts')).toEqual([]);
  });
});

describe('publicApiFiles', () => {
  it('starts from every entry point package.json exports', () => {
    expect(publicEntryPoints()).toContain('src/runtime/index.ts');
    expect(publicEntryPoints()).toContain('src/runtime/webhook/index.ts');
    expect(publicEntryPoints()).toContain('src/envtest/index.ts');
    expect(publicEntryPoints()).not.toContain('package.json');
  });

  it('follows re-exports through index.ts files, and export * too, but not plain imports', () => {
    const files = publicApiFiles();
    expect(files).toContain('src/runtime/webhook/server.ts'); // export { WebhookServer } from './server.js'
    expect(files).toContain('src/runtime/log/logger.ts'); // runtime/index.ts -> log/index.ts -> logger.ts
    expect(files).toContain('src/runtime/healthz/healthz.ts'); // manager/index.ts -> healthz/index.ts -> healthz.ts
    expect(files).toContain('src/runtime/rest/builtins.ts'); // export * from './builtins.js'
    expect(files).not.toContain('src/runtime/workqueue/deque.ts'); // only imported by the queues
  });
});
