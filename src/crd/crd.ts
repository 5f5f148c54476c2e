/**
 * CRD assembly (controller-gen's pkg/crd/spec.go and pkg/crd/markers/crd.go): one CRD per group and Kind, one
 * version per API folder that declares the Kind, names, scope, subresources, printer columns and the storage
 * version rules.
 */
import type { Marker, TypeDecl } from '../markers/collector.js';
import type { CRDEffect } from '../markers/defs/effect.js';
import { skipVersion, storageVersion, unservedVersion } from '../markers/defs/crd.js';
import { objectRoot } from '../markers/defs/object.js';
import { versionOrder, versionPatch } from '../markers/defs/kubescaffold.js';
import { groupName, skipPackage, versionName } from '../markers/defs/package.js';
import { validationOptional } from '../markers/defs/required.js';
import { definitionNamed, definitions } from '../markers/registry.js';
import type { DiagnosticBag } from '../diagnostics.js';
import type { Package, SourceProgram } from '../markers/program.js';
import { pluralize } from '../project/flect.js';
import { truncateDescriptions } from './description.js';
import type { SchemaDeps, SchemaGenerator } from './schema.js';
import type { CRDVersion, CustomResourceDefinition } from '../markers/apiextensions.js';
import type * as T from 'typescript';
import { ts } from '../markers/typescript.js';
import { isRuntimeModule } from '../project/runtime-module.js';

/** The annotation on every generated CRD that records which kubescaffold version wrote it. */
export const VERSION_ANNOTATION = 'kubescaffold.io/version';

/** An API folder: a package with +groupName (and without +kubebuilder:skip). */
export interface GroupVersion {
  group: string;
  version: string;
  pkg: Package;
}

/** A root kind found in an API folder. */
export interface KindInfo {
  gv: GroupVersion;
  decl: TypeDecl;
}

/** Settings of one CRD generation run (`scaffold manifests` flags and the --watch cache). */
export interface CRDOptions {
  /** Our package version, recorded in the kubescaffold.io/version annotation. */
  generatorVersion: string;
  maxDescLen?: number;
  /** CRDs of an earlier run, reused when none of their sources changed (--watch). */
  cache?: CRDCache;
}

interface CachedCRD {
  decls: TypeDecl[];
  deps: SchemaDeps;
  /** Package markers of each folder the CRD depends on, as they were. */
  signatures: Map<string, string>;
  crd: CustomResourceDefinition;
}

/**
 * CRDs from earlier runs with the sources they were built from. A CRD is reused while every file it read is still
 * the same parsed file (the program re-parses a file only after it changed) and the package markers of its folders
 * are unchanged.
 */
export class CRDCache {
  private readonly entries = new Map<string, CachedCRD>();
  /** Rendered output of CRDs, by CRD object; reused CRDs keep their object and so their text. */
  readonly rendered = new WeakMap<CustomResourceDefinition, string>();
  private signatures = new Map<string, string>();

  constructor(private readonly program: SourceProgram) {}

  /** Starts a run: package markers are read again (once per folder). */
  newRun(): void {
    this.signatures = new Map();
  }

  /**
   * The CRD built earlier for these declarations, if none of the files and package markers it was read from changed.
   */
  lookup(key: string, decls: readonly TypeDecl[]): CustomResourceDefinition | undefined {
    const e = this.entries.get(key);
    if (!e || e.decls.length !== decls.length || e.decls.some((d, i) => d !== decls[i])) return undefined;
    for (const f of e.deps.files) if (this.program.file(f.path) !== f) return undefined;
    for (const [dir, sig] of e.signatures) if (this.signature(dir) !== sig) return undefined;
    return e.crd;
  }

  /** Keeps a built CRD with the sources it was read from, for lookup in later runs. */
  store(key: string, decls: readonly TypeDecl[], deps: SchemaDeps, crd: CustomResourceDefinition): void {
    this.entries.set(key, {
      decls: [...decls],
      deps,
      signatures: new Map([...deps.dirs].map((d) => [d, this.signature(d)])),
      crd,
    });
  }

  private signature(dir: string): string {
    let sig = this.signatures.get(dir);
    if (sig === undefined) {
      const m = this.program.loadPackage(dir).markers;
      sig = JSON.stringify(PACKAGE_MARKERS.map((d) => m.all(d.name).map((x) => x.value)));
      this.signatures.set(dir, sig);
    }
    return sig;
  }
}

/** The package markers a CRD depends on: a change to any of them rebuilds the CRDs of the folder. */
const PACKAGE_MARKERS = [groupName, versionName, skipPackage, validationOptional];

