import { mapping, optBool, optInt, optList, optString, stringList, stringMap } from './check.js';
import { KustomizeError } from './errors.js';
import { parseFieldSpec } from './config.js';
import type { FieldSpec } from './fieldspec.js';
import type { Gvk } from './resid.js';
import { isObject, type JSONValue } from './values.js';

/** The file names kustomize looks for in a directory, in its order; a directory may hold only one. */
export const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** Selects resources by id (regular expressions, as kustomize's patch targets) and by label/annotation selectors. */
export interface Selector {
  gvk: Partial<Gvk>;
  name: string;
  namespace: string;
  labelSelector: string;
  annotationSelector: string;
}

/**
 * A `patches:` or `patchesJson6902:` entry: a patch file or inline patch, the resources it targets, and its options.
 */
export interface PatchSpec {
  path: string;
  patch: string;
  target?: Selector;
  allowNameChange: boolean;
  allowKindChange: boolean;
}

/** An `images:` entry: which image to change and its new name, tag or digest. */
export interface ImageSpec {
  name: string;
  newName: string;
  newTag: string;
  digest: string;
  tagSuffix: string;
}

/** A `labels:` entry: the pairs to add, and whether they also go into selectors and pod templates. */
export interface LabelSpec {
  pairs: Record<string, string>;
  includeSelectors: boolean;
  includeTemplates: boolean;
  fields: FieldSpec[];
}

/**
 * `generatorOptions:`, global or per generator: labels and annotations for the generated object, the hash suffix,
 * immutability.
 */
export interface GeneratorOptions {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  disableNameSuffixHash: boolean;
  immutable: boolean;
}

/** A `configMapGenerator:` or `secretGenerator:` entry. */
export interface GeneratorArgs {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace: string;
  behavior: '' | 'create' | 'merge' | 'replace';
  literals: string[];
  files: string[];
  envs: string[];
  type: string;
  options?: GeneratorOptions;
}

/**
 * The `options:` of a replacement source or target: how to split a value with `delimiter`, and whether to create a
 * missing field.
 */
export interface FieldOptions {
  delimiter: string;
  index: number;
  create: boolean;
}

/** Where a replacement takes its value: one resource and a field path in it. */
export interface ReplacementSource {
  gvk: Partial<Gvk>;
  name: string;
  namespace: string;
  fieldPath: string;
  options?: FieldOptions;
}

/** Where a replacement writes its value: the fields of the selected resources, minus the rejected ones. */
export interface ReplacementTarget {
  select: Selector;
  reject: Selector[];
  fieldPaths: string[];
  options?: FieldOptions;
}

/** One replacement: a source value copied into the targets' fields. */
export interface Replacement {
  source: ReplacementSource;
  targets: ReplacementTarget[];
}

/** A `replacements:` entry: inline, or a file holding one replacement or a list of them. */
export type ReplacementEntry = { replacement: Replacement } | { path: string };

/**
 * `sortOptions:`: the legacy order (by kind; the default) with optional kind lists to put first and last, or fifo
 * (input order).
 */
export interface SortOptions {
  order: 'legacy' | 'fifo';
  orderFirst?: string[];
  orderLast?: string[];
}

/**
 * A kustomization file, read strictly, in the subset of kustomize that kubebuilder projects use; `bases` are merged
 * into `resources` and `imageTags` into `images`.
 */
export interface Kustomization {
  /** Absolute path of the kustomization file; its directory is the root for relative paths. */
  file: string;
  dir: string;
  namePrefix: string;
  nameSuffix: string;
  namespace: string;
  commonLabels: Record<string, string>;
  labels: LabelSpec[];
  commonAnnotations: Record<string, string>;
  resources: string[];
  patches: PatchSpec[];
  patchesStrategicMerge: string[];
  patchesJson6902: PatchSpec[];
  images: ImageSpec[];
  replacements: ReplacementEntry[];
  replicas: Array<{ name: string; count: number }>;
  configMapGenerator: GeneratorArgs[];
  secretGenerator: GeneratorArgs[];
  configurations: string[];
  sortOptions?: SortOptions;
}

const SUPPORTED = [
  'apiVersion',
  'kind',
  'metadata',
  'namePrefix',
  'nameSuffix',
  'namespace',
  'commonLabels',
  'labels',
  'commonAnnotations',
  'resources',
  'bases',
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'images',
  'imageTags',
  'replacements',
  'replicas',
  'configMapGenerator',
  'secretGenerator',
  'generatorOptions',
  'configurations',
  'sortOptions',
] as const;

// Fields kustomize has that this subset does not implement: named in the error instead of being ignored.
const UNSUPPORTED: Record<string, string> = {
  components: 'components',
  crds: 'crds (custom resource definitions as transformer configuration)',
  vars: 'vars (deprecated in kustomize; use replacements)',
  openapi: 'openapi (custom schema)',
  generators: 'generator plugins',
  transformers: 'transformer plugins',
  validators: 'validator plugins',
  helmCharts: 'Helm charts',
  helmGlobals: 'Helm charts',
  helmChartInflationGenerator: 'Helm charts',
  buildMetadata: 'buildMetadata',
};

/** Reads a parsed kustomization file; unknown and unsupported fields are errors that name the field. */
export function parseKustomization(doc: JSONValue, file: string, dir: string): Kustomization {
  if (doc === null) doc = {};
  if (!isObject(doc)) throw new KustomizeError(`${file} must be a mapping of kustomization fields`);
  for (const key of Object.keys(doc)) {
    const what = UNSUPPORTED[key];
    if (what) {
      throw new KustomizeError(
        `${file}: field "${key}" is not supported by scaffold build (it implements the kustomize subset kubebuilder projects use; ${what} are not part of it); remove it or build this directory with kustomize`,
      );
    }
  }
  const k = mapping(doc, file, SUPPORTED);
  const kind = optString(k.kind, `${file}: kind`);
  if (kind === 'Component')
    throw new KustomizeError(`${file}: kind Component is not supported by scaffold build; use a Kustomization`);
  if (kind !== '' && kind !== 'Kustomization')
    throw new KustomizeError(`${file}: kind must be Kustomization, not "${kind}"`);
  optString(k.apiVersion, `${file}: apiVersion`);
  if (k.metadata !== undefined && k.metadata !== null && !isObject(k.metadata))
    throw new KustomizeError(`${file}: metadata must be a mapping`);

  const at = (field: string) => `${file}: ${field}`;
  const result: Kustomization = {
    file,
    dir,
    namePrefix: optString(k.namePrefix, at('namePrefix')),
    nameSuffix: optString(k.nameSuffix, at('nameSuffix')),
    namespace: optString(k.namespace, at('namespace')),
    commonLabels: stringMap(k.commonLabels, at('commonLabels')),
    labels: optList(k.labels, at('labels')).map((l, i) => parseLabel(l, at(`labels[${i}]`))),
    commonAnnotations: stringMap(k.commonAnnotations, at('commonAnnotations')),
    resources: [...stringList(k.resources, at('resources')), ...stringList(k.bases, at('bases'))],
    patches: optList(k.patches, at('patches')).map((p, i) => parsePatch(p, at(`patches[${i}]`))),
    patchesStrategicMerge: stringList(k.patchesStrategicMerge, at('patchesStrategicMerge')),
    patchesJson6902: optList(k.patchesJson6902, at('patchesJson6902')).map((p, i) =>
      parsePatch(p, at(`patchesJson6902[${i}]`)),
    ),
    images: [...optList(k.images, at('images')), ...optList(k.imageTags, at('imageTags'))].map((x, i) =>
      parseImage(x, at(`images[${i}]`)),
    ),
    replacements: optList(k.replacements, at('replacements')).map((r, i) =>
      parseReplacementEntry(r, at(`replacements[${i}]`)),
    ),
    replicas: optList(k.replicas, at('replicas')).map((r, i) => {
      const m = mapping(r, at(`replicas[${i}]`), ['name', 'count']);
      return { name: optString(m.name, at(`replicas[${i}].name`)), count: optInt(m.count, at(`replicas[${i}].count`)) };
    }),
    configMapGenerator: optList(k.configMapGenerator, at('configMapGenerator')).map((g, i) =>
      parseGenerator(g, 'ConfigMap', at(`configMapGenerator[${i}]`)),
    ),
    secretGenerator: optList(k.secretGenerator, at('secretGenerator')).map((g, i) =>
      parseGenerator(g, 'Secret', at(`secretGenerator[${i}]`)),
    ),
    configurations: stringList(k.configurations, at('configurations')),
  };
  const globalOptions =
    k.generatorOptions === undefined || k.generatorOptions === null
      ? undefined
      : parseGeneratorOptions(k.generatorOptions, at('generatorOptions'));
  if (globalOptions) {
    for (const g of [...result.configMapGenerator, ...result.secretGenerator])
      g.options = mergeGeneratorOptions(g.options, globalOptions);
  }
  if (k.sortOptions !== undefined && k.sortOptions !== null)
    result.sortOptions = parseSortOptions(k.sortOptions, at('sortOptions'));
  if (Object.keys(result.commonLabels).length > 0) {
    for (const l of result.labels) {
      for (const key of Object.keys(l.pairs)) {
        if (key in result.commonLabels)
          throw new KustomizeError(`${file}: label name '${key}' exists in both commonLabels and labels`);
      }
    }
  }
  return result;
}

function parseLabel(v: JSONValue, where: string): LabelSpec {
  const m = mapping(v, where, ['pairs', 'includeSelectors', 'includeTemplates', 'fields']);
  return {
    pairs: stringMap(m.pairs, `${where}.pairs`),
    includeSelectors: optBool(m.includeSelectors, `${where}.includeSelectors`),
    includeTemplates: optBool(m.includeTemplates, `${where}.includeTemplates`),
    fields: optList(m.fields, `${where}.fields`).map((f, i) => parseFieldSpec(f, `${where}.fields[${i}]`)),
  };
}

/** Reads a patch target or replacement selector. */
export function parseSelector(v: JSONValue, where: string): Selector {
  const m = mapping(v, where, ['group', 'version', 'kind', 'name', 'namespace', 'labelSelector', 'annotationSelector']);
  return {
    gvk: {
      group: optString(m.group, `${where}.group`),
      version: optString(m.version, `${where}.version`),
      kind: optString(m.kind, `${where}.kind`),
    },
    name: optString(m.name, `${where}.name`),
    namespace: optString(m.namespace, `${where}.namespace`),
    labelSelector: optString(m.labelSelector, `${where}.labelSelector`),
    annotationSelector: optString(m.annotationSelector, `${where}.annotationSelector`),
  };
}

function parsePatch(v: JSONValue, where: string): PatchSpec {
  const m = mapping(v, where, ['path', 'patch', 'target', 'options']);
  const opts =
    m.options === undefined || m.options === null
      ? {}
      : mapping(m.options, `${where}.options`, ['allowNameChange', 'allowKindChange']);
  const spec: PatchSpec = {
    path: optString(m.path, `${where}.path`),
    patch: optString(m.patch, `${where}.patch`),
    allowNameChange: optBool(opts.allowNameChange, `${where}.options.allowNameChange`),
    allowKindChange: optBool(opts.allowKindChange, `${where}.options.allowKindChange`),
  };
  if (m.target !== undefined && m.target !== null) spec.target = parseSelector(m.target, `${where}.target`);
  return spec;
}

function parseImage(v: JSONValue, where: string): ImageSpec {
  const m = mapping(v, where, ['name', 'newName', 'newTag', 'digest', 'tagSuffix']);
  return {
    name: optString(m.name, `${where}.name`),
    newName: optString(m.newName, `${where}.newName`),
    newTag: optString(m.newTag, `${where}.newTag`),
    digest: optString(m.digest, `${where}.digest`),
    tagSuffix: optString(m.tagSuffix, `${where}.tagSuffix`),
  };
}

function parseGeneratorOptions(v: JSONValue, where: string): GeneratorOptions {
  const m = mapping(v, where, ['labels', 'annotations', 'disableNameSuffixHash', 'immutable']);
  return {
    labels: stringMap(m.labels, `${where}.labels`),
    annotations: stringMap(m.annotations, `${where}.annotations`),
    disableNameSuffixHash: optBool(m.disableNameSuffixHash, `${where}.disableNameSuffixHash`),
    immutable: optBool(m.immutable, `${where}.immutable`),
  };
}

/** kustomize's MergeGlobalOptionsIntoLocal: local keys win, global flags turn local ones on. */
function mergeGeneratorOptions(local: GeneratorOptions | undefined, global: GeneratorOptions): GeneratorOptions {
  const l = local ?? { labels: {}, annotations: {}, disableNameSuffixHash: false, immutable: false };
  return {
    labels: { ...global.labels, ...l.labels },
    annotations: { ...global.annotations, ...l.annotations },
    disableNameSuffixHash: l.disableNameSuffixHash || global.disableNameSuffixHash,
    immutable: l.immutable || global.immutable,
  };
}

function parseGenerator(v: JSONValue, kind: 'ConfigMap' | 'Secret', where: string): GeneratorArgs {
  const fields = [
    'name',
    'namespace',
    'behavior',
    'literals',
    'files',
    'envs',
    'env',
    'options',
    ...(kind === 'Secret' ? ['type'] : []),
  ];
  const m = mapping(v, where, fields);
  const behavior = optString(m.behavior, `${where}.behavior`);
  if (!['', 'create', 'merge', 'replace'].includes(behavior)) {
    throw new KustomizeError(`${where}.behavior must be create, merge or replace, not "${behavior}"`);
  }
  const env = optString(m.env, `${where}.env`);
  const args: GeneratorArgs = {
    kind,
    name: optString(m.name, `${where}.name`),
    namespace: optString(m.namespace, `${where}.namespace`),
    behavior: behavior as GeneratorArgs['behavior'],
    literals: stringList(m.literals, `${where}.literals`),
    files: stringList(m.files, `${where}.files`),
    envs: [...stringList(m.envs, `${where}.envs`), ...(env ? [env] : [])],
    type: optString(m.type, `${where}.type`),
  };
  if (m.options !== undefined && m.options !== null)
    args.options = parseGeneratorOptions(m.options, `${where}.options`);
  return args;
}

function parseFieldOptions(v: JSONValue | undefined, where: string): FieldOptions | undefined {
  if (v === undefined || v === null) return undefined;
  const m = mapping(v, where, ['delimiter', 'index', 'encoding', 'create']);
  if (optString(m.encoding, `${where}.encoding`) !== '')
    throw new KustomizeError(`${where}.encoding is not implemented by kustomize either; remove it`);
  return {
    delimiter: optString(m.delimiter, `${where}.delimiter`),
    index: optInt(m.index, `${where}.index`),
    create: optBool(m.create, `${where}.create`),
  };
}

/** Reads one replacement, inline in `replacements:` or from a file. */
export function parseReplacement(v: JSONValue, where: string): Replacement {
  const m = mapping(v, where, ['source', 'targets']);
  if (m.source === undefined || m.source === null || m.targets === undefined || m.targets === null) {
    throw new KustomizeError(`${where}: replacements must specify a source and at least one target`);
  }
  const s = mapping(m.source, `${where}.source`, [
    'group',
    'version',
    'kind',
    'name',
    'namespace',
    'fieldPath',
    'options',
  ]);
  const source: ReplacementSource = {
    gvk: {
      group: optString(s.group, `${where}.source.group`),
      version: optString(s.version, `${where}.source.version`),
      kind: optString(s.kind, `${where}.source.kind`),
    },
    name: optString(s.name, `${where}.source.name`),
    namespace: optString(s.namespace, `${where}.source.namespace`),
    fieldPath: optString(s.fieldPath, `${where}.source.fieldPath`),
  };
  const sourceOptions = parseFieldOptions(s.options, `${where}.source.options`);
  if (sourceOptions) source.options = sourceOptions;
  const targets = optList(m.targets, `${where}.targets`).map((t, i) => {
    const tw = `${where}.targets[${i}]`;
    const tm = mapping(t, tw, ['select', 'reject', 'fieldPaths', 'options']);
    if (tm.select === undefined || tm.select === null)
      throw new KustomizeError(`${tw}: target must specify resources to select`);
    const target: ReplacementTarget = {
      select: parseSelector(tm.select, `${tw}.select`),
      reject: optList(tm.reject, `${tw}.reject`).map((r, j) => parseSelector(r, `${tw}.reject[${j}]`)),
      fieldPaths: stringList(tm.fieldPaths, `${tw}.fieldPaths`),
    };
    const options = parseFieldOptions(tm.options, `${tw}.options`);
    if (options) target.options = options;
    return target;
  });
  return { source, targets };
}

function parseReplacementEntry(v: JSONValue, where: string): ReplacementEntry {
  if (isObject(v) && 'path' in v) {
    if ('source' in v || 'targets' in v)
      throw new KustomizeError(`${where}: cannot specify both path and inline replacement`);
    mapping(v, where, ['path']);
    return { path: optString(v.path, `${where}.path`) };
  }
  return { replacement: parseReplacement(v, where) };
}

function parseSortOptions(v: JSONValue, where: string): SortOptions {
  const m = mapping(v, where, ['order', 'legacySortOptions']);
  const order = optString(m.order, `${where}.order`);
  if (order !== 'legacy' && order !== 'fifo')
    throw new KustomizeError(`${where}: the field 'sortOptions.order' must be one of [fifo, legacy]`);
  const result: SortOptions = { order };
  if (m.legacySortOptions !== undefined && m.legacySortOptions !== null) {
    if (order !== 'legacy')
      throw new KustomizeError(
        `${where}: the field 'sortOptions.legacySortOptions' is set but the selected sort order is '${order}', not 'legacy'`,
      );
    const l = mapping(m.legacySortOptions, `${where}.legacySortOptions`, ['orderFirst', 'orderLast']);
    result.orderFirst = stringList(l.orderFirst, `${where}.legacySortOptions.orderFirst`);
    result.orderLast = stringList(l.orderLast, `${where}.legacySortOptions.orderLast`);
  }
  return result;
}
