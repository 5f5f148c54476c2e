/**
 * CRDs -> the declarations of each group and version: the Kind of every version with the markers that give back
 * the CRD's names, scope, subresources, printer columns, selectable fields, storage, serving and deprecation
 * (src/markers/defs/crd.ts), and the types of its schema (schema-to-types.ts).
 */
import { asStored } from './as-stored.js';
import type {
  CRDVersion,
  CustomResourceDefinition,
  JSONSchemaProps,
  JSONValue,
  PrinterColumn,
} from '../markers/apiextensions.js';
import { typeMetaProperties } from '../crd/known.js';
import { pluralize } from '../project/flect.js';
import { goQuote, jsonArg, numberArg, stringArg } from './marker-text.js';
import { canonical, TypesBuilder } from './schema-to-types.js';
import type { DeclModel, ImportProblem, KindModel } from './types.js';

/** A CRD read from a source, with where it came from (for problems by line). */
export interface SourcedCRD {
  crd: CustomResourceDefinition;
  /** The file, URL or `crd/<name>` it was read from. */
  origin: string;
  /** The 1-based line of a path in the CRD object, when the source has lines. */
  lineOf(path: (string | number)[]): number | undefined;
}

/** The declarations of one group and version. */
export interface GroupVersionTypes {
  group: string;
  version: string;
  kinds: KindModel[];
  decls: Map<string, DeclModel>;
}

/** A reported problem with its source position. */
export interface LocatedProblem extends ImportProblem {
  origin: string;
  line: number | undefined;
}

/** The result of converting CRDs: the declarations by group and version, and what could not be said exactly. */
export interface ImportedTypes {
  groupVersions: GroupVersionTypes[];
  problems: LocatedProblem[];
}

// controller-gen writes these itself: never a marker's doing.
export const GENERATOR_ANNOTATIONS = new Set(['controller-gen.kubebuilder.io/version', 'kubescaffold.io/version']);

/** Converts CRDs (already checked to be apiextensions.k8s.io/v1 CRDs with schemas) into declarations. */
export function crdsToTypes(sources: readonly SourcedCRD[]): ImportedTypes {
  // Read as the API server stores them: what it leaves out (an empty list or map, a null) needs no marker.
  const crds = sources.map((c) => ({ ...c, crd: asStored(c.crd) }));
  const builders = new Map<string, { gv: GroupVersionTypes; builder: TypesBuilder }>();
  const problems: LocatedProblem[] = [];
  const builderFor = (group: string, version: string): { gv: GroupVersionTypes; builder: TypesBuilder } => {
    const key = `${group}/${version}`;
    let b = builders.get(key);
    if (!b) {
      const builder = new TypesBuilder();
      b = { gv: { group, version, kinds: [], decls: builder.decls }, builder };
      builders.set(key, b);
    }
    return b;
  };
  // Kinds' names first, so no generated type takes the name of a Kind declared later.
  for (const { crd } of crds)
    for (const v of crd.spec.versions) builderFor(crd.spec.group, v.name).builder.reserve([crd.spec.names.kind]);
  for (const src of crds) {
    const located = (p: ImportProblem): LocatedProblem => ({ ...p, origin: src.origin, line: src.lineOf(p.docPath) });
    const crdProblems: ImportProblem[] = [];
    const crdWide = crdMarkers(src.crd, crdProblems);
    src.crd.spec.versions.forEach((v, i) => {
      const { gv, builder } = builderFor(src.crd.spec.group, v.name);
      const before = builder.problems.length;
      const markers = [
        ...crdWide.resource,
        ...(i === 0 ? crdWide.metadata : []),
        ...versionMarkers(src.crd, v, i, crdProblems),
      ];
      const schema = v.schema?.openAPIV3Schema ?? {};
      const typeMeta = typeMetaProperties() as { apiVersion: JSONSchemaProps; kind: JSONSchemaProps };
      const decl = builder.kind(
        src.crd.spec.names.kind,
        v.name,
        schema,
        ['spec', 'versions', i, 'schema', 'openAPIV3Schema'],
        markers,
        typeMeta,
      );
      decl.kind = {
        kind: src.crd.spec.names.kind,
        plural: src.crd.spec.names.plural,
        namespaced: src.crd.spec.scope !== 'Cluster',
      };
      gv.kinds.push(decl.kind);
      problems.push(...builder.problems.slice(before).map(located));
    });
    problems.push(...crdProblems.map(located));
  }
  // in the order of the sources, as a reader goes through them
  const order = new Map(crds.map((c, i) => [c.origin, i]));
  problems.sort((a, b) => order.get(a.origin)! - order.get(b.origin)! || (a.line ?? 0) - (b.line ?? 0));
  return { groupVersions: [...builders.values()].map((b) => b.gv), problems };
}