/** The group and version of an API folder (+groupName, +versionName or the folder name); undefined if it is not one. */
export function groupVersionOf(pkg: Package): GroupVersion | undefined {
  const group = pkg.markers.get(groupName.name);
  if (!group || pkg.markers.has(skipPackage.name)) return undefined;
  const version = pkg.markers.get(versionName.name);
  return {
    group: typeof group.value === 'string' ? group.value : '',
    version: typeof version?.value === 'string' && version.value !== '' ? version.value : pkg.name,
    pkg,
  };
}

/**
 * Kinds, found as controller-gen finds them. A Kind is an interface that embeds TypeMeta and ObjectMeta, that is
 * `extends TypeMeta` with `metadata: ObjectMeta` (or `extends KubeObject`), with or without
 * +kubebuilder:object:root=true (FindKubeKinds). Every other API folder of the Kind's group that declares a type of
 * the same name has a version of it too, whatever that type is (NeedCRDFor): `export type HTTPRoute =
 * v1.HTTPRoute` in v1beta1 is Go's `type HTTPRoute v1.HTTPRoute`. A type marked root that is neither is refused
 * rather than skipped, so that no Kind is silently left out.
 */
export function findKinds(program: SourceProgram, gvs: readonly GroupVersion[], diags: DiagnosticBag): KindInfo[] {
  const out: KindInfo[] = [];
  const refused: { decl: TypeDecl; message: string }[] = [];
  for (const gv of gvs) {
    for (const file of gv.pkg.files) {
      for (const decl of file.types.values()) {
        const root = decl.markers.get(objectRoot.name);
        const marked = root !== undefined && root.value !== false;
        if (!ts.isInterfaceDeclaration(decl.node)) {
          if (marked)
            refused.push({
              decl,
              message: `+${objectRoot.name} marks ${decl.name}, which is not an interface and names no Kind of another version; declare the Kind as an exported interface`,
            });
          continue;
        }
        const embeds = embeddedMeta(program, decl);
        if (!embeds.objectMeta) {
          // a List type (items, metadata: ListMeta) or another root object is not a Kind; an interface marked root
          // that extends TypeMeta with neither metadata nor items was meant as one, and would make no CRD unsaid
          if (marked && embeds.typeMeta && !embeds.metadataProperty && !embeds.itemsProperty)
            refused.push({
              decl,
              message: `${decl.name} is marked +${objectRoot.name} and extends TypeMeta but has neither metadata nor items (a List's), so it is not a Kind and no CRD is made for it; add \`metadata?: ObjectMeta\` (import type { ObjectMeta } from '@kubescaffold/runtime')`,
            });
          continue;
        }
        if (!embeds.typeMeta) {
          if (marked)
            refused.push({
              decl,
              message: `${decl.name} is marked +${objectRoot.name} and has metadata: ObjectMeta but does not extend TypeMeta, so it is not a Kind; write \`export interface ${decl.name} extends TypeMeta\` (import type { TypeMeta } from '@kubescaffold/runtime')`,
            });
          continue;
        }
        if (!decl.exported) {
          diags.at(decl.pos, `Kind ${decl.name} must be exported (export interface ${decl.name} ...)`);
          continue;
        }
        out.push({ gv, decl });
      }
    }
  }
  const names = new Set(out.map((k) => `${k.gv.group}\0${k.decl.name}`));
  for (const gv of gvs) {
    for (const file of gv.pkg.files) {
      for (const decl of file.types.values()) {
        if (!decl.exported || !names.has(`${gv.group}\0${decl.name}`) || out.some((k) => k.decl === decl)) continue;
        if (ts.isEnumDeclaration(decl.node)) continue;
        out.push({ gv, decl });
      }
    }
  }
  for (const r of refused) if (!out.some((k) => k.decl === r.decl)) diags.at(r.decl.pos, r.message);
  return out;
}

const OBJECT_META_NAMES = ['ObjectMeta', 'V1ObjectMeta', 'k8s.V1ObjectMeta'];

/**
 * What an interface embeds of metav1 (controller-gen looks only at the struct's own embedded fields): TypeMeta through
 * `extends TypeMeta`, ObjectMeta through a `metadata: ObjectMeta` property, both through `extends KubeObject`.
 */
function embeddedMeta(
  program: SourceProgram,
  decl: TypeDecl,
): { typeMeta: boolean; objectMeta: boolean; metadataProperty: boolean; itemsProperty: boolean } {
  const node = decl.node as T.InterfaceDeclaration;
  const found = { typeMeta: false, objectMeta: false, metadataProperty: false, itemsProperty: false };
  for (const clause of node.heritageClauses ?? []) {
    for (const base of clause.types) {
      const r = program.resolveName(decl.file, base.expression.getText(decl.file.source));
      if (r.kind !== 'external' || !isRuntimeModule(r.module)) continue;
      if (r.name === 'KubeObject') found.typeMeta = found.objectMeta = true;
      if (r.name === 'TypeMeta') found.typeMeta = true;
    }
  }
  for (const m of node.members) {
    if (ts.isPropertySignature(m) && ts.isIdentifier(m.name) && m.name.text === 'metadata')
      found.metadataProperty = true;
    if (ts.isPropertySignature(m) && ts.isIdentifier(m.name) && m.name.text === 'items') found.itemsProperty = true;
    if (!ts.isPropertySignature(m) || !m.type || !ts.isTypeReferenceNode(m.type)) continue;
    if (!ts.isIdentifier(m.name) || m.name.text !== 'metadata') continue;
    const r = program.resolveName(decl.file, m.type.typeName.getText(decl.file.source));
    if (r.kind === 'external' && OBJECT_META_NAMES.includes(r.name)) found.objectMeta = true;
  }
  return found;
}

