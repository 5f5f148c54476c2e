import { describe, expect, it } from 'vitest';
import { collectFile, type SourceInfo } from '../../src/markers/collector.js';
import { extractDoc } from '../../src/markers/docs.js';
import { ts } from '../../src/markers/typescript.js';

const collect = (text: string): SourceInfo => collectFile('/p/api/v1/x_types.ts', text);

function property(info: SourceInfo, typeName: string, prop: string) {
  const decl = info.types.get(typeName)!;
  const node = (decl.node as import('typescript').InterfaceDeclaration).members.find(
    (m) => ts.isPropertySignature(m) && (m.name as import('typescript').Identifier).text === prop,
  )!;
  return info.members.get(node)!;
}

describe('marker placement', () => {
  it('attaches // + lines and JSDoc directly above a declaration to it', () => {
    const info = collect(`
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
/** Captain is the Schema for the captains API. */
export interface Captain {
  /** spec of the captain */
  // +required
  spec: string;
}
`);
    const decl = info.types.get('Captain')!;
    expect(decl.markers.list.map((m) => m.name)).toEqual(['kubebuilder:object:root', 'kubebuilder:subresource:status']);
    expect(decl.doc).toBe('Captain is the Schema for the captains API.');
    const spec = property(info, 'Captain', 'spec');
    expect(spec.markers.has('required')).toBe(true);
    expect(spec.doc).toBe('spec of the captain');
    expect(info.diagnostics.empty).toBe(true);
  });

  it('reads markers written inside a JSDoc and keeps them out of the description', () => {
    const info = collect(`
export interface Spec {
  /**
   * replicas is the number of pods.
   * +kubebuilder:validation:Minimum=1
   * +optional
   */
  replicas?: number;
}
`);
    const r = property(info, 'Spec', 'replicas');
    expect(r.markers.get('kubebuilder:validation:Minimum')?.value).toBe(1);
    expect(r.markers.has('optional')).toBe(true);
    expect(r.doc).toBe('replicas is the number of pods.');
  });

  it('takes type markers from the block above the doc comment, and package markers from it too', () => {
    const info = collect(`
// +kubebuilder:object:root=true
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get

/** Thing is a thing. */
export interface Thing {
  a: string;
}
`);
    expect(info.types.get('Thing')!.markers.has('kubebuilder:object:root')).toBe(true);
    expect(info.packageMarkers.map((m) => m.name)).toEqual(['kubebuilder:rbac']);
  });

  it('treats free-standing comments anywhere, including class bodies, as package markers', () => {
    const info = collect(`
// +groupName=crew.example.com

/** GroupVersion is the group and version. */
export const GroupVersion = { group: 'crew.example.com', version: 'v1' } as const;

export class Reconciler {
  // +kubebuilder:rbac:groups="",resources=pods,verbs=get
  /** reconcile does it. +kubebuilder:not-a-marker-mid-line */
  async reconcile(): Promise<void> {
    // +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list
  }
}
`);
    expect(info.packageMarkers.map((m) => [m.name, m.value])).toEqual([
      ['groupName', 'crew.example.com'],
      ['kubebuilder:rbac', { groups: [''], resources: ['pods'], verbs: ['get'] }],
      ['kubebuilder:rbac', { groups: ['apps'], resources: ['deployments'], verbs: ['list'] }],
    ]);
  });

  it('finds package markers in every comment and none inside strings, templates or regular expressions, with or without syntax errors', () => {
    const text = `#!/usr/bin/env node // +kubebuilder:rbac:groups=shebang,resources=a,verbs=get
const s = '// +kubebuilder:rbac:groups=string,resources=a,verbs=get'; // +kubebuilder:rbac:groups=one,resources=a,verbs=get
const t = \`/* +kubebuilder:rbac:groups=template,resources=a,verbs=get */ \${x /** +kubebuilder:rbac:groups=two,resources=a,verbs=get */} \${\`//\${y}\`}\`;
const r = /\\/\\/ +kubebuilder:rbac:groups=regexp/.test(s) / 2; /** +kubebuilder:rbac:groups=three,resources=a,verbs=get */
type T = \`\${string}// +kubebuilder:rbac:groups=type,resources=a,verbs=get\`;
// +kubebuilder:rbac:groups=four,resources=a,verbs=get`;
    const groups = (info: SourceInfo) => info.packageMarkers.map((m) => (m.value as { groups: string[] }).groups[0]);
    expect(groups(collect(text))).toEqual(['one', 'two', 'three', 'four']);
    // a file with syntax errors has its comments found token by token; the same ones
    const broken = collect(`${text}\nconst = ;`);
    expect(broken.diagnostics.empty).toBe(false);
    expect(groups(broken)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('ignores markers of other tools and the scaffold insertion points', () => {
    const info = collect(`
// +kubebuilder:scaffold:imports
// +genclient
// +k8s:deepcopy-gen=package
export const x = 1;
`);
    expect(info.packageMarkers).toEqual([]);
    expect(info.diagnostics.empty).toBe(true);
  });

  it('reports unknown, misplaced and malformed markers with their position', () => {
    const info = collect(`export interface Spec {
  // +kubebuilder:validation:Maximun=3
  a: string;
  // +kubebuilder:storageversion
  b: string;
  //   +kubebuilder:validation:MaxLength=many
  c: string;
}
`);
    expect(info.diagnostics.items.map((d) => `${d.line}:${d.column}: ${d.message.split(';')[0]}`)).toEqual([
      '2:6: unknown marker +kubebuilder:validation:Maximun',
      '4:6: marker +kubebuilder:storageversion cannot stand on a property',
      '6:42: invalid marker +kubebuilder:validation:MaxLength: expected integer, got "many"',
    ]);
    expect(info.diagnostics.items[0]!.message).toMatch(/did you mean \+kubebuilder:validation:Maximum\?/);
  });

  // Found by fuzzing (test/fuzz/marker-grammar.test.ts): the did-you-mean search built an edit-distance table of the
  // whole name against every marker, minutes for a name of a megabyte.
  it('reports an unknown marker with a name a megabyte long, suggesting nothing, within the test bound', () => {
    const name = `kubebuilder:validation:${'[{"a":'.repeat(180_000)}`;
    const info = collect(`export interface Spec {\n  // +${name}\n  a: string;\n}\n`);
    expect(info.diagnostics.items).toHaveLength(1);
    expect(info.diagnostics.items[0]!.message).toBe(`unknown marker +${name}`);
  });

  // Found by fuzzing: a marker line cut by a newline left `{a:{a:...` as code, and the parser's RangeError escaped.
  it('reports a file nested too deeply for the parser as a diagnostic, not a stack overflow', () => {
    const info = collect(`export interface Spec {\n  a: ${'{a:'.repeat(50_000)}\n}\n`);
    expect(info.diagnostics.items.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      '1:1: cannot read this file: it nests too deeply for the TypeScript parser',
    ]);
    expect(info.types.size).toBe(0);
  });

  it('reports syntax errors instead of reading half a type', () => {
    const info = collect(`export interface Spec {
  a: string
  b: ;
}
`);
    expect(info.diagnostics.items.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      '3:6: syntax error: Type expected.',
    ]);
  });

  it('accepts := for anonymous markers and +default= as JSON', () => {
    const info = collect(`export interface Spec {
  // +kubebuilder:validation:MinItems:=1
  // +default=["a","b"]
  a: string[];
}
`);
    const a = property(info, 'Spec', 'a');
    expect(a.markers.get('kubebuilder:validation:MinItems')?.value).toBe(1);
    expect(a.markers.get('default')?.value).toEqual(['a', 'b']);
  });
});

describe('descriptions', () => {
  it('drops TODO lines, stops at ---, keeps fenced code and paragraph breaks', () => {
    const doc = extractDoc([
      {
        text: `/**
 * Spec is the spec.
 * TODO: remove this.
 *
 * Example:
 * \`\`\`
 * TODO stays inside a fence
 * ---
 * \`\`\`
 *   indented line
 * ---
 * hidden
 */`,
      },
    ]);
    expect(doc).toBe('Spec is the spec.\n\nExample:\n```\nTODO stays inside a fence\n---\n```\n  indented line');
  });

  it('joins // comment lines and leaves out markers and lint directives', () => {
    const doc = extractDoc([
      { text: '// foo is a field.' },
      { text: '// eslint-disable-next-line no-foo' },
      { text: '// +optional' },
      { text: '// More text.' },
    ]);
    expect(doc).toBe('foo is a field.\nMore text.');
  });
});
