/**
 * The deliberate differences from controller-gen v0.21.0, one test each: src/markers/README.md's table names the test
 * of every row, and this file holds those that no other test shows.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinTypeSchema } from '../../src/crd/k8s_schemas/index.js';
import { tempDir } from '../support/files.js';
import { parse } from 'yaml';
import { planError, planTypes, type Planned, type Schema } from '../support/types-project.js';

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('ks-differences-');
});
afterEach(() => dir.remove());

const kind = (spec: string): string =>
  "import type { ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n" +
  `${spec}\nexport interface X extends TypeMeta { metadata?: ObjectMeta; spec?: XSpec }\n`;
const plan = (spec: string): Planned => planTypes(dir.path, kind(spec));
const specOf = (spec: string): Schema => plan(spec).crds['go.example.com_xes.yaml']!.properties!.spec!;

describe('differences from controller-gen v0.21.0', () => {
  it('annotates CRDs with kubescaffold.io/version instead of controller-gen.kubebuilder.io/version', () => {
    const crd = plan('export interface XSpec { a?: string }').texts['config/crd/bases/go.example.com_xes.yaml']!;
    expect(crd).toContain('    kubescaffold.io/version: (devel)\n');
    expect(crd).not.toContain('controller-gen.kubebuilder.io');
  });

  it("follows controller-tools' grammar after v0.21.0: a bare string keeps its colon, 100Mi is a string", () => {
    const spec = specOf(
      'export interface XSpec {\n  // +kubebuilder:default=100Mi\n  size?: string;\n' +
        '  // +kubebuilder:externalDocs:url=https://example.com/docs\n  docs?: string;\n}',
    );
    expect(spec.properties!.size!.default).toBe('100Mi');
    expect(spec.properties!.docs!.externalDocs).toEqual({ url: 'https://example.com/docs' });
  });

  it('supports +k8s:listType, a marker controller-tools added after v0.21.0', () => {
    const spec = specOf('export interface XSpec {\n  // +k8s:listType=set\n  tags?: string[];\n}');
    expect(spec.properties!.tags!['x-kubernetes-list-type']).toBe('set');
  });

  it('refuses an unknown +kubebuilder: marker that controller-gen ignores, naming the closest known one', () => {
    expect(
      planError(
        dir.path,
        kind('// +kubebuilder:validation:OneOf=a,b\nexport interface XSpec { a?: string; b?: string }'),
      ),
    ).toMatch(/thing_types\.ts:2:4: unknown marker \+kubebuilder:validation:OneOf; did you mean/);
  });

  it('takes markers controller-gen rejects on fields of named array types, checking them against the type', () => {
    const spec = specOf(
      'export type Steps = string[];\nexport interface XSpec {\n  // +kubebuilder:validation:MinItems=1\n  steps?: Steps;\n}',
    );
    expect(spec.properties!.steps).toEqual({ items: { type: 'string' }, minItems: 1, type: 'array' });
  });

  it('makes T | null nullable, where Go needs +nullable', () => {
    const spec = specOf('export interface XSpec {\n  note?: string | null;\n}');
    expect(spec.properties!.note).toEqual({ nullable: true, type: 'string' });
  });

  it('checks externalDocs URLs with a simpler rule than url.ParseRequestURI: an opaque URI is refused', () => {
    expect(
      planError(
        dir.path,
        kind(
          'export interface XSpec {\n  // +kubebuilder:externalDocs:url="mailto:docs@example.com"\n  a?: string;\n}',
        ),
      ),
    ).toMatch(/invalid url "mailto:docs@example\.com" in kubebuilder:externalDocs marker/);
  });

  it('gives k8s.* types the schemas of k8s.io/api v0.37.1, whatever a Go module would require', () => {
    // NodeSystemInfo.runningInUserNamespace appeared in v0.37: Cluster API v1.14 requires v0.36.3, which lacks it.
    expect(builtinTypeSchema('V1NodeSystemInfo')!.properties!.runningInUserNamespace).toBeDefined();
  });

  it('arranges a value set on two embedded types and the struct in another allOf than controller-gen (same constraints)', () => {
    const spec = specOf(
      'export interface A {\n  /** from A */\n  // +kubebuilder:validation:MaxLength=5\n  name?: string;\n}\n' +
        'export interface B {\n  /** from B */\n  // +kubebuilder:validation:MaxLength=6\n  name?: string;\n}\n' +
        'export interface XSpec extends A, B {\n  /** own */\n  // +kubebuilder:validation:MaxLength=7\n  name?: string;\n}',
    );
    // controller-gen v0.21.0: allOf [7, 5] and maxLength 6; both keep all three bounds and A's description.
    expect(spec.properties!.name).toEqual({
      allOf: [{ maxLength: 5 }, { maxLength: 6 }],
      description: 'from A',
      maxLength: 7,
      type: 'string',
    });
  });

  it('has no flag for the options it does not port (crd:generateEmbeddedObjectMeta, headerFile, crdVersions)', () => {
    const bin = join(import.meta.dirname, '../../bin/scaffold.js');
    const r = spawnSync(process.execPath, [bin, 'manifests', '--generate-embedded-object-meta'], {
      cwd: dir.path,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/unknown option '--generate-embedded-object-meta'/);
  });
});

