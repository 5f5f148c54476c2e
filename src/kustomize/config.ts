import { KustomizeError } from './errors.js';
import type { FieldSpec } from './fieldspec.js';
import { gvkEquals, gvkSelected, type Gvk } from './resid.js';
import { isObject, type JSONValue } from './values.js';

/** Resources of kind gvk are referred to by name from the referrers' fields. */
export interface NameBackReference {
  gvk: Partial<Gvk>;
  referrers: FieldSpec[];
}

/** Which fields each transformer touches (kustomize's TransformerConfig, extended by `configurations:` files). */
export interface TransformerConfig {
  namePrefix: FieldSpec[];
  nameSuffix: FieldSpec[];
  namespace: FieldSpec[];
  commonLabels: FieldSpec[];
  labels: FieldSpec[];
  templateLabels: FieldSpec[];
  commonAnnotations: FieldSpec[];
  nameReference: NameBackReference[];
  varReference: FieldSpec[];
  images: FieldSpec[];
  replicas: FieldSpec[];
}

const SPEC_LISTS = [
  'namePrefix',
  'nameSuffix',
  'namespace',
  'commonLabels',
  'labels',
  'templateLabels',
  'commonAnnotations',
  'varReference',
  'images',
  'replicas',
] as const;

/** A config with no field specs, the start that kustomize's defaults and `configurations:` files are merged into. */
export function emptyTransformerConfig(): TransformerConfig {
  return {
    namePrefix: [],
    nameSuffix: [],
    namespace: [],
    commonLabels: [],
    labels: [],
    templateLabels: [],
    commonAnnotations: [],
    nameReference: [],
    varReference: [],
    images: [],
    replicas: [],
  };
}

function full(g: Partial<Gvk>): Gvk {
  return { group: g.group ?? '', version: g.version ?? '', kind: g.kind ?? '' };
}

/** FsSlice.MergeOne: a spec whose gvk and path are already covered is dropped; a different create flag is a conflict. */
export function mergeSpec(list: FieldSpec[], x: FieldSpec): FieldSpec[] {
  const found = list.find((s) => gvkSelected(full(s.gvk), x.gvk) && s.path === x.path);
  if (found) {
    if (found.create !== x.create) {
      throw new KustomizeError(
        `conflicting field specs for path ${x.path}: one says create: ${found.create}, another create: ${x.create}`,
      );
    }
    return list;
  }
  return [...list, x];
}

/** Merges each incoming spec into the list with mergeSpec (kustomize's FsSlice.MergeAll). */
export function mergeSpecs(list: FieldSpec[], incoming: FieldSpec[]): FieldSpec[] {
  return incoming.reduce(mergeSpec, list);
}

/** The union of two transformer configs; nameReference entries for the same kind pool their referrers. */
export function mergeConfig(a: TransformerConfig, b: TransformerConfig): TransformerConfig {
  const out = emptyTransformerConfig();
  for (const key of SPEC_LISTS) out[key] = mergeSpecs(a[key], b[key]);
  let refs = a.nameReference.map((r) => ({ gvk: r.gvk, referrers: r.referrers }));
  for (const other of b.nameReference) {
    let found = false;
    refs = refs.map((r) => {
      if (!gvkEquals(full(r.gvk), full(other.gvk))) return r;
      found = true;
      return { gvk: r.gvk, referrers: mergeSpecs(r.referrers, other.referrers) };
    });
    if (!found) refs.push(other);
  }
  out.nameReference = refs;
  return out;
}

/** Parses a `configurations:` file; any key kustomize's TransformerConfig does not have is an error. */
export function parseTransformerConfig(doc: JSONValue, file: string): TransformerConfig {
  const out = emptyTransformerConfig();
  if (doc === null) return out;
  if (!isObject(doc)) throw new KustomizeError(`${file}: a transformer configuration must be a mapping`);
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'nameReference') {
      out.nameReference = list(value, file, key).map((entry, i) => parseBackRef(entry, `${file}: nameReference[${i}]`));
    } else if ((SPEC_LISTS as readonly string[]).includes(key)) {
      out[key as (typeof SPEC_LISTS)[number]] = list(value, file, key).map((entry, i) =>
        parseFieldSpec(entry, `${file}: ${key}[${i}]`),
      );
    } else {
      throw new KustomizeError(
        `${file}: unknown transformer configuration field "${key}" (known: ${[...SPEC_LISTS, 'nameReference'].join(', ')})`,
      );
    }
  }
  return out;
}

function list(v: JSONValue, file: string, key: string): JSONValue[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new KustomizeError(`${file}: "${key}" must be a list`);
  return v;
}

/** Reads one field spec (`path`, `group`, `version`, `kind`, `create`) of a transformer config or `labels.fields`. */
export function parseFieldSpec(v: JSONValue, where: string): FieldSpec {
  if (!isObject(v))
    throw new KustomizeError(
      `${where}: a field spec must be a mapping with path, and optionally group, version, kind, create`,
    );
  const allowed = ['path', 'group', 'version', 'kind', 'create'];
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k))
      throw new KustomizeError(`${where}: unknown field spec field "${k}" (known: ${allowed.join(', ')})`);
  }
  return {
    path: str(v.path, where, 'path'),
    gvk: {
      group: str(v.group, where, 'group'),
      version: str(v.version, where, 'version'),
      kind: str(v.kind, where, 'kind'),
    },
    create: v.create === true,
  };
}

function parseBackRef(v: JSONValue, where: string): NameBackReference {
  if (!isObject(v)) throw new KustomizeError(`${where}: a name reference must be a mapping with kind and fieldSpecs`);
  const allowed = ['group', 'version', 'kind', 'fieldSpecs'];
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k))
      throw new KustomizeError(`${where}: unknown name reference field "${k}" (known: ${allowed.join(', ')})`);
  }
  const fss = v.fieldSpecs ?? [];
  if (!Array.isArray(fss)) throw new KustomizeError(`${where}: fieldSpecs must be a list`);
  return {
    gvk: {
      group: str(v.group, where, 'group'),
      version: str(v.version, where, 'version'),
      kind: str(v.kind, where, 'kind'),
    },
    referrers: fss.map((f, i) => parseFieldSpec(f, `${where}.fieldSpecs[${i}]`)),
  };
}

function str(v: JSONValue | undefined, where: string, field: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new KustomizeError(`${where}: ${field} must be a string`);
  return v;
}
