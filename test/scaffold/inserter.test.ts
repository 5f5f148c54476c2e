import { describe, expect, it } from 'vitest';
import { fragmentExists, insertFragments } from '../../src/scaffold/inserter.js';

describe('fragmentExists', () => {
  it('matches trimmed lines regardless of indentation', () => {
    expect(fragmentExists('a\n    foo();\n  bar();\nb', 'foo();\nbar();')).toBe(true);
  });

  it('requires the lines to be adjacent and in order', () => {
    expect(fragmentExists('foo();\nx\nbar();', 'foo();\nbar();')).toBe(false);
    expect(fragmentExists('bar();\nfoo();', 'foo();\nbar();')).toBe(false);
  });
});

describe('insertFragments', () => {
  const main =
    "import a from 'a';\n// +kubebuilder:scaffold:imports\n\nfunction f() {\n  // +kubebuilder:scaffold:builder\n}\n";

  it('inserts above the marker, indented like it', () => {
    const { content } = insertFragments('cmd/main.ts', main, { builder: ['setup(mgr);'] });
    expect(content).toBe(
      "import a from 'a';\n// +kubebuilder:scaffold:imports\n\nfunction f() {\n  setup(mgr);\n  // +kubebuilder:scaffold:builder\n}\n",
    );
  });

  it('keeps earlier insertions above later ones', () => {
    const once = insertFragments('cmd/main.ts', main, { imports: ["import b from 'b';"] }).content;
    const twice = insertFragments('cmd/main.ts', once, { imports: ["import c from 'c';"] }).content;
    expect(twice).toContain("import b from 'b';\nimport c from 'c';\n// +kubebuilder:scaffold:imports");
  });

  it('never inserts a fragment that is already there', () => {
    const once = insertFragments('cmd/main.ts', main, { imports: ["import b from 'b';"] }).content;
    expect(insertFragments('cmd/main.ts', once, { imports: ["import b from 'b';"] }).content).toBe(once);
  });

  it('uses # markers in YAML', () => {
    const yaml = 'resources:\n# +kubebuilder:scaffold:crdkustomizeresource\n';
    expect(
      insertFragments('config/crd/kustomization.yaml', yaml, { crdkustomizeresource: ['- bases/a.yaml'] }).content,
    ).toBe('resources:\n- bases/a.yaml\n# +kubebuilder:scaffold:crdkustomizeresource\n');
  });

  it('reports markers it could not find', () => {
    expect(insertFragments('cmd/main.ts', 'nothing here\n', { imports: ['x'] }).missingMarkers).toEqual(['imports']);
  });
});
