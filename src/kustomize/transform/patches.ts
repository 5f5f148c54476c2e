import { KustomizeError } from '../errors.js';
import type { PatchSpec } from '../kustomization.js';
import { displayPath, resourcesFromText, type Loader } from '../loader.js';
import { describeId, idEquals } from '../resid.js';
import type { Resource } from '../resource.js';
import { isObject, type JSONValue } from '../values.js';
import { parseYamlDocuments } from '../yaml.js';
import { applyJsonPatch, decodeJsonPatch, type JsonPatchOp } from './jsonpatch.js';
import { selectResources } from './select.js';
import { strategicMerge } from './smp.js';

/** A patch file or inline patch once read: strategic-merge patch objects, or JSON 6902 operations. */
export type LoadedPatch =
  { kind: 'smp'; patches: Resource[]; source: string } | { kind: 'json'; ops: JsonPatchOp[]; source: string };

function tryStrategicMerge(text: string, source: string): Resource[] | Error {
  try {
    const docs = resourcesFromText(text, source);
    return docs.length > 0 ? docs : new Error('no objects');
  } catch (e) {
    return e as Error;
  }
}

function tryJsonPatch(text: string, source: string): JsonPatchOp[] | Error {
  try {
    let doc: JSONValue;
    if (text.startsWith('[')) doc = JSON.parse(text) as JSONValue;
    else doc = parseYamlDocuments(text, source, '1.1')[0] ?? null;
    return decodeJsonPatch(doc, source);
  } catch (e) {
    return e as Error;
  }
}

/** Reads a `patches:` entry and decides, as kustomize does, whether it is a strategic-merge or a JSON 6902 patch. */
export function loadPatch(spec: PatchSpec, loader: Loader, where: string): LoadedPatch {
  const inline = spec.patch.trim();
  if (inline === '' && spec.path === '') throw new KustomizeError(`${where}: must specify one of patch and path`);
  if (inline !== '' && spec.path !== '')
    throw new KustomizeError(`${where}: patch and path can't be set at the same time`);
  const text = inline !== '' ? inline : loader.readFile(spec.path, 'patch');
  const source = inline !== '' ? `${where} (inline patch)` : displayPath(loader.resolvePath(spec.path));
  const sm = tryStrategicMerge(text, source);
  const json = tryJsonPatch(text.trim(), source);
  if (!(sm instanceof Error) && !(json instanceof Error))
    throw new KustomizeError(`${source} qualifies as both a strategic-merge and a JSON patch`);
  if (sm instanceof Error && json instanceof Error) {
    const looksJson = text.trimStart().startsWith('-') || text.trimStart().startsWith('[');
    throw new KustomizeError(
      `${where}: unable to parse ${source} as a strategic-merge or JSON 6902 patch: ${(looksJson ? json : sm).message}`,
    );
  }
  if (!(sm instanceof Error)) {
    for (const p of sm) {
      p.allowNameChange = spec.allowNameChange;
      p.allowKindChange = spec.allowKindChange;
    }
    return { kind: 'smp', patches: sm, source };
  }
  if ((json as JsonPatchOp[]).length === 0) throw new KustomizeError(`${where}: ${source} has no operations`);
  return { kind: 'json', ops: json as JsonPatchOp[], source };
}

/** Resource.ApplySmPatch: merge, then keep the resource's name, kind and namespace unless the patch may change them. */
export function applyStrategicMergePatch(res: Resource, patch: Resource, source: string): void {
  const { name, namespace, kind } = res;
  if (patch.allowNameChange || patch.allowKindChange) res.storePreviousId();
  let merged;
  try {
    merged = strategicMerge(res.obj, structuredClone(patch.obj));
  } catch (e) {
    throw new KustomizeError(`applying ${source} to ${res.describe()}: ${(e as Error).message}`);
  }
  if (!merged) {
    res.obj = {};
    return;
  }
  res.obj = merged;
  if (!patch.allowKindChange) res.kind = kind;
  if (!patch.allowNameChange) res.name = name;
  res.namespace = namespace;
}

function applyToSelected(resources: Resource[], selected: Resource[], patch: Resource, source: string): Resource[] {
  for (const res of selected) {
    const copy = patch.copy();
    copy.obj.apiVersion = res.apiVersion;
    copy.kind = patch.kind;
    applyStrategicMergePatch(res, copy, source);
  }
  return resources.filter((r) => !r.isEmpty());
}

/** The resource a target-less strategic-merge patch names (by any of its ids), which must be exactly one. */
export function patchTarget(resources: Resource[], patch: Resource, where: string): Resource {
  const id = patch.orgId();
  const matches = resources.filter((r) => r.allIds().some((x) => idEquals(x, id)));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new KustomizeError(
      `${where}: no resource matches the strategic-merge patch for ${describeId(id)} (apiVersion ${patch.apiVersion}); check its kind, name and namespace, or give the patch a target`,
    );
  }
  throw new KustomizeError(
    `${where}: the strategic-merge patch for ${describeId(id)} matches ${matches.length} resources; give it a target or a namespace`,
  );
}

/** Applies one `patches:` entry to the resources; returns the resources left (a patch can delete some). */
export function applyPatch(resources: Resource[], spec: PatchSpec, loaded: LoadedPatch, where: string): Resource[] {
  if (loaded.kind === 'smp') {
    if (spec.target) {
      if (loaded.patches.length > 1) {
        throw new KustomizeError(
          `${where}: a patches entry with a target may hold only one strategic-merge patch, ${loaded.source} holds ${loaded.patches.length}`,
        );
      }
      return applyToSelected(
        resources,
        selectResources(resources, spec.target, where),
        loaded.patches[0]!,
        loaded.source,
      );
    }
    for (const patch of loaded.patches) {
      const target = patchTarget(resources, patch, where);
      applyStrategicMergePatch(target, patch, loaded.source);
      resources = resources.filter((r) => !r.isEmpty());
    }
    return resources;
  }
  if (!spec.target)
    throw new KustomizeError(
      `${where}: the JSON patch ${loaded.source} needs a target (kind, name, ...) to say which resources it applies to`,
    );
  for (const res of selectResources(resources, spec.target, where)) {
    res.storePreviousId();
    let out: JSONValue;
    try {
      out = applyJsonPatch(res.obj, loaded.ops);
    } catch (e) {
      throw new KustomizeError(`${where}: applying ${loaded.source} to ${res.describe()}: ${(e as Error).message}`);
    }
    if (!isObject(out))
      throw new KustomizeError(
        `${where}: ${loaded.source} turned ${res.describe()} into something that is not an object`,
      );
    res.obj = out;
  }
  return resources;
}

/** `patchesStrategicMerge:` entries: each is inline patch text or, failing that, a file. */
export function loadStrategicMergeEntries(
  entries: string[],
  loader: Loader,
  where: string,
): Array<{ patch: Resource; source: string }> {
  const out: Array<{ patch: Resource; source: string }> = [];
  entries.forEach((entry, i) => {
    const inline = tryStrategicMerge(entry, `${where}[${i}]`);
    if (!(inline instanceof Error)) {
      for (const p of inline) out.push({ patch: p, source: `${where}[${i}] (inline patch)` });
      return;
    }
    const source = displayPath(loader.resolvePath(entry));
    const docs = resourcesFromText(loader.readFile(entry, 'patch'), source);
    if (docs.length === 0) throw new KustomizeError(`${where}[${i}]: ${source} holds no patch`);
    for (const p of docs) out.push({ patch: p, source });
  });
  return out;
}