// The keys of a CRD's spec and names that markers set; any other is reported rather than dropped without a word.
const SPEC_KEYS = new Set(['group', 'names', 'scope', 'versions', 'conversion', 'preserveUnknownFields']);
const NAMES_KEYS = new Set(['kind', 'listKind', 'plural', 'singular', 'shortNames', 'categories']);

/** `+kubebuilder:resource` (on every version) and `+kubebuilder:metadata` (on one). */
function crdMarkers(
  crd: CustomResourceDefinition,
  problems: ImportProblem[],
): { resource: string[]; metadata: string[] } {
  const { names } = crd.spec;
  const kind = names.kind;
  const report = (docPath: (string | number)[], message: string): void =>
    void problems.push({ docPath, where: `${kind}`, message });
  const parts: string[] = [];
  if (names.plural !== pluralize(kind.toLowerCase()).toLowerCase())
    parts.push(`path=${stringArg(names.plural, { bare: true })}`);
  if (names.singular !== undefined && names.singular !== kind.toLowerCase())
    parts.push(`singular=${stringArg(names.singular, { bare: true })}`);
  if (crd.spec.scope === 'Cluster') parts.push('scope=Cluster');
  if (names.shortNames?.length)
    parts.push(`shortName=${names.shortNames.map((n) => stringArg(n, { bare: true })).join(';')}`);
  if (names.categories?.length)
    parts.push(`categories=${names.categories.map((n) => stringArg(n, { bare: true })).join(';')}`);
  const known = { spec: SPEC_KEYS, names: NAMES_KEYS };
  for (const [where, keys] of Object.entries(known)) {
    const obj = (where === 'spec' ? crd.spec : names) as Record<string, unknown>;
    for (const k of Object.keys(obj))
      if (!keys.has(k))
        report(['spec', ...(where === 'names' ? ['names'] : []), k], `${k} has no marker; it is left out`);
  }
  // An empty shortNames or categories list needs no marker: the API server stores a CRD without it (omitempty), as
  // the types give it back.
  if (crd.metadata.name !== `${names.plural}.${crd.spec.group}`)
    report(['metadata', 'name'], `the CRD's name must be ${names.plural}.${crd.spec.group}; it becomes that`);
  // what controller-gen has no marker for: ours, on every version as +kubebuilder:resource is
  const ours: string[] = [];
  if (names.listKind === undefined) ours.push('+kubescaffold:crd:listKind=""');
  else if (names.listKind !== `${kind}List`)
    ours.push(`+kubescaffold:crd:listKind=${stringArg(names.listKind, { bare: true })}`);
  if (names.singular === undefined) ours.push('+kubescaffold:crd:singular=""');
  const spec = crd.spec;
  if (spec.conversion !== undefined) ours.push(`+kubescaffold:crd:conversion=${jsonArg(spec.conversion)}`);
  if (spec.preserveUnknownFields !== undefined) {
    if (spec.preserveUnknownFields !== false)
      report(['spec', 'preserveUnknownFields'], 'apiextensions.k8s.io/v1 takes only preserveUnknownFields: false');
    else ours.push('+kubescaffold:crd:preserveUnknownFields=false');
  }
  const versions = spec.versions.map((v) => v.name);
  if (canonical(versions) !== canonical([...versions].sort()))
    ours.push(`+kubescaffold:crd:versions=${versions.map((v) => stringArg(v, { bare: true })).join(';')}`);
  const metadata: string[] = [];
  for (const into of ['annotations', 'labels'] as const) {
    const entries = Object.entries(crd.metadata[into] ?? {}).filter(([k]) => !GENERATOR_ANNOTATIONS.has(k));
    if (entries.length > 0)
      metadata.push(`+kubebuilder:metadata:${into}=${entries.map(([k, v]) => goQuote(`${k}=${v}`)).join(';')}`);
  }
  return { resource: [...(parts.length > 0 ? [`+kubebuilder:resource:${parts.join(',')}`] : []), ...ours], metadata };
}

