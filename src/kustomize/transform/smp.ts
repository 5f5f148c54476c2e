import { KustomizeError } from '../errors.js';
import { isObject, type JSONObject, type JSONValue } from '../values.js';
import { schemaFor, type SchemaNode } from './smpschema.js';

// A port of kyaml's merge2 walk, which kustomize uses for strategic-merge patches: the resource is the destination,
// the patch the origin; maps merge field by field, `null` deletes, `$patch: delete|replace|merge` directives apply,
// lists the schema marks as merge lists are merged on their keys (patch elements first, as kustomize prepends), and
// every other list is replaced.

type Value = JSONValue | undefined;
/** A walk result: undefined clears the field; a null kept on purpose (an explicit null the patch left alone) survives. */
type Result = { v: JSONValue; keep?: boolean } | undefined;

type Kind = 'map' | 'seq' | 'scalar' | undefined;

function kindOf(v: Value): Kind {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return 'seq';
  if (isObject(v)) return 'map';
  return 'scalar';
}

/** The text a YAML node holds: a scalar's value, '' for collections. */
function nodeText(v: Value): string {
  if (v === null) return 'null';
  if (v === undefined || typeof v === 'object') return '';
  return String(v);
}

function isEmptyMap(v: Value): boolean {
  return isObject(v) && Object.keys(v).length === 0;
}

function isNilOrEmpty(v: Value): boolean {
  return v === undefined || v === null || isEmptyMap(v) || (Array.isArray(v) && v.length === 0);
}

type Directive = 'merge' | 'delete' | 'replace';

function directiveOf(patch: Value, path: string[]): Directive {
  if (patch === undefined) return 'merge';
  if (isObject(patch)) {
    if (!('$patch' in patch) || patch.$patch === null) return 'merge';
    const v = nodeText(patch.$patch);
    if (v !== 'delete' && v !== 'replace' && v !== 'merge')
      throw new KustomizeError(`unknown patch strategy '${v}' at ${path.join('.') || 'the top level'}`);
    delete patch.$patch;
    return v;
  }
  if (Array.isArray(patch)) {
    const el = patch.find((e) => isObject(e) && '$patch' in e);
    if (!isObject(el) || Object.keys(el).length > 1) return 'merge';
    const v = nodeText(el.$patch);
    if (v !== 'delete' && v !== 'replace' && v !== 'merge')
      throw new KustomizeError(`unknown patch strategy '${v}' at ${path.join('.')}`);
    setElement(patch, undefined, ['$patch'], [v]);
    return v;
  }
  throw new KustomizeError(`no strategic merge patch strategy for a scalar at ${path.join('.')}`);
}

function schemaOf(schema: SchemaNode | undefined, sources: Value[]): SchemaNode | undefined {
  if (schema) return schema;
  for (const s of sources) {
    if (isObject(s) && typeof s.kind === 'string' && typeof s.apiVersion === 'string' && s.kind && s.apiVersion) {
      const found = schemaFor(s.apiVersion, s.kind);
      if (found) return found;
    }
  }
  return undefined;
}

function walk(dest: Value, origin: Value, schemaIn: SchemaNode | undefined, path: string[]): Result {
  const schema = schemaOf(schemaIn, [dest, origin]);
  const kind = kindOf(dest) ?? kindOf(origin);
  for (const s of [dest, origin]) {
    const k = kindOf(s);
    if (k !== undefined && k !== kind) {
      throw new KustomizeError(
        `the patch has a ${k === 'seq' ? 'list' : k === 'map' ? 'mapping' : 'scalar'} at ${path.join('.')}, where the resource has a ${kind === 'seq' ? 'list' : kind === 'map' ? 'mapping' : 'scalar'}`,
      );
    }
  }
  if (kind === 'seq') {
    if (schema?.strategy?.split(',').includes('merge')) return walkMergeList(dest, origin, schema, path);
    return origin !== undefined ? { v: origin } : dest === undefined ? undefined : { v: dest };
  }
  if (kind === 'scalar') return origin !== undefined ? { v: origin } : dest === undefined ? undefined : { v: dest };
  return walkMap(dest, origin, schema, path);
}

