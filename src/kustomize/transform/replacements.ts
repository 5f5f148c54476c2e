import { KustomizeError } from '../errors.js';
import type { FieldRef } from '../fieldspec.js';
import type { FieldOptions, Replacement, ReplacementTarget, Selector } from '../kustomization.js';
import { lookup, matchPath, splitFieldPath } from '../paths.js';
import { idSelectedBy, type ResId } from '../resid.js';
import type { Resource } from '../resource.js';
import { isObject, scalarText, type JSONValue } from '../values.js';
import { matchesLabelAndAnnotationSelectors } from './select.js';

function selectorId(s: { gvk: Selector['gvk']; name: string; namespace: string }) {
  return { gvk: s.gvk, name: s.name, namespace: s.namespace };
}

function isEmptySelectorId(s: Selector): boolean {
  return !s.gvk.group && !s.gvk.version && !s.gvk.kind && !s.name && !s.namespace;
}

function describeSelector(s: { gvk: Selector['gvk']; name: string; namespace?: string }): string {
  const parts = [
    s.gvk.group && `group ${s.gvk.group}`,
    s.gvk.version && `version ${s.gvk.version}`,
    s.gvk.kind && `kind ${s.gvk.kind}`,
    s.name && `name ${s.name}`,
    s.namespace && `namespace ${s.namespace}`,
  ];
  return parts.filter(Boolean).join(', ') || 'an empty selector';
}

// kustomize keeps a scalar's YAML tag when it writes a value into it, but a scalar it creates has no tag until the
// output is read back: "8443" written there becomes a number. These remember the scalars created here.
class CreatedScalars {
  private readonly refs = new Map<object, Set<string | number>>();
  add(container: object, key: string | number) {
    if (!this.refs.has(container)) this.refs.set(container, new Set());
    this.refs.get(container)!.add(key);
  }
  has(container: object, key: string | number) {
    return this.refs.get(container)?.has(key) ?? false;
  }
  resolveAll() {
    for (const [container, keys] of this.refs) {
      for (const key of keys) {
        const c = container as Record<string | number, JSONValue>;
        if (typeof c[key] === 'string') c[key] = resolvePlainScalar(c[key]);
      }
    }
  }
}

