// Checks the #anchors of the links between the book's pages, which VitePress's dead-link check leaves out: a link
// `page.md#section` must name a heading of page.md, both as the built site spells its ids and as GitHub does, since
// the same Markdown is read in both places.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/**
 * Every .md file below `root`, as paths relative to it with '/' separators, skipping dot-folders, node_modules, and
 * scaffolded projects (a folder with a PROJECT file, such as the tutorial's), which the book publishes as files.
 */
export function markdownPages(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      if (e.isDirectory() && existsSync(join(dir, e.name, 'PROJECT'))) continue;
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(relative(root, join(dir, e.name)).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** Markdown text with fenced code blocks and inline code spans blanked out (line numbers are kept). */
function prose(markdown) {
  let inFence = null;
  return markdown
    .split('\n')
    .map((line) => {
      const fence = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence) {
        if (inFence === null) inFence = fence[1][0];
        else if (fence[1][0] === inFence) inFence = null;
        return '';
      }
      return inFence === null ? line.replace(/`+[^`]*`+/g, '') : '';
    })
    .join('\n');
}

/** The links of a Markdown page that carry a #fragment and point into the book: { target, anchor, line }. */
export function anchorLinks(markdown) {
  const links = [];
  prose(markdown)
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)) {
        const [target, anchor] = m[1].split('#');
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …: not ours to check
        links.push({ target, anchor: decodeURIComponent(anchor), line: i + 1 });
      }
    });
  return links;
}

/** The ids a built HTML page defines. */
export function htmlIds(html) {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
}

/** The anchors GitHub gives a Markdown page's headings (its slugger: lower case, punctuation dropped, spaces to '-'). */
export function githubAnchors(markdown) {
  const seen = new Map();
  const out = new Set();
  // Backticks go before prose() blanks code spans: a heading's inline code is part of its slug.
  const headingsKept = markdown.replace(/^(#{1,6}\s.*)$/gm, (h) => h.replace(/`/g, ''));
  for (const line of prose(headingsKept).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    out.add(unique(githubSlug(h[1]), seen));
  }
  // Explicit anchors (typedoc-plugin-markdown writes <a id> in table rows); GitHub keeps them, prefixed, and jumps to them.
  for (const m of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/**
 * GitHub's slug of a heading's text. The site uses it too (VitePress's own slugify turns '_' into '-'), so one link
 * works on GitHub and in the site.
 */
export function githubSlug(heading) {
  return heading
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');
}

function unique(base, seen) {
  const n = seen.get(base) ?? 0;
  seen.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}

/**
 * Every broken anchor link of the book at `docsRoot`, built into `distRoot`, as "docs/page.md:line: message".
 * `page.md` becomes `page.html` in the build; a link to a page that is not built is VitePress's to report.
 */
export function brokenAnchors(docsRoot, distRoot) {
  const problems = [];
  const rawText = (page) => readFileSync(join(docsRoot, page), 'utf8');
  for (const page of markdownPages(docsRoot)) {
    for (const { target, anchor, line } of anchorLinks(rawText(page))) {
      const targetPage = target === '' ? page : posix.normalize(posix.join(posix.dirname(page), target));
      if (!targetPage.endsWith('.md')) continue;
      let html;
      let markdown;
      try {
        markdown = rawText(targetPage);
        html = readFileSync(join(distRoot, targetPage.replace(/\.md$/, '.html')), 'utf8');
      } catch {
        continue; // a missing page: VitePress's dead-link check names it
      }
      const where = `docs/${page}:${line}`;
      if (!htmlIds(html).has(anchor))
        problems.push(`${where}: #${anchor} is not a heading of ${targetPage} in the site`);
      else if (!githubAnchors(markdown).has(anchor))
        problems.push(`${where}: #${anchor} is not a heading of ${targetPage} on GitHub`);
    }
  }
  return problems;
}