function visitMap(dest: Value, origin: Value, path: string[]): Result {
  if (dest === undefined || dest === null) {
    if (directiveOf(origin, path) === 'delete') return undefined;
    if (origin === undefined && dest === null) return { v: null, keep: true };
    return origin === undefined ? undefined : { v: origin };
  }
  if (origin === null) return undefined;
  switch (directiveOf(origin, path)) {
    case 'delete':
      return undefined;
    case 'replace':
      return { v: origin! };
    default:
      return { v: dest };
  }
}

function walkMap(dest: Value, origin: Value, schema: SchemaNode | undefined, path: string[]): Result {
  const r = visitMap(dest, origin, path);
  if (!r || !isObject(r.v)) return r;
  const d = r.v;
  const o = isObject(origin) ? origin : undefined;
  const names = [...new Set([...Object.keys(d), ...(o ? Object.keys(o) : [])])].sort();
  for (const key of names) {
    const res = walk(d[key], o ? o[key] : undefined, schema?.fields?.[key], [...path, key]);
    if (!res || (res.v === null && !res.keep)) delete d[key];
    else d[key] = res.v;
  }
  return { v: d };
}

function walkMergeList(dest: Value, origin: Value, schema: SchemaNode, path: string[]): Result {
  let d: JSONValue[];
  if (dest === undefined || dest === null) {
    if (origin === undefined || origin === null) return origin === null ? { v: null } : undefined;
    d = origin as JSONValue[];
  } else {
    if (origin === null) return undefined;
    const ps = directiveOf(origin, path);
    if (ps === 'delete') return undefined;
    d = ps === 'replace' ? (origin as JSONValue[]) : (dest as JSONValue[]);
  }
  const o = Array.isArray(origin) ? origin : undefined;
  const keys = schema.keys ?? [];
  const values = keys.length > 0 ? elementValues([d, o], keys) : [];
  if (values.length > 0 || keys.length > 0) return { v: setElements(values, keys, d, o, schema.items, path) };
  return { v: setElements(primitiveValues([d, o]), [''], d, o, schema.items, path) };
}

// Patch (origin) elements first, then the resource's: kustomize merges with ListIncreaseDirection Prepend.
function elementValues(sources: [JSONValue[], JSONValue[] | undefined], keys: string[]): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const src of [sources[1], sources[0]]) {
    if (!src) continue;
    for (const el of src) {
      const tuple = keys.map((k) => {
        const f = isObject(el) ? el[k] : undefined;
        return isNilOrEmpty(f) ? '' : nodeText(f);
      });
      const id = JSON.stringify(tuple);
      if (tuple.length === 0 || seen.has(id)) continue;
      seen.add(id);
      out.push(tuple);
    }
  }
  return out;
}

function primitiveValues(sources: [JSONValue[], JSONValue[] | undefined]): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const src of [sources[1], sources[0]]) {
    if (!src) continue;
    for (const el of src) {
      const t = nodeText(el);
      if (seen.has(t)) continue;
      seen.add(t);
      out.push([t]);
    }
  }
  return out;
}

function validateKeys(valuesList: string[][], values: string[], keys: string[]): [string[], string[]] {
  const valid = new Set<string>();
  for (const vs of valuesList) vs.forEach((v, i) => v !== '' && valid.add(keys[i]!));
  if (valid.size === 0) return [keys, values];
  return [keys.filter((k) => valid.has(k)), values.filter((v, i) => v !== '' || valid.has(keys[i]!))];
}

function matchValues(a: string[], b: string[]): [boolean, string[]] {
  if (a.length !== b.length) return [false, []];
  let common = false;
  const res: string[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) {
      common = true;
      res.push(a[i]!);
      continue;
    }
    if (a[i] !== '' && b[i] !== '') return [false, []];
    res.push(a[i] !== '' ? a[i]! : b[i]!);
  }
  return [common, res];
}

function mergeValues(valuesList: string[][]): string[][] {
  for (let i = 0; i < valuesList.length; i++) {
    for (let j = 0; j < valuesList.length; j++) {
      const [matched, values] = matchValues(valuesList[i]!, valuesList[j]!);
      if (matched) {
        valuesList[i] = values;
        valuesList[j] = values;
      }
    }
  }
  return valuesList;
}

