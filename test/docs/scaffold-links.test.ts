import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listFiles } from '../support/files.js';

// Scaffolded files point into the book as the project installed it, node_modules/kubescaffold/docs/<page>: those
// are the docs of exactly the kubescaffold version the project uses, readable offline, with no repository URL to
// guess. These tests keep every such pointer on a page that exists.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const pointer = /node_modules\/kubescaffold\/docs\/([\w./-]+\.md)/g;

function pointers(dir: string): Array<{ where: string; page: string }> {
  return listFiles(join(repoRoot, dir)).flatMap((file) =>
    [...readFileSync(join(repoRoot, dir, file), 'utf8').matchAll(pointer)].map((m) => ({
      where: `${dir}/${file}`,
      page: m[1]!,
    })),
  );
}

describe('links from scaffolded files into the book', () => {
  const found = [...pointers('templates'), ...pointers('src')];

  it('name pages that exist in docs/ (which the npm package carries)', () => {
    const missing = found
      .filter((p) => !existsSync(join(repoRoot, 'docs', p.page)))
      .map((p) => `${p.where}: docs/${p.page}`);
    expect(missing).toEqual([]);
    const packed = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { files: string[] };
    expect(packed.files).toContain('docs');
  });

  it("point at our guides where the templates pointed at kubebuilder's book", () => {
    const pages = new Set(found.filter((p) => p.where.startsWith('templates/')).map((p) => p.page));
    for (const page of [
      'guides/metrics.md',
      'guides/memory.md',
      'guides/webhooks.md',
      'guides/sharding.md',
      'types.md',
      'reference/markers.md',
    ])
      expect(pages, page).toContain(page);
    const kubebuilderBook = listFiles(join(repoRoot, 'templates')).filter((f) =>
      readFileSync(join(repoRoot, 'templates', f), 'utf8').includes('book.kubebuilder.io'),
    );
    expect(kubebuilderBook).toEqual([]);
  });
});
