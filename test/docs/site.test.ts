import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { anchorLinks, brokenAnchors, githubAnchors, htmlIds, markdownPages } from '../../scripts/lib/docs-anchors.js';

// `npm run docs` builds the book with VitePress and fails on a broken link. CI runs `npm test` only, so the build
// is part of the suite: the real book must build, and a book with a dead link must not.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const docsRoot = join(repoRoot, 'docs');
const script = join(repoRoot, 'scripts', 'docs-site.js');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; files: string[] };
// Building a site takes tens of seconds on a loaded two-core machine.
const BUILD_MS = 300_000;

mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(repoRoot, '.tmp', 'docs-site-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const buildBook = (dir?: string) =>
  spawnSync(process.execPath, [script, ...(dir ? [dir] : [])], { cwd: repoRoot, encoding: 'utf8' });

describe('npm run docs', () => {
  it(
    'builds every page of docs/ with no dead link or broken anchor, showing the package version',
    { timeout: BUILD_MS },
    () => {
      const result = buildBook();
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const dist = join(docsRoot, '.vitepress', 'dist');
      for (const page of markdownPages(docsRoot))
        expect(existsSync(join(dist, page.replace(/\.md$/, '.html'))), page).toBe(true);
      expect(readFileSync(join(dist, 'index.html'), 'utf8')).toContain(`v${pkg.version}`);
    },
  );

  it(
    "fails, naming the page, when a page links to one that does not exist (with the book's own config)",
    { timeout: BUILD_MS },
    () => {
      const book = join(scratch, 'dead-link');
      mkdirSync(join(book, '.vitepress'), { recursive: true });
      writeFileSync(
        join(book, '.vitepress', 'config.ts'),
        `export { default } from ${JSON.stringify(join(docsRoot, '.vitepress', 'config.ts'))};\n`,
      );
      writeFileSync(join(book, 'index.md'), '# Home\n\nSee [the guide](guides/missing.md).\n');
      const result = buildBook(book);
      expect(result.status).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toMatch(/dead link[\s\S]*guides\/missing/i);
    },
  );

  it(
    'fails, naming the page and the link, when a page links to a file the site does not have',
    { timeout: BUILD_MS },
    () => {
      const book = join(scratch, 'dead-file');
      mkdirSync(join(book, '.vitepress'), { recursive: true });
      writeFileSync(
        join(book, '.vitepress', 'config.ts'),
        `export { default } from ${JSON.stringify(join(docsRoot, '.vitepress', 'config.ts'))};\n`,
      );
      writeFileSync(join(book, 'index.md'), '# Home\n\nSee [the code](./project/missing.ts).\n');
      const result = buildBook(book);
      expect(result.status).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toMatch(
        /a file the site does not have:\s+index\.html: \.\/project\/missing\.ts/,
      );
    },
  );

  it("keeps the site's build output and config out of the npm package", () => {
    expect(pkg.files).toContain('docs');
    expect(pkg.files).toContain('!docs/.vitepress');
  });
});

describe('the anchor check', () => {
  const page = [
    '# The page',
    '## `scaffold init` flags',
    '## Same',
    '## Same',
    '```md',
    '[not a link](#in-code)',
    '```',
    'See [init](#scaffold-init-flags), [twice](#same-1), `[code](#x)`, [web](https://example.com/#x) and [other](other.md#top).',
  ].join('\n');

  it('reads the links with a #fragment outside code, and where they are', () => {
    expect(anchorLinks(page)).toEqual([
      { target: '', anchor: 'scaffold-init-flags', line: 8 },
      { target: '', anchor: 'same-1', line: 8 },
      { target: 'other.md', anchor: 'top', line: 8 },
    ]);
  });

  it('spells headings as GitHub does, inline code and repeats included', () => {
    expect([...githubAnchors(page)]).toEqual(['the-page', 'scaffold-init-flags', 'same', 'same-1']);
  });

  it('names each link whose anchor the target page does not have, at its page and line', () => {
    const book = join(scratch, 'anchors');
    mkdirSync(join(book, '.vitepress', 'dist', 'guides'), { recursive: true });
    mkdirSync(join(book, 'guides'));
    writeFileSync(join(book, 'index.md'), '# Home\n\n[ok](guides/a.md#real), [bad](guides/a.md#gone)\n');
    writeFileSync(join(book, 'guides', 'a.md'), '# A\n\n## Real\n\n[back](../index.md#home)\n');
    writeFileSync(join(book, '.vitepress', 'dist', 'index.html'), '<h1 id="home">Home</h1>');
    writeFileSync(join(book, '.vitepress', 'dist', 'guides', 'a.html'), '<h1 id="a">A</h1><h2 id="real">Real</h2>');
    expect(htmlIds('<h2 id="real" tabindex="-1">')).toEqual(new Set(['real']));
    expect(brokenAnchors(book, join(book, '.vitepress', 'dist'))).toEqual([
      'docs/index.md:3: #gone is not a heading of guides/a.md in the site',
    ]);
  });
});
