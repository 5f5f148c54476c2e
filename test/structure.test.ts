// The layering of src/, checked on its import graph. The CLI is on top; below it the generators, the scaffold and
// the cluster commands; at the bottom a leaf layer everyone may use. The runtime stands alone on the leaf layer,
// since operators load it without the rest. Every import counts: static, `export ... from`, dynamic import() of a
// literal path, and `import type` (types couple modules too). A test rather than an eslint rule, because the rules
// are about folders and their relations, which a few lines here say more plainly than per-directory lint config.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** The leaf layer: what everything may import, and which imports nothing of ours outside itself. */
const LEAF = ['errors.ts', 'diagnostics.ts', 'project/', 'json/', 'certs/', 'yaml/'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every relative import of every file in src/, as paths relative to src/. */
function importGraph(): Array<{ from: string; to: string; statement: string }> {
  const edges: Array<{ from: string; to: string; statement: string }> = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(pattern)) {
      const target = relative(src, resolve(dirname(file), m[1]!)).replace(/\.js$/, '.ts');
      edges.push({ from: relative(src, file), to: target, statement: m[0].trim() });
    }
  }
  return edges;
}

const inLeaf = (path: string): boolean => LEAF.some((l) => (l.endsWith('/') ? path.startsWith(l) : path === l));
const under = (dir: string) => (path: string): boolean => path.startsWith(dir);
const describeEdges = (edges: Array<{ from: string; statement: string }>): string[] => edges.map((e) => `${e.from}: ${e.statement}`);

describe('the layering of src/', () => {
  const edges = importGraph();

  it('reads a real import graph', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges.some((e) => e.from === 'cli/index.ts' && e.to === 'errors.ts')).toBe(true);
  });

  it('lets nothing outside src/cli import src/cli', () => {
    expect(describeEdges(edges.filter((e) => !under('cli/')(e.from) && under('cli/')(e.to)))).toEqual([]);
  });

  it('keeps the leaf layer free of imports of anything of ours outside it', () => {
    expect(describeEdges(edges.filter((e) => inLeaf(e.from) && !inLeaf(e.to)))).toEqual([]);
  });

  it('keeps the runtime standing alone on the leaf layer', () => {
    expect(describeEdges(edges.filter((e) => under('runtime/')(e.from) && !under('runtime/')(e.to) && !inLeaf(e.to)))).toEqual([]);
  });

  it('keeps the generators, scaffold, kustomize, cluster and envtest from importing the CLI above them', () => {
    const lower = ['scaffold/', 'markers/', 'crd/', 'rbac/', 'webhookgen/', 'generate/', 'kustomize/', 'cluster/', 'envtest/'];
    expect(describeEdges(edges.filter((e) => lower.some((d) => e.from.startsWith(d)) && under('cli/')(e.to)))).toEqual([]);
  });
});
