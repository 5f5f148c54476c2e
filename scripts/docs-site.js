#!/usr/bin/env node
// Builds the book (docs/) into docs/.vitepress/dist with VitePress, and fails on a broken link: VitePress fails the
// build on a link to a page that does not exist; the #anchors of links between pages, and links to files, are checked
// here after it. The tutorial's finished project (docs/tutorial/project) is published as files next to its pages.
// Usage: npm run docs   (or node scripts/docs-site.js <dir> for a book elsewhere, as the tests do)
import { cpSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vitepress';
import { brokenAnchors } from './lib/docs-anchors.js';
import { brokenFileLinks } from './lib/docs-files.js';

const docsRoot = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../docs/', import.meta.url));
const distRoot = join(docsRoot, '.vitepress', 'dist');

try {
  await build(docsRoot);
} catch (err) {
  console.error(`\nthe book did not build: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
const project = join(docsRoot, 'tutorial', 'project');
if (existsSync(project)) cpSync(project, join(distRoot, 'tutorial', 'project'), { recursive: true });
const broken = brokenAnchors(docsRoot, distRoot);
if (broken.length > 0) {
  console.error(`\n${broken.length} broken anchor link(s):\n${broken.map((b) => `  ${b}`).join('\n')}`);
  process.exit(1);
}
const missing = brokenFileLinks(distRoot);
if (missing.length > 0) {
  console.error(
    `\n${missing.length} link(s) to a file the site does not have:\n${missing.map((b) => `  ${b}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`\nthe book is in ${distRoot}`);