// The keys of a CRD version the markers know; any other is reported rather than dropped without a word.
const VERSION_KEYS = new Set([
  'name',
  'served',
  'storage',
  'deprecated',
  'deprecationWarning',
  'schema',
  'subresources',
  'additionalPrinterColumns',
  'selectableFields',
]);

/**
 * Storage, serving, deprecation, subresources, printer columns and selectable fields of one version; what their
 * markers do not give back exactly is set by a version patch.
 */
function versionMarkers(crd: CustomResourceDefinition, v: CRDVersion, i: number, problems: ImportProblem[]): string[] {
  const at = ['spec', 'versions', i];
  const report = (path: (string | number)[], message: string): void =>
    void problems.push({ docPath: [...at, ...path], where: `${crd.spec.names.kind} ${v.name}`, message });
  const out: string[] = [];
  const patch: Record<string, JSONValue> = {};
  for (const k of Object.keys(v))
    if (!VERSION_KEYS.has(k)) report([k], `${k} is not a key of a CRD version that any marker sets; it is left out`);
  if (crd.spec.versions.length > 1 && v.storage) out.push('+kubebuilder:storageversion');
  if (crd.spec.versions.length === 1 && !v.storage)
    report(['storage'], 'the only version is always the storage version');
  if (!v.served) out.push('+kubebuilder:unservedversion');
  if (v.deprecated)
    out.push(
      v.deprecationWarning !== undefined
        ? `+kubebuilder:deprecatedversion:warning=${goQuote(v.deprecationWarning)}`
        : '+kubebuilder:deprecatedversion',
    );
  else {
    if (v.deprecated === false) patch.deprecated = false;
    if (v.deprecationWarning !== undefined) patch.deprecationWarning = v.deprecationWarning;
  }
  const sub = v.subresources;
  if (sub?.status !== undefined) out.push('+kubebuilder:subresource:status');
  if (sub?.scale !== undefined) {
    const s = sub.scale;
    out.push(
      `+kubebuilder:subresource:scale:specpath=${goQuote(s.specReplicasPath)},statuspath=${goQuote(s.statusReplicasPath)}${
        s.labelSelectorPath !== undefined ? `,selectorpath=${goQuote(s.labelSelectorPath)}` : ''
      }`,
    );
  }
  const columns = v.additionalPrinterColumns ?? [];
  const written: PrinterColumn[] = [];
  for (const c of columns) {
    const parts = [
      `name=${goQuote(c.name)}`,
      `type=${goQuote(c.type)}`,
      `JSONPath=${stringArg(c.jsonPath, { raw: true })}`,
    ];
    if (c.description) parts.push(`description=${goQuote(c.description)}`);
    if (c.format) parts.push(`format=${goQuote(c.format)}`);
    if (c.priority) parts.push(`priority=${numberArg(c.priority)}`);
    out.push(`+kubebuilder:printcolumn:${parts.join(',')}`);
    // what the marker writes back, as the printcolumn marker does
    written.push({
      name: c.name,
      type: c.type,
      jsonPath: c.jsonPath,
      ...(c.description ? { description: c.description } : {}),
      ...(c.format ? { format: c.format } : {}),
      ...(c.priority ? { priority: c.priority } : {}),
    });
  }
  // a column with `priority: 0` or `description: ""`: the list as it was
  if (canonical(written) !== canonical(columns)) patch.additionalPrinterColumns = columns as unknown as JSONValue;
  // a printer column marker brings `subresources: {}`, as controller-gen's does
  if (columns.length > 0 && sub === undefined) patch.subresources = null;
  if (sub !== undefined && sub.status === undefined && sub.scale === undefined && columns.length === 0)
    patch.subresources = {};
  for (const f of v.selectableFields ?? [])
    out.push(`+kubebuilder:selectablefield:JSONPath=${stringArg(f.jsonPath, { raw: true })}`);
  if (Object.keys(patch).length > 0) out.push(`+kubescaffold:version:patch=${jsonArg(patch)}`);
  return out;
}