/** kyaml's FieldMatcher on one list element: does field `name` (or the scalar itself, for '') read `value`? */
function fieldMatches(el: JSONValue, name: string, value: string): boolean {
  if (el === null) return false;
  if (name === '') {
    if (typeof el === 'object') throw new KustomizeError('a merge list mixes scalars and mappings');
    return nodeText(el) === value;
  }
  if (!isObject(el)) throw new KustomizeError('a merge list mixes scalars and mappings');
  return Object.hasOwn(el, name) && nodeText(el[name]) === value;
}

function findElement(list: JSONValue[] | undefined, keys: string[], values: string[]): Value {
  if (!list) return undefined;
  if (keys.length === 0 || keys[0] === '') return list.find((el) => nodeText(el) === (values[0] ?? ''));
  return list.find((el) => isObject(el) && keys.every((k, i) => Object.hasOwn(el, k) && nodeText(el[k]) === values[i]));
}

/** kyaml's ElementSetter: replace (element given) or delete (undefined) the element matching keys/values; drops empty elements. */
function setElement(list: JSONValue[], element: Value, keysIn: string[], values: string[]): void {
  const keys = keysIn.length === 0 ? [''] : keysIn;
  const mappingSetter = keys[0] !== '' && values.length > 0 && values[0] !== '';
  const next: JSONValue[] = [];
  let matched = false;
  for (const el of list) {
    if (el === null || isEmptyMap(el)) continue;
    if (!isObject(el) && mappingSetter) {
      next.push(el);
      continue;
    }
    let found = true;
    let hit = false;
    for (let j = 0; j < keys.length; j++) {
      if (j < values.length) hit = fieldMatches(el, keys[j]!, values[j]!);
      if (!hit) {
        found = false;
        break;
      }
    }
    if (!found) {
      if (values.length > 0) next.push(el);
      continue;
    }
    matched = true;
    if (element === undefined) continue;
    next.push(element);
  }
  list.splice(0, list.length, ...next);
  if (element === undefined || element === null) return;
  if (!matched) list.push(element);
}

function appendListNode(dst: JSONValue[], src: JSONValue[], keys: string[]): JSONValue[] {
  for (const el of [...src]) {
    if (keys[0] === '') {
      setElement(dst, el, [''], [nodeText(el)]);
      continue;
    }
    const v: string[] = [];
    for (const key of keys) {
      if (!isObject(el)) throw new KustomizeError('a merge list mixes scalars and mappings');
      if (!Object.hasOwn(el, key)) {
        dst.push(el);
        continue;
      }
      v.push(nodeText(el[key]));
    }
    if (keys.length > 1) setElement(dst, undefined, keys, v);
    setElement(dst, el, keys, v);
  }
  return dst;
}

function setElements(
  valuesListIn: string[][],
  keys: string[],
  d: JSONValue[],
  o: JSONValue[] | undefined,
  itemSchema: SchemaNode | undefined,
  path: string[],
): JSONValue[] {
  const items: JSONValue[] = [];
  const valuesList = keys.length > 1 ? mergeValues(valuesListIn) : valuesListIn;
  let validKeys: string[] = [];
  let validValues: string[] = [];
  for (const values of valuesList) {
    if (values.length === 0) continue;
    [validKeys, validValues] = validateKeys(valuesList, values, keys);
    const [k2, v2] = validateKeys([validValues], validValues, validKeys);
    const val = walk(findElement(d, k2, v2), findElement(o, k2, v2), itemSchema, [
      ...path,
      `[${validKeys.map((k, i) => `${k}=${validValues[i]}`).join(',')}]`,
    ]);
    if (!val || val.v === null || isEmptyMap(val.v)) {
      setElement(d, undefined, validKeys, validValues);
      continue;
    }
    if (isObject(val.v)) {
      const obj: JSONObject = val.v;
      validKeys.forEach((key, i) => {
        if (!Object.hasOwn(obj, key) && validValues[i] !== '') obj[key] = validValues[i]!;
      });
    }
    setElement(items, val.v, validKeys, validValues);
  }
  if (valuesList.length > 0) return appendListNode(items, d, validKeys);
  return d;
}

/**
 * Applies a strategic-merge patch to obj (both are modified) and returns the result, or undefined when the patch
 * deletes the whole object.
 */
export function strategicMerge(obj: JSONObject, patch: JSONObject): JSONObject | undefined {
  const r = walk(obj, patch, undefined, []);
  if (!r || !isObject(r.v) || Object.keys(r.v).length === 0) return undefined;
  return r.v;
}
