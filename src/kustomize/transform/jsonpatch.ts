import { KustomizeError } from '../errors.js';
import { deepEqual, isObject, type JSONObject, type JSONValue } from '../values.js';

/** One RFC 6902 operation. */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: JSONValue;
}

/** Validates the decoded form of an RFC 6902 patch (kustomize accepts it as JSON or YAML). */
export function decodeJsonPatch(doc: JSONValue, where: string): JsonPatchOp[] {
  if (!Array.isArray(doc)) throw new KustomizeError(`${where}: a JSON 6902 patch must be a list of operations`);
  return doc.map((raw, i) => {
    if (!isObject(raw)) throw new KustomizeError(`${where}: operation ${i} must be a mapping with op and path`);
    const op = raw.op;
    if (op !== 'add' && op !== 'remove' && op !== 'replace' && op !== 'move' && op !== 'copy' && op !== 'test') {
      throw new KustomizeError(
        `${where}: operation ${i} has unknown op ${JSON.stringify(op ?? null)} (use add, remove, replace, move, copy or test)`,
      );
    }
    if (typeof raw.path !== 'string') throw new KustomizeError(`${where}: operation ${i} (${op}) needs a string path`);
    const out: JsonPatchOp = { op, path: raw.path };
    if (op === 'move' || op === 'copy') {
      if (typeof raw.from !== 'string')
        throw new KustomizeError(`${where}: operation ${i} (${op}) needs a string from`);
      out.from = raw.from;
    }
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!('value' in raw)) throw new KustomizeError(`${where}: operation ${i} (${op} ${raw.path}) needs a value`);
      out.value = raw.value!;
    }
    return out;
  });
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`path "${pointer}" must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = JSONObject | JSONValue[];

/** Finds the parent of the pointer's last part (evanphx/json-patch's findObject). */
function parentOf(doc: JSONValue, parts: string[], op: string, pointer: string): { parent: Container; key: string } {
  let cur: JSONValue = doc;
  for (const part of parts.slice(0, -1)) {
    let next: JSONValue | undefined;
    if (Array.isArray(cur)) next = cur[arrayIndex(part, cur.length, false, op, pointer)];
    else if (isObject(cur)) next = cur[part];
    if (next === undefined || next === null || typeof next !== 'object') {
      throw new Error(`${op} operation does not apply: doc is missing path: "${pointer}"`);
    }
    cur = next;
  }
  if (!Array.isArray(cur) && !isObject(cur))
    throw new Error(`${op} operation does not apply: doc is missing path: "${pointer}"`);
  return { parent: cur, key: parts[parts.length - 1]! };
}

function arrayIndex(part: string, length: number, forInsert: boolean, op: string, pointer: string): number {
  if (!/^-?\d+$/.test(part))
    throw new Error(`${op} operation does not apply: "${pointer}" indexes a list with "${part}"`);
  let i = Number(part);
  // evanphx/json-patch accepts negative indices, counted from the end.
  if (i < 0) i += length;
  const max = forInsert ? length : length - 1;
  if (i < 0 || i > max)
    throw new Error(`${op} operation does not apply: index ${part} is out of bounds in "${pointer}"`);
  return i;
}

function get(doc: JSONValue, pointer: string, op: string): JSONValue {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return doc;
  const { parent, key } = parentOf(doc, parts, op, pointer);
  const v = Array.isArray(parent) ? parent[arrayIndex(key, parent.length, false, op, pointer)] : parent[key];
  if (v === undefined) throw new Error(`${op} operation does not apply: doc is missing key: "${pointer}"`);
  return v;
}

function add(doc: JSONValue, pointer: string, value: JSONValue, op: string): JSONValue {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return value;
  const { parent, key } = parentOf(doc, parts, op, pointer);
  if (Array.isArray(parent)) {
    if (key === '-') parent.push(value);
    else parent.splice(arrayIndex(key, parent.length, true, op, pointer), 0, value);
  } else {
    parent[key] = value;
  }
  return doc;
}

function remove(doc: JSONValue, pointer: string, op: string): JSONValue {
  const parts = parsePointer(pointer);
  if (parts.length === 0) throw new Error(`${op} operation does not apply: cannot remove the whole document`);
  const { parent, key } = parentOf(doc, parts, op, pointer);
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(key, parent.length, false, op, pointer), 1);
  } else {
    if (!Object.hasOwn(parent, key))
      throw new Error(`${op} operation does not apply: doc is missing key: "${pointer}"`);
    delete parent[key];
  }
  return doc;
}

/** Applies the operations in order to a copy of doc; a failing operation throws with the op and path. */
export function applyJsonPatch(docIn: JSONValue, ops: JsonPatchOp[]): JSONValue {
  let doc = structuredClone(docIn);
  for (const op of ops) {
    try {
      switch (op.op) {
        case 'add':
          doc = add(doc, op.path, structuredClone(op.value!), 'add');
          break;
        case 'remove':
          doc = remove(doc, op.path, 'remove');
          break;
        case 'replace': {
          get(doc, op.path, 'replace');
          const parts = parsePointer(op.path);
          if (parts.length === 0) {
            doc = structuredClone(op.value!);
          } else {
            const { parent, key } = parentOf(doc, parts, 'replace', op.path);
            if (Array.isArray(parent))
              parent[arrayIndex(key, parent.length, false, 'replace', op.path)] = structuredClone(op.value!);
            else parent[key] = structuredClone(op.value!);
          }
          break;
        }
        case 'move': {
          const v = get(doc, op.from!, 'move');
          doc = remove(doc, op.from!, 'move');
          doc = add(doc, op.path, v, 'move');
          break;
        }
        case 'copy':
          doc = add(doc, op.path, structuredClone(get(doc, op.from!, 'copy')), 'copy');
          break;
        case 'test':
          if (!deepEqual(get(doc, op.path, 'test'), op.value!)) throw new Error(`testing value ${op.path} failed`);
          break;
      }
    } catch (e) {
      throw new KustomizeError((e as Error).message);
    }
  }
  return doc;
}
