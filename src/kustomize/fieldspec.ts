import { KustomizeError } from './errors.js';
import { gvkSelected, parseApiVersion, type Gvk } from './resid.js';
import { isObject, stringField, type JSONObject, type JSONValue } from './values.js';

/** A field kustomize transforms, in kinds matching gvk (empty parts match anything). */
export interface FieldSpec {
  gvk: Partial<Gvk>;
  path: string;
  create: boolean;
}

/** A place in a document: read it, or replace what is there. */
export interface FieldRef {
  get(): JSONValue | undefined;
  set(v: JSONValue): void;
  /** The map or list holding the field, and its key there (absent for a document's root). */
  readonly container?: JSONObject | JSONValue[];
  readonly key?: string | number;
}

/** What to create for a missing field a spec reaches: a scalar (''), a map or a sequence; undefined creates nothing. */
export type CreateKind = 'scalar' | 'map' | 'seq' | undefined;

/** A reference to `container[key]` that can read and replace the value in place. */
export function fieldRef(container: JSONObject | JSONValue[], key: string | number): FieldRef {
  return {
    container,
    key,
    get: () => (Array.isArray(container) ? container[key as number] : (container as JSONObject)[key as string]),
    set: (v) => {
      if (Array.isArray(container)) container[key as number] = v;
      else (container as JSONObject)[key as string] = v;
    },
  };
}

/** Splits a field-spec path on the delimiter, honouring backslash-escaped delimiters and one leading delimiter. */
export function splitPath(path: string, delimiter = '/'): string[] {
  let parts = path.split(delimiter);
  if (parts.length > 1 && parts[0] === '') parts = parts.slice(1);
  const out: string[] = [parts[0] ?? ''];
  for (let i = 1; i < parts.length; i++) {
    const last = out.length - 1;
    if (out[last]!.endsWith('\\')) out[last] = out[last]!.slice(0, -1) + delimiter + parts[i];
    else out.push(parts[i]!);
  }
  return out;
}

/** Whether a field spec's group/version/kind selects the object (empty parts match anything). */
export function specMatches(fs: FieldSpec, obj: JSONObject): boolean {
  const kind = stringField(obj, 'kind');
  if (fs.gvk.kind && fs.gvk.kind !== kind) return false;
  const { group, version } = parseApiVersion(stringField(obj, 'apiVersion'));
  return gvkSelected({ group, version, kind }, fs.gvk);
}

/**
 * Calls setValue on every field the spec's path reaches in obj (kustomize's fieldspec filter): path parts walk maps,
 * sequences are walked element by element without consuming a part, and missing fields are created only when the spec
 * says create and a createKind is given.
 */
export function applyFieldSpec(
  obj: JSONObject,
  fs: FieldSpec,
  setValue: (ref: FieldRef) => void,
  createKind: CreateKind,
): void {
  if (!specMatches(fs, obj)) return;
  const root: FieldRef = { get: () => obj, set: () => undefined };
  try {
    walk(root, splitPath(fs.path), fs, setValue, createKind);
  } catch (e) {
    if (e instanceof KustomizeError) {
      throw new KustomizeError(
        `considering field '${fs.path}' of ${stringField(obj, 'kind')}/${stringField(obj, 'metadata', 'name')}: ${e.message}`,
      );
    }
    throw e;
  }
}

function walk(
  ref: FieldRef,
  path: string[],
  fs: FieldSpec,
  setValue: (ref: FieldRef) => void,
  createKind: CreateKind,
): void {
  if (path.length === 0) {
    setValue(ref);
    return;
  }
  const node = ref.get();
  if (node === null || node === undefined) return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) walk(fieldRef(node, i), path, fs, setValue, createKind);
    return;
  }
  if (!isObject(node)) throw new KustomizeError('expected sequence or mapping node');
  const head = path[0]!;
  const isSeq = head.endsWith('[]');
  const name = isSeq ? head.slice(0, -2) : head;
  if (name === '') throw new KustomizeError('cannot set or create an empty field name');
  let kind: CreateKind;
  let create = false;
  if (!fs.create || createKind === undefined || isSeq) {
    kind = isSeq ? 'seq' : undefined;
  } else if (path.length <= 1) {
    kind = createKind;
    create = true;
  } else {
    kind = 'map';
    create = true;
  }
  if (!Object.hasOwn(node, name)) {
    if (!create) return;
    node[name] = emptyOf(kind);
  } else if (node[name] === null && kind !== undefined) {
    // A null field the spec may create becomes an empty value of the created kind.
    node[name] = emptyOf(kind);
  }
  walk(fieldRef(node, name), path.slice(1), fs, setValue, createKind);
}

function emptyOf(kind: CreateKind): JSONValue {
  if (kind === 'map') return {};
  if (kind === 'seq') return [];
  return '';
}
