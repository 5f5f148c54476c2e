import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  emptyTransformerConfig,
  mergeConfig,
  mergeSpec,
  mergeSpecs,
  parseTransformerConfig,
  type TransformerConfig,
} from './config.js';
import { defaultTransformerConfig } from './defaults.js';
import { KustomizeError } from './errors.js';
import type { FieldSpec } from './fieldspec.js';
import { parseKustomization, parseReplacement, type Kustomization, type Replacement } from './kustomization.js';
import { displayPath, findKustomizationFile, isRemote, Loader } from './loader.js';
import { describeId, idEquals } from './resid.js';
import type { Resource } from './resource.js';
import { runGenerators, addHashSuffixes } from './transform/generators.js';
import { setImages } from './transform/images.js';
import { addMapEntries } from './transform/labels.js';
import { addNameAffix } from './transform/names.js';
import { fixNameReferences } from './transform/nameref.js';
import { setNamespaces } from './transform/namespace.js';
import {
  applyPatch,
  applyStrategicMergePatch,
  loadPatch,
  loadStrategicMergeEntries,
  patchTarget,
} from './transform/patches.js';
import { setReplicas } from './transform/replicas.js';
import { applyReplacements } from './transform/replacements.js';
import { sortResources } from './transform/sort.js';
import { isObject } from './values.js';
import { parseYamlDocument, parseYamlDocuments } from './yaml.js';

interface Accumulated {
  resources: Resource[];
  config: TransformerConfig;
  kustomization: Kustomization;
}

function appendAll(into: Resource[], more: Resource[], where: string): void {
  for (const r of more) {
    const id = r.curId();
    const clash = into.find((x) => idEquals(x.curId(), id));
    if (clash)
      throw new KustomizeError(
        `${where}: ${describeId(id)} is listed twice (${clash.source} and ${r.source}); remove one`,
      );
    into.push(r);
  }
}

function loadKustomization(dir: string): { kustomization: Kustomization; loader: Loader } {
  const file = findKustomizationFile(dir);
  const shown = displayPath(file);
  const loader = new Loader(dir, file);
  const doc = parseYamlDocument(loader.readFile(file, 'kustomization'), shown, '1.1');
  return { kustomization: parseKustomization(doc, shown, dir), loader };
}

function loadReplacements(k: Kustomization, loader: Loader): Replacement[] {
  const out: Replacement[] = [];
  k.replacements.forEach((entry, i) => {
    if ('replacement' in entry) {
      out.push(entry.replacement);
      return;
    }
    const source = displayPath(loader.resolvePath(entry.path));
    const doc = parseYamlDocuments(loader.readFile(entry.path, 'replacements file'), source, '1.1')[0] ?? null;
    if (Array.isArray(doc)) doc.forEach((r, j) => out.push(parseReplacement(r, `${source}[${j}]`)));
    else if (isObject(doc)) out.push(parseReplacement(doc, source));
    else throw new KustomizeError(`${k.file}: replacements[${i}]: ${source} must hold a replacement or a list of them`);
  });
  return out;
}

function labelSpecs(label: Kustomization['labels'][number], config: TransformerConfig): FieldSpec[] {
  let fss = mergeSpecs(label.fields, config.labels);
  if (label.includeSelectors) return mergeSpecs(fss, config.commonLabels);
  if (label.includeTemplates) fss = mergeSpecs(fss, config.templateLabels);
  return mergeSpec(fss, { gvk: {}, path: 'metadata/labels', create: true });
}

/** One kustomization: its resources (recursively), generators, then transformers in kustomize's fixed order. */
function accumulate(dir: string, chain: string[]): Accumulated {
  const { kustomization: k, loader } = loadKustomization(dir);
  const where = k.file;
  const resources: Resource[] = [];
  let config = emptyTransformerConfig();
  for (const entry of k.resources) {
    if (isRemote(entry))
      throw new KustomizeError(
        `${where}: resource "${entry}" is a remote URL; scaffold build reads local files and directories only`,
      );
    if (loader.isDirectory(entry)) {
      const sub = realpathSync(loader.resolvePath(entry));
      if (chain.includes(sub))
        throw new KustomizeError(
          `${where}: resource "${entry}" makes a cycle: ${[...chain, sub].map(displayPath).join(' -> ')}`,
        );
      const acc = accumulate(sub, [...chain, sub]);
      appendAll(resources, acc.resources, where);
      config = mergeConfig(config, acc.config);
    } else {
      appendAll(resources, loader.readResources(entry), where);
    }
  }
  let own = defaultTransformerConfig();
  for (const c of k.configurations) {
    const source = displayPath(loader.resolvePath(c));
    own = mergeConfig(
      own,
      parseTransformerConfig(parseYamlDocument(loader.readFile(c, 'configuration'), source, '1.1'), source),
    );
  }
  config = mergeConfig(config, own);

  let rs = runGenerators(resources, [...k.configMapGenerator, ...k.secretGenerator], loader, where);

  if (k.patchesStrategicMerge.length > 0) {
    for (const { patch, source } of loadStrategicMergeEntries(
      k.patchesStrategicMerge,
      loader,
      `${where}: patchesStrategicMerge`,
    )) {
      applyStrategicMergePatch(patchTarget(rs, patch, `${where}: patchesStrategicMerge`), patch, source);
      rs = rs.filter((r) => !r.isEmpty());
    }
  }
  k.patches.forEach((spec, i) => {
    const at = `${where}: patches[${i}]`;
    rs = applyPatch(rs, spec, loadPatch(spec, loader, at), at);
  });
  if (k.namespace) setNamespaces(rs, k.namespace, config.namespace, where);
  if (k.namePrefix) addNameAffix(rs, k.namePrefix, config.namePrefix, 'prefix');
  if (k.nameSuffix) addNameAffix(rs, k.nameSuffix, config.nameSuffix, 'suffix');
  for (const label of k.labels) addMapEntries(rs, label.pairs, labelSpecs(label, config));
  addMapEntries(rs, k.commonLabels, config.commonLabels);
  addMapEntries(rs, k.commonAnnotations, config.commonAnnotations);
  k.patchesJson6902.forEach((spec, i) => {
    const at = `${where}: patchesJson6902[${i}]`;
    if (!spec.target?.name) throw new KustomizeError(`${at}: must specify the target name`);
    const loaded = loadPatch(spec, loader, at);
    if (loaded.kind !== 'json')
      throw new KustomizeError(
        `${at}: ${loaded.source} is not a JSON 6902 patch; list strategic-merge patches under patches`,
      );
    rs = applyPatch(rs, spec, loaded, at);
  });
  if (k.replicas.length > 0) setReplicas(rs, k.replicas, config.replicas, where);
  if (k.images.length > 0) setImages(rs, k.images, config.images);
  const replacements = loadReplacements(k, loader);
  if (replacements.length > 0) applyReplacements(rs, replacements, where);
  return { resources: rs, config, kustomization: k };
}

/** The objects `kubectl kustomize dir` would print, in its order. */
export function buildResources(dir: string): Resource[] {
  const root = resolve(dir);
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new KustomizeError(`${displayPath(root)} does not exist; give the directory that holds a kustomization.yaml`);
  }
  const acc = accumulate(real, [real]);
  addHashSuffixes(acc.resources);
  fixNameReferences(acc.resources, acc.config.nameReference);
  return sortResources(acc.resources, acc.kustomization.sortOptions);
}