describe('markers of ours, for what controller-gen has no marker for', () => {
  it('takes oneOf, anyOf, allOf and not as JSON, on fields and on fields of named types', () => {
    const spec = specOf(
      'export type Code = string;\n' +
        '// +kubescaffold:validation:OneOf=[{"required":["a"]},{"required":["b"]}]\n' +
        'export interface XSpec {\n' +
        '  // +kubescaffold:validation:AnyOf=[{"minLength":2},{"maxLength":0}]\n' +
        '  // +kubescaffold:validation:Not={"enum":["no"]}\n  a?: string;\n' +
        '  // +kubebuilder:validation:MaxLength=9\n  // +kubescaffold:validation:AllOf=[{"minLength":1}]\n  b?: Code;\n}',
    );
    expect(spec.oneOf).toEqual([{ required: ['a'] }, { required: ['b'] }]);
    expect(spec.properties!.a).toEqual({
      type: 'string',
      anyOf: [{ minLength: 2 }, { maxLength: 0 }],
      not: { enum: ['no'] },
    });
    expect(spec.properties!.b).toEqual({ type: 'string', maxLength: 9, allOf: [{ minLength: 1 }] });
  });

  it('keeps a required order given by RequiredOrder, and refuses one that does not name each required field once', () => {
    const spec = specOf(
      '// +kubescaffold:validation:RequiredOrder=secretName;key\nexport interface XSpec { key: string; secretName: string }',
    );
    expect(spec.required).toEqual(['secretName', 'key']);
    expect(
      planError(
        dir.path,
        kind(
          '// +kubescaffold:validation:RequiredOrder=key\nexport interface XSpec { key: string; secretName: string }',
        ),
      ),
    ).toMatch(/RequiredOrder: names key, but the required properties are key, secretName/);
  });

  it('applies a schema patch after every other marker, even where those markers refuse the key', () => {
    const spec = specOf(
      'export interface XSpec {\n  // +kubescaffold:schema:patch={"maxLength":253,"items":{"description":"a host"}}\n  hosts?: string[];\n}',
    );
    expect(spec.properties!.hosts).toEqual({
      type: 'array',
      maxLength: 253,
      items: { type: 'string', description: 'a host' },
    });
  });

  it('takes type: number on one field marked Type=number, without --allow-dangerous-types', () => {
    const spec = specOf(
      'export interface XSpec {\n  // +kubebuilder:validation:Type=number\n  ratio?: number | null;\n}',
    );
    expect(spec.properties!.ratio).toEqual({ type: 'number', nullable: true });
    expect(planError(dir.path, kind('export interface XSpec { ratio?: number }'))).toMatch(/--allow-dangerous-types/);
  });

  it("sets the CRD's listKind, singular, preserveUnknownFields and conversion", () => {
    const spec = (
      parse(
        planTypes(
          dir.path,
          "import type { ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n" +
            '// +kubescaffold:crd:listKind=""\n// +kubescaffold:crd:singular=""\n' +
            '// +kubescaffold:crd:preserveUnknownFields=false\n// +kubescaffold:crd:conversion={"strategy":"None"}\n' +
            'export interface X extends TypeMeta { metadata?: ObjectMeta }\n',
        ).texts['config/crd/bases/go.example.com_xes.yaml']!,
      ) as { spec: Record<string, unknown> }
    ).spec;
    expect(spec.names).toEqual({ kind: 'X', plural: 'xes' });
    expect(spec.preserveUnknownFields).toBe(false);
    expect(spec.conversion).toEqual({ strategy: 'None' });
  });

  it("applies a version patch after the version's other markers", () => {
    const crd = parse(
      planTypes(
        dir.path,
        "import type { ObjectMeta, TypeMeta } from '@kubescaffold/runtime';\n" +
          '// +kubescaffold:version:patch={"subresources":null,"deprecated":false}\n' +
          '// +kubebuilder:printcolumn:name="A",type=string,JSONPath=`.a`\n' +
          'export interface X extends TypeMeta { metadata?: ObjectMeta; a?: string }\n',
      ).texts['config/crd/bases/go.example.com_xes.yaml']!,
    ) as { spec: { versions: Record<string, unknown>[] } };
    const version = crd.spec.versions[0]!;
    expect(version.subresources).toBeUndefined();
    expect(version.deprecated).toBe(false);
    expect(version.additionalPrinterColumns).toEqual([{ name: 'A', type: 'string', jsonPath: '.a' }]);
  });

  it('refuses a root-marked interface that extends TypeMeta and has no metadata, which would make no CRD', () => {
    expect(
      planError(
        dir.path,
        "import type { TypeMeta } from '@kubescaffold/runtime';\n// +kubebuilder:object:root=true\nexport interface X extends TypeMeta { spec?: string }\n",
      ),
    ).toMatch(/X is marked \+kubebuilder:object:root and extends TypeMeta but has neither metadata nor items/);
  });

  it('refuses an unknown +kubescaffold: marker, as it refuses an unknown +kubebuilder: one', () => {
    expect(
      planError(dir.path, kind('// +kubescaffold:validation:OneOff=[]\nexport interface XSpec { a?: string }')),
    ).toMatch(/unknown marker \+kubescaffold:validation:OneOff; did you mean \+kubescaffold:validation:OneOf/);
  });
});

describe("src/markers/README.md's table of differences", () => {
  const readme = readFileSync(join(import.meta.dirname, '../../src/markers/README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| difference | why | test |'));
  const rows = table
    .split('\n')
    .slice(2)
    .filter((l) => l.startsWith('|'));
  const tests = (file: string): string => readFileSync(join(import.meta.dirname, '../..', file), 'utf8');

  it('has a row for each difference, each naming a test that exists', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) {
      const cells = row.split(/(?<!\\)\|/).map((c) => c.trim());
      const cell = cells[cells.length - 2]!;
      expect(cell, row).not.toBe('');
      for (const part of cell.split(';').map((p) => p.trim())) {
        const named = /^(test\/\S+\.test\.ts): (.+)$/.exec(part);
        const file = /(test\/\S+\.test\.ts)/.exec(part);
        if (named) expect(tests(named[1]!), part).toContain(named[2]!.replace(/\\\|/g, '|'));
        else if (file) expect(existsSync(join(import.meta.dirname, '../..', file[1]!)), part).toBe(true);
        else expect(tests('test/crd/differences.test.ts'), part).toContain(part.replace(/\\\|/g, '|'));
      }
    }
  });
});
