import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { markdownPages } from '../../scripts/lib/docs-anchors.js';

// Every ```ts / ```typescript block of the book is type-checked against this checkout's package, so that a renamed
// export or a changed signature breaks the docs' build instead of a reader's paste. A block that is a fragment on
// purpose says so with a second word in its info string, ```ts partial, which GitHub and VitePress still render as
// TypeScript.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const docsRoot = join(repoRoot, 'docs');

interface Snippet {
  /** docs/<page>:<line of the first code line> */
  where: string;
  page: string;
  /** The line of the page the code starts on (1-based). */
  firstLine: number;
  code: string;
}

/** The TypeScript blocks of a Markdown page, skipping those marked partial. */
function snippetsOf(page: string, markdown: string): Snippet[] {
  const out: Snippet[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang, second] = open;
    // A fence closes on a line of only the same character, at least as many times.
    const closing = new RegExp(`^\\s*\\${fence![0]}{${fence!.length},}\\s*$`);
    const end = lines.findIndex((l, j) => j > i && closing.test(l));
    const close = end < 0 ? lines.length : end;
    if ((lang === 'ts' || lang === 'typescript') && second !== 'partial') {
      const code = lines
        .slice(i + 1, close)
        .map((l) => l.slice(Math.min(indent!.length, l.length - l.trimStart().length)))
        .join('\n');
      out.push({ where: `docs/${page}:${i + 2}`, page, firstLine: i + 2, code });
    }
    i = close;
  }
  return out;
}

/** Each public entry point of package.json's exports, mapped to its source, as a tsconfig `paths`. */
function packagePaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { types?: string } | string>;
  };
  const paths: Record<string, string[]> = {};
  for (const [sub, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string' || !target.types) continue;
    paths[`${pkg.name}${sub.slice(1)}`] = [
      join(repoRoot, target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')),
    ];
  }
  return paths;
}

// The API reference (docs/reference/api/) is generated from the runtime's declarations, which tsc checks already; its
// blocks are signatures, not programs.
const generated = (page: string): boolean => page.startsWith('reference/api/');
// The tutorial's blocks are parts of its project's files, whose imports are relative to that project:
// test/e2e/tutorial.test.ts writes each where its page says, then builds, lints and tests the project.
const tutorial = (page: string): boolean => page.startsWith('tutorial/');
const snippets = markdownPages(docsRoot)
  .filter((page) => !generated(page) && !tutorial(page))
  .flatMap((page) => snippetsOf(page, readFileSync(join(docsRoot, page), 'utf8')));
// Under the repository (in the git-ignored .tmp/), so that other imports (vitest, yaml, …) resolve to its node_modules.
mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(repoRoot, '.tmp', 'docs-snippets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the TypeScript snippets of docs/', () => {
  it('finds the blocks, skips the partial ones, and knows the line each starts on', () => {
    const found = snippetsOf(
      'x.md',
      [
        '# x',
        '',
        '```ts',
        'const a = 1;',
        '```',
        '',
        '```ts partial',
        'a.b',
        '```',
        '~~~typescript',
        'let b;',
        '~~~',
        '```sh',
        'ls',
        '```',
      ].join('\n'),
    );
    expect(found.map((s) => [s.where, s.code])).toEqual([
      ['docs/x.md:4', 'const a = 1;'],
      ['docs/x.md:11', 'let b;'],
    ]);
    expect(snippets.length).toBeGreaterThan(5);
  });

  it('type-check against this checkout (kubescaffold/* resolves to src/), each reported as docs/<page>:<line>', () => {
    const files = snippets.map((s, n) => {
      const file = join(dir, `${s.page.replace(/[/.]/g, '_')}_${s.firstLine}_${n}.ts`);
      // `export {}` makes each block a module of its own, so that blocks on one page do not share names.
      writeFileSync(file, `${s.code}\nexport {};\n`);
      return { file, snippet: s };
    });
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node'],
        paths: packagePaths(),
      },
      files: files.map((f) => f.file),
    };
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
    const parsed = ts.parseJsonConfigFileContent(tsconfig, ts.sys, dir);
    expect(parsed.errors).toEqual([]);
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    const bySource = new Map(files.map((f) => [program.getSourceFile(f.file), f.snippet]));
    const failures = ts.getPreEmitDiagnostics(program).map((d) => {
      const snippet = d.file && bySource.get(d.file);
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return `(${d.code}) ${message}`;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      const where = snippet ? `docs/${snippet.page}:${snippet.firstLine + line}` : `${d.file.fileName}:${line + 1}`;
      return `${where}: ${message}`;
    });
    expect(failures).toEqual([]);
  });
});
