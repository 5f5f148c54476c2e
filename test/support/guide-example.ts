/**
 * Running a guide's example as its page shows it: the TypeScript block under a heading is written to a module of its
 * own (in the git-ignored .tmp/) and imported, so that a test exercises the very code a reader copies, and a guide
 * that changes its example changes what the test runs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codeBlocks } from './markdown.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The first ```ts block after the heading `heading` of docs/<page>, with a message naming both if there is none. */
export function guideBlock(page: string, heading: string): string {
  const markdown = readFileSync(join(repoRoot, 'docs', page), 'utf8');
  const at = markdown.split('\n').findIndex((l) => l.trim() === heading);
  if (at < 0) throw new Error(`docs/${page} has no heading "${heading}"`);
  const block = codeBlocks(markdown).find((b) => b.line > at && (b.lang === 'ts' || b.lang === 'typescript'));
  if (!block) throw new Error(`docs/${page} has no TypeScript block after "${heading}"`);
  return block.text;
}

/** Imports the block as a module (its package imports resolve to this checkout's sources, as the tests' do). */
export async function importGuideBlock<M>(page: string, heading: string, file: string): Promise<M> {
  mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, '.tmp', 'guide-example-'));
  const path = join(dir, file);
  writeFileSync(path, guideBlock(page, heading));
  try {
    return (await import(pathToFileURL(path).href)) as M;
  } finally {
    // Once imported the module lives on in memory; the file was only the way in.
    rmSync(dir, { recursive: true, force: true });
  }
}