/** What an untagged plain YAML scalar means (YAML 1.2 core schema, as yaml.v3 resolves it). */
export function resolvePlainScalar(text: string): JSONValue {
  if (text === '' || text === '~' || /^(null|Null|NULL)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.slice(2), 16);
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

interface TrackedRef extends FieldRef {
  /** The field was created by this replacement transformer and has no type yet. */
  created: boolean;
}

function sourceValue(resources: Resource[], r: Replacement, where: string): JSONValue {
  const sel = r.source;
  const matches = resources.filter((res) =>
    [res.curId(), ...res.prevIds()].some((id) => idSelectedBy(id, selectorId(sel))),
  );
  if (matches.length > 1)
    throw new KustomizeError(
      `${where}: the source (${describeSelector(sel)}) matches ${matches.length} resources: ${matches.map((m) => `${m.kind}/${m.name}`).join(', ')}; add a kind, name or namespace`,
    );
  if (matches.length === 0)
    throw new KustomizeError(`${where}: nothing is selected by the source (${describeSelector(sel)})`);
  const fieldPath = sel.fieldPath || 'metadata.name';
  const value = lookup(matches[0]!.obj, splitFieldPath(fieldPath));
  if (
    value === undefined ||
    value === null ||
    (isObject(value) && Object.keys(value).length === 0) ||
    (Array.isArray(value) && value.length === 0)
  ) {
    throw new KustomizeError(
      `${where}: fieldPath \`${fieldPath}\` is missing for replacement source ${matches[0]!.kind}/${matches[0]!.name}`,
    );
  }
  return refine(sel.options, value, where);
}

function refine(options: FieldOptions | undefined, value: JSONValue, where: string): JSONValue {
  if (!options || options.delimiter === '') return value;
  if (typeof value === 'object')
    throw new KustomizeError(`${where}: the delimiter option can only be used with scalar values`);
  const parts = scalarText(value).split(options.delimiter);
  if (options.index >= parts.length || options.index < 0) {
    throw new KustomizeError(
      `${where}: options.index ${options.index} is out of bounds for value ${scalarText(value)}`,
    );
  }
  // The source keeps its type: only the text changes.
  return retype(value, parts[options.index]!, where);
}

/** Writes text into a scalar of value's type (kustomize copies only the text into a typed node). */
function retype(like: JSONValue, text: string, where: string): JSONValue {
  if (typeof like === 'number') {
    const n = Number(text);
    if (text.trim() === '' || Number.isNaN(n))
      throw new KustomizeError(`${where}: cannot write "${text}" into a number field`);
    return n;
  }
  if (typeof like === 'boolean') {
    if (text !== 'true' && text !== 'false')
      throw new KustomizeError(`${where}: cannot write "${text}" into a boolean field`);
    return text === 'true';
  }
  return text;
}

function setTarget(ref: TrackedRef, value: JSONValue, options: FieldOptions | undefined, where: string): void {
  const cur = ref.get();
  const scalar = cur === null || cur === undefined || typeof cur !== 'object';
  if (options && options.delimiter !== '') {
    if (!scalar) throw new KustomizeError(`${where}: the delimiter option can only be used with scalar target fields`);
    const parts = scalarText(cur ?? '').split(options.delimiter);
    const v = scalarText(value);
    if (options.index < 0) parts.unshift(v);
    else if (options.index >= parts.length) parts.push(v);
    else parts[options.index] = v;
    const text = parts.join(options.delimiter);
    ref.set(ref.created || cur === null || cur === undefined ? text : retype(cur, text, where));
    return;
  }
  if (scalar && typeof value !== 'object') {
    const text = scalarText(value);
    ref.set(ref.created || cur === null || cur === undefined ? text : retype(cur, text, where));
    return;
  }
  ref.set(structuredClone(value));
}

function applyToTarget(
  res: Resource,
  value: JSONValue,
  target: ReplacementTarget,
  created: CreatedScalars,
  where: string,
): void {
  const fieldPaths = target.fieldPaths.length > 0 ? target.fieldPaths : ['metadata.name'];
  for (const fp of fieldPaths) {
    const createKind = target.options?.create
      ? Array.isArray(value)
        ? 'seq'
        : isObject(value)
          ? 'map'
          : 'scalar'
      : undefined;
    const root: FieldRef = { get: () => res.obj, set: () => undefined };
    let refs: FieldRef[];
    try {
      refs = matchPath(root, splitFieldPath(fp), createKind, (ref) => {
        if (ref.container && ref.key !== undefined) created.add(ref.container, ref.key);
      });
    } catch (e) {
      throw new KustomizeError(
        `${where}: unable to ${createKind ? 'find or create' : 'find'} field "${fp}" in ${res.describe()}: ${(e as Error).message}`,
      );
    }
    if (refs.length === 0) {
      throw new KustomizeError(
        `${where}: unable to ${createKind ? 'find or create' : 'find'} field "${fp}" in replacement target ${res.describe()}${createKind ? '' : ' (set options.create: true to add it)'}`,
      );
    }
    for (const ref of refs) {
      const tracked: TrackedRef = {
        ...ref,
        created: ref.container !== undefined && ref.key !== undefined && created.has(ref.container, ref.key),
      };
      setTarget(tracked, value, target.options, where);
    }
  }
}

/** `replacements:`: copies a field of one resource into fields of others, in order. */
export function applyReplacements(resources: Resource[], replacements: Replacement[], where: string): void {
  const created = new CreatedScalars();
  replacements.forEach((r, i) => {
    const at = `${where}: replacements[${i}]`;
    const value = sourceValue(resources, r, at);
    r.targets.forEach((t, j) => {
      const tw = `${at}.targets[${j}]`;
      for (const res of resources) {
        const ids: ResId[] = [res.curId(), ...res.prevIds()];
        if (!matchesLabelAndAnnotationSelectors(res, t.select, tw)) continue;
        if (
          t.reject.some(
            (rej) => (rej.labelSelector || rej.annotationSelector) && matchesLabelAndAnnotationSelectors(res, rej, tw),
          )
        )
          continue;
        const rejected = t.reject.some(
          (rej) => !isEmptySelectorId(rej) && ids.some((id) => idSelectedBy(id, selectorId(rej))),
        );
        if (rejected) continue;
        if (ids.some((id) => idSelectedBy(id, selectorId(t.select)))) applyToTarget(res, value, t, created, tw);
      }
    });
  });
  created.resolveAll();
}
