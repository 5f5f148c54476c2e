import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApiReference } from '../../scripts/lib/api-reference.js';
import { publicEntryPoints } from '../../scripts/lib/public-api.js';
import { listFiles, tempDir } from '../support/files.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const committed = join(root, 'docs/reference/api');
const read = (dir: string, file: string): string => readFileSync(join(dir, file), 'utf8');

// The page of an entry point: src/runtime/rest/index.ts is @kubescaffold/runtime/rest, on @kubescaffold.runtime.rest.md;
// src/envtest/setup.ts is @kubescaffold/envtest/setup.
const moduleName = (entry: string): string =>
  '@kubescaffold/' + entry.replace(/^src\//, '').replace(/\/index\.ts$|\.ts$/, '');
const pageOf = (entry: string): string => moduleName(entry).replaceAll('/', '.') + '.md';

// Markdown outside fenced code blocks and inline code spans: what VitePress parses as Vue template text.
function prose(md: string): string {
  return md.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

// Heading anchors as GitHub and VitePress derive them (lower case, punctuation dropped, spaces to dashes, -N for
// repeats), plus the explicit <a id> anchors typedoc-plugin-markdown writes in table rows.
const anchorCache = new Map<string, Set<string>>();
function anchorsOf(page: string): Set<string> {
  const cached = anchorCache.get(page);
  if (cached) return cached;
  const md = read(committed, page);
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(md.replace(/`/g, '')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of md.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id!);
  anchorCache.set(page, anchors);
  return anchors;
}

describe('docs/reference/api (TypeDoc from the doc comments)', () => {
  const fresh = tempDir('kubescaffold-api-reference-');
  beforeAll(() => writeApiReference(fresh.path));
  afterAll(() => fresh.remove());

  it('is what the doc comments generate (run `npm run docs:reference` after changing an export or its comment)', () => {
    const files = listFiles(fresh.path);
    expect(listFiles(committed)).toEqual(files);
    for (const f of files) expect(read(committed, f), f).toBe(read(fresh.path, f));
  });

  it('has index.md linking a page for every entry point the packages export', () => {
    const index = read(committed, 'index.md');
    for (const entry of publicEntryPoints()) {
      expect(index, entry).toContain(`[${moduleName(entry)}](${pageOf(entry)})`);
      expect(read(committed, pageOf(entry)), entry).toMatch(new RegExp(`^# ${moduleName(entry)}\n`));
    }
  });

  it('documents every export of every entry point', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    );
    const program = ts.createProgram(
      publicEntryPoints().map((e) => join(root, e)),
      config!.options,
    );
    const checker = program.getTypeChecker();
    for (const entry of publicEntryPoints()) {
      const page = read(committed, pageOf(entry));
      const exports = checker.getExportsOfModule(
        checker.getSymbolAtLocation(program.getSourceFile(join(root, entry))!)!,
      );
      // Our own declarations; `k8s` (a namespace of @kubernetes/client-node's models) is documented by that package.
      const declaredIn = (s: ts.Symbol): ts.Declaration[] =>
        (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).declarations ?? [];
      const ours = exports.filter(
        (s) => !declaredIn(s).some((d) => d.getSourceFile().fileName.includes('/node_modules/')),
      );
      expect(ours.length, entry).toBeGreaterThan(0);
      for (const symbol of ours) {
        // As Markdown writes it (DEFAULT\\_PORT), as a regular expression.
        const name = symbol.name.replace(/_/g, '\\_').replace(/[\\$]/g, '\\$&');
        // Its own section, or a line pointing at the page that holds it (a name exported by several entry points).
        const section = new RegExp(`^#{3} ${name}(\\(\\))?$`, 'm');
        const reexport = new RegExp(
          `^(Re-exports|Renames and re-exports) \\[${name}\\]|^### ${name}\\n\\nRe-exports \\[`,
          'm',
        );
        expect(section.test(page) || reexport.test(page), `${entry}: ${symbol.name}`).toBe(true);
      }
    }
  });

  it("says what a namespace of another package's types holds (the runtime's k8s), which TypeDoc leaves out", () => {
    const namespaces: string[] = [];
    for (const entry of publicEntryPoints()) {
      const text = read(root, entry);
      const file = ts.createSourceFile(entry, text, ts.ScriptTarget.Latest, true);
      for (const statement of file.statements) {
        if (!ts.isExportDeclaration(statement) || !statement.exportClause) continue;
        if (!ts.isNamespaceExport(statement.exportClause)) continue;
        const name = statement.exportClause.name.text;
        namespaces.push(`${entry}: ${name}`);
        const comments = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
        expect(
          comments.some((c) => text.slice(c.pos, c.end).startsWith('/**')),
          `${entry}: a doc comment above export * as ${name}`,
        ).toBe(true);
        // excludeExternals drops it from the page: the module's own comment, at the top of the page, names it.
        expect(read(committed, pageOf(entry)).split('\n## ')[0], `${pageOf(entry)} names ${name}`).toContain(
          `\`${name}\``,
        );
      }
    }
    expect(namespaces).toEqual(['src/runtime/index.ts: k8s']);
  });

  it('is the same wherever it is generated: no dates, absolute paths or source links', () => {
    for (const f of listFiles(committed)) {
      const md = read(committed, f);
      expect(md, f).not.toContain(root);
      expect(md, f).not.toMatch(/Defined in|blob\/[0-9a-f]{7,}|\b20\d\d-\d\d-\d\d\b/);
    }
  });

  it('builds under VitePress: no {{ }} interpolation or raw tags outside code, and every link inside it resolves', () => {
    const files = listFiles(committed);
    for (const f of files) {
      const md = read(committed, f);
      const text = prose(md);
      expect(text, f).not.toContain('{{');
      // The only HTML the generator writes is the <a id> anchors of table rows; anything else would be a comment's
      // text read as a tag (`<T>` must arrive as &lt;T&gt; or \<T\>).
      expect(text.replace(/<a id="[^"]+"><\/a>/g, ''), f).not.toMatch(/(?<!\\)<[A-Za-z/!]/);
      for (const [, target] of md.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const page = file === '' ? f : file;
        expect(files, `${f} links to ${target}`).toContain(page);
        if (anchor !== undefined) expect([...anchorsOf(page)], `${f} links to ${target}`).toContain(anchor);
      }
    }
  });
});