interface VersionedKind {
  kind: KindInfo;
  version: CRDVersion;
}

/** Kinds grouped by GroupKind, in controller-gen's order (by "Kind.group"). */
export function groupKinds(kinds: readonly KindInfo[]): KindInfo[][] {
  const byGroupKind = new Map<string, KindInfo[]>();
  for (const k of kinds) {
    const key = `${k.decl.name}.${k.gv.group}`;
    byGroupKind.set(key, [...(byGroupKind.get(key) ?? []), k]);
  }
  return [...byGroupKind.keys()].sort().map((key) => byGroupKind.get(key)!);
}

/** Builds every CRD; problems go to `diags`. */
export function buildCRDs(
  kinds: readonly KindInfo[],
  gen: SchemaGenerator,
  diags: DiagnosticBag,
  opts: CRDOptions,
): CustomResourceDefinition[] {
  const crds: CustomResourceDefinition[] = [];
  for (const group of groupKinds(kinds)) {
    const crd = buildCRD(group, gen, diags, opts);
    if (crd) crds.push(crd);
  }
  return crds;
}

/** A CRD without versions: names, scope and metadata from the markers of one GroupKind's versions. */
export function crdSkeleton(
  kinds: readonly KindInfo[],
  diags: DiagnosticBag,
  generatorVersion: string,
): CustomResourceDefinition {
  const first = kinds[0]!;
  const kind = first.decl.name;
  const group = first.gv.group;
  const plural = pluralize(kind.toLowerCase()).toLowerCase();
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, annotations: { [VERSION_ANNOTATION]: generatorVersion } },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [],
    },
  };
  applyCRDMarkers(crd, kinds, diags);
  crd.metadata.name = `${crd.spec.names.plural}.${group}`;
  return crd;
}

function buildCRD(
  kinds: KindInfo[],
  gen: SchemaGenerator,
  diags: DiagnosticBag,
  opts: CRDOptions,
): CustomResourceDefinition | undefined {
  const key = `${kinds[0]!.decl.name}.${kinds[0]!.gv.group}`;
  const decls = kinds.map((k) => k.decl);
  const reused = opts.cache?.lookup(key, decls);
  if (reused) return reused;
  const before = diags.items.length;
  const { result, deps } = gen.withDeps(() => assembleCRD(kinds, gen, diags, opts));
  for (const k of kinds) {
    deps.files.add(k.decl.file);
    deps.dirs.add(k.gv.pkg.dir);
  }
  if (result && diags.items.length === before) opts.cache?.store(key, decls, deps, result);
  return result;
}

function assembleCRD(
  kinds: KindInfo[],
  gen: SchemaGenerator,
  diags: DiagnosticBag,
  opts: CRDOptions,
): CustomResourceDefinition | undefined {
  const first = kinds[0]!;
  const kind = first.decl.name;
  const group = first.gv.group;
  const crd = crdSkeleton(kinds, diags, opts.generatorVersion);
  const seenVersions = new Map<string, KindInfo>();
  const versions: VersionedKind[] = [];
  for (const k of kinds) {
    const dup = seenVersions.get(k.gv.version);
    if (dup) {
      diags.at(
        k.decl.pos,
        `Kind ${kind} of ${group} is declared twice for version ${k.gv.version} (also at ${dup.decl.pos.file}:${dup.decl.pos.line}); keep one`,
      );
      continue;
    }
    seenVersions.set(k.gv.version, k);
    let schema = gen.kindSchema(k.decl);
    if (opts.maxDescLen !== undefined) {
      schema = structuredClone(schema); // nested schemas are shared with other Kinds
      truncateDescriptions(schema, opts.maxDescLen);
    }
    versions.push({
      kind: k,
      version: { name: k.gv.version, served: true, storage: false, schema: { openAPIV3Schema: schema } },
    });
  }
  for (const v of versions) applyVersionMarkers(v.version, v.kind.decl.markers.list, diags);

  const kept = versions.filter((v) => !v.kind.decl.markers.has(skipVersion.name));
  if (kept.length === 0) {
    const skip = first.decl.markers.get(skipVersion.name);
    if (skip && versions.length === 1)
      diags.at(skip.pos, `cannot skip a version if there is only a single version; remove +${skipVersion.name}`);
    return undefined;
  }
  kept.sort((a, b) => (a.version.name < b.version.name ? -1 : a.version.name > b.version.name ? 1 : 0));
  orderVersions(kept, diags);
  crd.spec.versions = kept.map((v) => v.version);
  if (kept.length === 1) kept[0]!.version.storage = true;
  const storage = kept.filter((v) => v.version.storage);
  if (storage.length === 0) {
    diags.at(
      first.decl.pos,
      `CRD for ${kind}.${group} has no storage version: mark the ${kind} of one version (${kept.map((v) => v.version.name).join(', ')}) with +${storageVersion.name}`,
    );
  } else if (storage.length > 1) {
    diags.at(
      storage[1]!.kind.decl.pos,
      `CRD for ${kind}.${group} has several storage versions (${storage.map((v) => v.version.name).join(', ')}); keep +${storageVersion.name} on one`,
    );
  }
  if (!kept.some((v) => v.version.served)) {
    diags.at(
      first.decl.pos,
      `CRD for ${kind}.${group} does not serve any version; remove +${unservedVersion.name} from one`,
    );
  }
  return crd;
}

