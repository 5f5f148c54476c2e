// Marker names are written once, in their definitions (src/markers/defs); the generators refer to the definitions.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const GENERATORS = ['markers', 'crd', 'rbac', 'webhookgen', 'generate'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The text of every string and template literal in a file (comments are not literals). */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('marker names in the generators', () => {
  it('spells `kubebuilder:` names only in src/markers/defs', () => {
    const files = GENERATORS.flatMap((d) => sources(join(src, d))).filter(
      (f) => !relative(src, f).startsWith('markers/defs/'),
    );
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) =>
      literals(f)
        .filter((text) => text.includes('kubebuilder:'))
        .map((text) => `${relative(src, f)}: ${text}`),
    );
    expect(found).toEqual([]);
  });

  it('finds such names where they are (the check reads literals)', () => {
    expect(literals(join(src, 'markers/defs/crd.ts')).some((text) => text === 'kubebuilder:resource')).toBe(true);
  });
});
