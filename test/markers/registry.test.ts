import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applySchemaMarkers } from '../../src/crd/schema-markers.js';
import { applyVersionMarkers, crdSkeleton, type KindInfo } from '../../src/crd/crd.js';
import { DiagnosticBag } from '../../src/diagnostics.js';
import type { CRDVersion, JSONSchemaProps } from '../../src/markers/apiextensions.js';
import { MarkerSet, type Marker } from '../../src/markers/collector.js';
import type { MarkerDefinition } from '../../src/markers/defs/define.js';
import * as crdDefs from '../../src/markers/defs/crd.js';
import * as kubescaffoldDefs from '../../src/markers/defs/kubescaffold.js';
import * as objectDefs from '../../src/markers/defs/object.js';
import * as packageDefs from '../../src/markers/defs/package.js';
import * as requiredDefs from '../../src/markers/defs/required.js';
import * as validationDefs from '../../src/markers/defs/validation.js';
import type { MarkerValue } from '../../src/markers/grammar.js';
import { definitionNamed, definitions, markerGroups } from '../../src/markers/registry.js';
import { generateRoles } from '../../src/rbac/index.js';
import { generateWebhookConfigurations } from '../../src/webhookgen/index.js';

const pos = { file: '/p/api/v1/types.ts', line: 1, column: 1 };
const marker = (name: string, value: MarkerValue = null): Marker => ({ name, value, text: `+${name}`, pos });

/** The exported name of each definition a defs module exports by itself. */
const exportedNames = new Map<MarkerDefinition, string>(
  [crdDefs, kubescaffoldDefs, objectDefs, packageDefs, requiredDefs, validationDefs].flatMap((module) =>
    Object.entries(module).flatMap(([name, value]) =>
      definitions.includes(value as MarkerDefinition) ? [[value as MarkerDefinition, name] as const] : [],
    ),
  ),
);

/** Runs the generator step that dispatches `def`'s kind of effect on one marker of it. */
function dispatch(def: MarkerDefinition): void {
  const m = marker(def.name);
  const diags = new DiagnosticBag();
  switch (def.effect.on) {
    case 'schema': {
      const schema: JSONSchemaProps = { type: 'array', items: { type: 'string' } };
      applySchemaMarkers(schema, [m], 'field', diags);
      return;
    }
    case 'crd': {
      const kind = {
        gv: { group: 'g.io', version: 'v1' },
        decl: { name: 'Thing', markers: new MarkerSet([m]) },
      } as unknown as KindInfo;
      crdSkeleton([kind], diags, 't');
      return;
    }
    case 'version': {
      const version: CRDVersion = { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: {} } };
      applyVersionMarkers(version, [m], diags);
      return;
    }
    case 'rbac':
      generateRoles([m], 'manager-role');
      return;
    case 'webhook':
    case 'webhook-configuration':
      generateWebhookConfigurations([m], diags);
      return;
    case 'read':
    case 'accepted':
      throw new Error(`${def.name} has no effect to dispatch`);
  }
}

describe('the marker registry', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('registers each marker name once', () => {
    const names = definitions.map((d) => d.name);
    expect(names.length).toBeGreaterThan(80);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    for (const name of names) expect(definitionNamed(name)?.name).toBe(name);
  });

  it('lists every definition in exactly one group', () => {
    expect(markerGroups.flatMap((g) => g.definitions)).toEqual(definitions);
    expect(markerGroups.every((g) => g.title !== '' && g.definitions.length > 0)).toBe(true);
  });

  it('rejects a definition without an effect at compile time', () => {
    // @ts-expect-error -- `effect` is required: a marker cannot be registered without one
    const incomplete: MarkerDefinition = {
      name: 'example',
      targets: ['field'],
      shape: { kind: 'flag' },
      help: 'an example',
    };
    expect(incomplete.name).toBe('example');
  });

  it.each(
    definitions.filter((d) => d.effect.on !== 'read' && d.effect.on !== 'accepted').map((d) => [d.name, d] as const),
  )('reaches the effect of %s from the generator that applies that kind of effect', (_name, def) => {
    const effect = def.effect as { apply: (...args: unknown[]) => unknown };
    const apply = vi.spyOn(effect, 'apply').mockImplementation(() => undefined);
    dispatch(def);
    expect(apply).toHaveBeenCalledTimes(1);
  });

  it.each(definitions.filter((d) => d.effect.on === 'read').map((d) => [d.name, d] as const))(
    'has %s read, by its definition, where its effect says',
    (_name, def) => {
      if (def.effect.on !== 'read') throw new Error('not a read effect');
      const exported = exportedNames.get(def);
      expect(exported, `${def.name} is exported by its defs module`).toBeDefined();
      const path = fileURLToPath(new URL(`../../src/${def.effect.by}`, import.meta.url));
      const reader = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
      // Imports are read as the compiler reads them, whatever their line breaks.
      const imported = reader.statements
        .filter(ts.isImportDeclaration)
        .filter((d) => ts.isStringLiteral(d.moduleSpecifier) && d.moduleSpecifier.text.startsWith('../markers/defs/'))
        .flatMap((d) => {
          const bindings = d.importClause?.namedBindings;
          return bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : [];
        });
      expect(imported, `${def.effect.by} imports ${exported}`).toContain(exported);
      const word = new RegExp(`\\b${exported}\\b`);
      const code = reader.statements.filter((st) => !ts.isImportDeclaration(st)).map((st) => st.getText(reader));
      expect(
        code.some((c) => word.test(c)),
        `${def.effect.by} uses ${exported}`,
      ).toBe(true);
      expect(def.effect.reads).not.toBe('');
    },
  );

  it('says why an accepted marker has nothing to do', () => {
    const accepted = definitions.filter((d) => d.effect.on === 'accepted');
    expect(accepted.map((d) => d.name)).toEqual(['kubebuilder:object:generate']);
    for (const d of accepted) if (d.effect.on === 'accepted') expect(d.effect.why).not.toBe('');
  });

  it("keeps controller-gen's apply priorities: Type, XIntOrString, listType and +default first, the OneOf rules last", () => {
    const priority = new Map(
      definitions.flatMap((d) =>
        d.effect.on === 'schema' && !d.effect.items ? [[d.name, d.effect.priority] as const] : [],
      ),
    );
    const first = [...priority].filter(([, p]) => p === 9).map(([n]) => n);
    expect(first.sort()).toEqual([
      'default',
      'k8s:listType',
      'kubebuilder:validation:Type',
      'kubebuilder:validation:XIntOrString',
      'listType',
    ]);
    expect(priority.get('kubebuilder:validation:AtMostOneOf')).toBe(11);
    expect(priority.get('kubebuilder:validation:ExactlyOneOf')).toBe(12);
    expect(priority.get('kubebuilder:validation:AtLeastOneOf')).toBe(13);
    expect([...priority.values()].filter((p) => p !== 9 && p < 11).every((p) => p === 10)).toBe(true);
  });

  it('applies Type before the markers that check it, and items: markers after all others', () => {
    const schema: JSONSchemaProps = {};
    const diags = new DiagnosticBag();
    const markers = [
      marker('kubebuilder:validation:items:Maximum', 3),
      marker('kubebuilder:validation:MaxItems', 2),
      marker('kubebuilder:validation:Type', 'array'),
    ];
    schema.items = { type: 'integer' };
    applySchemaMarkers(schema, markers, 'field', diags);
    expect(diags.items).toEqual([]);
    expect(schema).toEqual({ type: 'array', maxItems: 2, items: { type: 'integer', maximum: 3 } });
  });
});
