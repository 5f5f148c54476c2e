/**
 * Go constructs a migrating user writes in TypeScript, checked on small projects (the same cases with Go twins are
 * the go-constructs fixture, compared with the real controller-gen by parity.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { planError, planTypes, type Planned } from '../support/types-project.js';

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('ks-go-constructs-');
});
afterEach(() => dir.remove());

const manifests = (types: string): Planned => planTypes(dir.path, types);
const errorOf = (types: string): string => planError(dir.path, types);

const imports = "import type { int32, ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n";

describe('a Kind', () => {
  it('lists metadata in required when it is declared without ?', () => {
    const { crds } = manifests(
      `${imports}// +kubebuilder:object:root=true\nexport interface X extends TypeMeta { metadata: ObjectMeta }\n`,
    );
    expect(crds['go.example.com_xes.yaml']!.required).toEqual(['metadata']);
  });

  it('leaves metadata optional when it is declared with ?', () => {
    const { crds } = manifests(
      `${imports}// +kubebuilder:object:root=true\nexport interface X extends TypeMeta { metadata?: ObjectMeta }\n`,
    );
    expect(crds['go.example.com_xes.yaml']!.required).toBeUndefined();
  });
});

describe('a property declared again over an embedded one', () => {
  const inner = `${imports}export interface Inner {\n  /** inner */\n  name?: string;\n}\n`;
  const kind = (spec: string) =>
    `${inner}${spec}\n// +kubebuilder:object:root=true\nexport interface X extends TypeMeta { metadata?: ObjectMeta; spec: XSpec }\n`;
  const nameOf = (types: string) =>
    manifests(types).crds['go.example.com_xes.yaml']!.properties!.spec!.properties!.name!;

  it('keeps the description of the interface it extends', () => {
    expect(
      nameOf(kind('export interface XSpec extends Inner {\n  /** outer */\n  name?: string;\n}')).description,
    ).toBe('inner');
  });

  it.each([
    ['the own part first', 'export type XSpec = {\n  /** outer */\n  name?: string;\n} & Inner;'],
    ['the own part last', 'export type XSpec = Inner & {\n  /** outer */\n  name?: string;\n};'],
  ])('keeps the embedded description in A & B with %s', (_, spec) => {
    expect(nameOf(kind(spec)).description).toBe('inner');
  });

  it('is refused when the two declare different types, naming the property', () => {
    const message = errorOf(kind('export interface XSpec extends Inner {\n  /** outer */\n  name?: int32;\n}'));
    expect(message).toMatch(/thing_types\.ts:\d+:\d+: property name is integer here and string in the type it extends/);
  });
});

describe('finding Kinds as controller-gen does', () => {
  it('takes an interface extending TypeMeta with metadata: ObjectMeta as a Kind without the root marker', () => {
    const { crds } = manifests(`${imports}export interface Gadget extends TypeMeta { metadata?: ObjectMeta }\n`);
    expect(Object.keys(crds)).toEqual(['go.example.com_gadgets.yaml']);
  });

  it('takes an interface extending KubeObject as a Kind', () => {
    const { crds } = manifests(
      "import type { KubeObject } from '@kubescaffold/runtime';\nexport interface Gadget extends KubeObject { spec?: { a?: string } }\n",
    );
    expect(Object.keys(crds)).toEqual(['go.example.com_gadgets.yaml']);
  });

  it('refuses a root-marked interface with metadata but no TypeMeta instead of skipping it', () => {
    expect(
      errorOf(`${imports}// +kubebuilder:object:root=true\nexport interface Gadget { metadata?: ObjectMeta }\n`),
    ).toMatch(
      /thing_types\.ts:3:18: Gadget is marked \+kubebuilder:object:root and has metadata: ObjectMeta but does not extend TypeMeta, so it is not a Kind; write `export interface Gadget extends TypeMeta`/,
    );
  });

  it('refuses a root-marked type alias that names no Kind of another version', () => {
    expect(errorOf(`${imports}// +kubebuilder:object:root=true\nexport type Gadget = { a?: string };\n`)).toMatch(
      /thing_types\.ts:3:13: \+kubebuilder:object:root marks Gadget, which is not an interface and names no Kind of another version/,
    );
  });

  it('does not take a List (TypeMeta and ListMeta) or an unmarked object without TypeMeta as a Kind', () => {
    const { crds } = manifests(
      `import type { ListMeta, ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n` +
        `export interface Gadget extends TypeMeta { metadata?: ObjectMeta }\n` +
        `export interface GadgetList extends TypeMeta { metadata?: ListMeta; items: Gadget[] }\n` +
        `export interface Embedded { metadata?: ObjectMeta }\n`,
    );
    expect(Object.keys(crds)).toEqual(['go.example.com_gadgets.yaml']);
  });
});

describe('spellings of Go types', () => {
  const kind = (spec: string) =>
    "import type { bytes, int, ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n" +
    `${spec}\nexport interface X extends TypeMeta { metadata?: ObjectMeta; spec?: XSpec }\n`;
  const specOf = (types: string) => manifests(types).crds['go.example.com_xes.yaml']!.properties!.spec!;

  it('writes int as an integer without a format and bytes as a string with format byte', () => {
    const spec = specOf(kind('export interface XSpec { count?: int; data?: bytes; chunks?: bytes[] }'));
    expect(spec.properties).toEqual({
      count: { type: 'integer' },
      data: { type: 'string', format: 'byte' },
      chunks: { type: 'array', items: { type: 'string', format: 'byte' } },
    });
  });

  it('accepts +optional above extends and ignores it, as controller-gen does on an inline field', () => {
    const spec = specOf(
      kind(
        'export interface Inner { a: string }\nexport interface XSpec\n  // +optional\n  extends Inner {\n  b?: string;\n}',
      ),
    );
    expect(spec.required).toEqual(['a']);
    expect(Object.keys(spec.properties!)).toEqual(['a', 'b']);
  });

  it('accepts +optional above the second base of extends', () => {
    const spec = specOf(
      kind(
        'export interface Inner { a?: string }\nexport interface Other { c?: string }\n' +
          'export interface XSpec extends Inner,\n  // +optional\n  Other {}',
      ),
    );
    expect(Object.keys(spec.properties!)).toEqual(['a', 'c']);
  });

  it('refuses another marker above extends, saying where it belongs', () => {
    expect(
      errorOf(
        kind(
          'export interface Inner { a?: string }\nexport interface XSpec\n  // +kubebuilder:validation:MinProperties=1\n  extends Inner {}',
        ),
      ),
    ).toMatch(
      /thing_types\.ts:4:6: marker \+kubebuilder:validation:MinProperties on the embedded Inner has no effect; only \+optional may stand there/,
    );
  });

  it("drops Go's directive lines (//nolint:lll) from descriptions, as Go's doc extraction does", () => {
    const spec = specOf(
      kind('export interface XSpec {\n  // size of it.\n  //nolint:lll\n  // go:not a directive\n  size?: string;\n}'),
    );
    expect(spec.properties!.size!.description).toBe('size of it.\ngo:not a directive');
  });
});

describe('markers on a field of a named type', () => {
  it('keeps +kubebuilder:default="" (a set default, not a zero value to skip)', () => {
    const { crds } = manifests(
      `${imports}export type Group = string;\nexport interface XSpec {\n  // +kubebuilder:default=""\n  // +optional\n  group?: Group;\n}\n` +
        'export interface X extends TypeMeta { metadata?: ObjectMeta; spec?: XSpec }\n',
    );
    expect(crds['go.example.com_xes.yaml']!.properties!.spec!.properties!.group).toEqual({
      default: '',
      type: 'string',
    });
  });
});