/**
 * `+kubescaffold:crd:versions` reorders the versions (sorted by name otherwise, as controller-gen sorts them). Every
 * version that carries it must give the same list, naming each version once.
 */
function orderVersions(kept: VersionedKind[], diags: DiagnosticBag): void {
  const markers = kept.flatMap((v) => v.kind.decl.markers.all(versionOrder.name));
  const first = markers[0];
  if (!first) return;
  const order = first.value as string[];
  const names = kept.map((v) => v.version.name);
  const same = (a: readonly string[], b: readonly string[]): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (markers.some((m) => !same(m.value as string[], order))) {
    diags.at(first.pos, `+${versionOrder.name} differs between versions; write the same list on every version`);
    return;
  }
  if (order.length !== new Set(order).size || !same([...order].sort(), [...names].sort())) {
    diags.at(
      first.pos,
      `+${versionOrder.name} names ${order.join(', ')}; the versions are ${names.join(', ')}: name each once`,
    );
    return;
  }
  kept.sort((a, b) => order.indexOf(a.version.name) - order.indexOf(b.version.name));
}

/** The markers that change the whole CRD (resource, metadata), in the registry's order. */
const crdWide = definitions.flatMap((d) => (d.effect.on === 'crd' ? [{ name: d.name, effect: d.effect }] : []));

/**
 * Applies the CRD-wide markers of every version's Kind. One that must be the same on every version and differs stops
 * the CRD-wide markers: the CRD's names are unknown.
 */
function applyCRDMarkers(crd: CustomResourceDefinition, versions: readonly KindInfo[], diags: DiagnosticBag): void {
  for (const { name, effect } of crdWide) {
    if (effect.sameOnEveryVersion) {
      if (!applySameOnEveryVersion(crd, versions, name, effect, diags)) return;
      continue;
    }
    for (const v of versions)
      for (const m of v.decl.markers.all(name)) effect.apply(crd, m.value, (msg) => diags.at(m.pos, msg));
  }
}

/** Applies a marker every version that has it must agree on; false when two versions disagree. */
function applySameOnEveryVersion(
  crd: CustomResourceDefinition,
  versions: readonly KindInfo[],
  name: string,
  effect: CRDEffect,
  diags: DiagnosticBag,
): boolean {
  const markers = versions.map((v) => v.decl.markers.get(name));
  // A version without the marker leaves the CRD to the others, as in controller-gen; only two values conflict.
  const texts = new Set(markers.filter((m) => m !== undefined).map((m) => JSON.stringify(m.value ?? null)));
  const marker = markers.find((m): m is Marker => m !== undefined);
  if (!marker) return true;
  if (texts.size > 1) {
    diags.at(
      marker.pos,
      `+${name} differs between versions of ${crd.spec.names.kind}; write the same marker on every version`,
    );
    return false;
  }
  effect.apply(crd, marker.value, (msg) => diags.at(marker.pos, msg));
  return true;
}

/** Applies the markers of a version's Kind that change its version of the CRD (subresources, columns, ...), in source order. */
export function applyVersionMarkers(version: CRDVersion, markers: readonly Marker[], diags: DiagnosticBag): void {
  // a patch says the version as the CRD holds it: after what every other marker did
  const last = (m: Marker): number => (m.name === versionPatch.name ? 1 : 0);
  for (const m of [...markers].sort((a, b) => last(a) - last(b))) {
    const effect = definitionNamed(m.name)?.effect;
    if (effect?.on === 'version') effect.apply(version, m.value, (msg) => diags.at(m.pos, msg));
  }
}
