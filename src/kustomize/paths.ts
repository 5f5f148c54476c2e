import { KustomizeError } from './errors.js';
import { fieldRef, splitPath, type FieldRef } from './fieldspec.js';
import { isObject, scalarText, type JSONValue } from './values.js';

// kyaml's dotted field paths, as replacements use them: "spec.containers.[name=manager].image", "metadata.annotations.[a/b]",
// "spec.dnsNames.0", "spec.*.name".

/** kyaml's SmarterPathSplitter: bracketed parts survive splitting; brackets without '=' are removed (map keys with dots). */
export function splitFieldPath(path: string): string[] {
  const split = splitPath(path, '.');
  const out: string[] = [];
  for (let i = 0; i < split.length; i++) {
    const elem = split[i]!;
    if (elem.startsWith('[') && !elem.endsWith(']')) {
      const bracketed = [elem];
      while (i < split.length - 1) {
        i++;
        bracketed.push(split[i]!);
        if (split[i]!.endsWith(']')) break;
      }
      const joined = bracketed.join('.');
      out.push(joined.includes('=') ? joined : joined.replace(/^\[+|\]+$/g, ''));
    } else {
      out.push(elem);
    }
  }
  return out.map((p) => p.trim()).filter((p) => p !== '');
}

const isIndex = (p: string) => /^\d+$/.test(p);
const isListMatch = (p: string) => p.startsWith('[') && p.endsWith(']');

function splitMatch(part: string): { field: string; value: string } {
  const inner = part.slice(1, -1);
  const eq = inner.indexOf('=');
  if (eq < 0) throw new KustomizeError(`"${part}" must have the form [field=value]`);
  return { field: inner.slice(0, eq), value: inner.slice(eq + 1) };
}

/** kyaml's Lookup (PathGetter without create): the value at the path, or undefined. */
export function lookup(root: JSONValue, parts: string[]): JSONValue | undefined {
  let cur: JSONValue | undefined = root;
  for (const part of parts) {
    if (cur === undefined || cur === null) return undefined;
    if (isIndex(part) || part === '-') {
      if (!Array.isArray(cur)) throw new KustomizeError(`"${part}" indexes a list, but the field is not a list`);
      cur = part === '-' ? cur[cur.length - 1] : cur[Number(part)];
    } else if (part === '*') {
      throw new KustomizeError('wildcard is not supported in a source fieldPath');
    } else if (isListMatch(part)) {
      if (!Array.isArray(cur)) throw new KustomizeError(`"${part}" matches list elements, but the field is not a list`);
      const { field, value } = splitMatch(part);
      cur = cur.find((el) =>
        field === '' ? scalarText(el) === value : isObject(el) && scalarText(el[field]) === value,
      );
    } else {
      if (!isObject(cur)) throw new KustomizeError(`"${part}" names a field, but the value there is not a mapping`);
      cur = Object.hasOwn(cur, part) ? cur[part] : undefined;
    }
  }
  return cur;
}

/**
 * What matchPath creates for a missing field at the end of a path: a scalar (''), a map or a sequence; undefined
 * creates nothing.
 */
export type CreateKind = 'scalar' | 'map' | 'seq' | undefined;

function emptyOf(kind: CreateKind): JSONValue {
  return kind === 'map' ? {} : kind === 'seq' ? [] : '';
}

function partKind(next: string | undefined, create: CreateKind): CreateKind {
  if (next === undefined) return create;
  if (isListMatch(next) || isIndex(next)) return 'seq';
  return 'map';
}

/**
 * kyaml's PathMatcher: every field the path reaches; [field=regexp] and * match several list elements. With create,
 * missing fields (and a list element named by [field=value]) are made, the leaf as createKind. onCreate reports leaves
 * made here, whose type kustomize leaves open until they are written.
 */
export function matchPath(
  ref: FieldRef,
  parts: string[],
  create: CreateKind,
  onCreate: (ref: FieldRef) => void,
): FieldRef[] {
  if (parts.length === 0) return [ref];
  const node = ref.get();
  const [head, ...rest] = parts as [string, ...string[]];
  if (isIndex(head)) {
    if (!Array.isArray(node)) throw new KustomizeError(`"${head}" indexes a list, but the field is not a list`);
    const idx = Number(head);
    if (node.length === idx && create) {
      node.push(emptyOf(partKind(rest[0], create)));
      if (rest.length === 0) onCreate(fieldRef(node, idx));
    }
    if (node.length < idx + 1)
      throw new KustomizeError(`index ${idx} specified but only ${node.length} elements found`);
    return matchPath(fieldRef(node, idx), rest, create, onCreate);
  }
  if (isListMatch(head)) {
    if (!Array.isArray(node)) throw new KustomizeError(`"${head}" matches list elements, but the field is not a list`);
    const { field, value } = splitMatch(head);
    const re = new RegExp(value);
    const visit = (): FieldRef[] => {
      const found: FieldRef[] = [];
      node.forEach((el, i) => {
        if (field === '') {
          if (re.test(scalarText(el).trim())) found.push(fieldRef(node, i));
        } else if (isObject(el) && Object.hasOwn(el, field) && re.test(scalarText(el[field]).trim())) {
          found.push(...matchPath(fieldRef(node, i), rest, create, onCreate));
        }
      });
      return found;
    };
    const found = visit();
    if (found.length > 0 || !create) return found;
    node.push(field === '' ? value : { [field]: value });
    return visit();
  }
  if (head === '*') {
    if (!Array.isArray(node)) throw new KustomizeError('"*" matches list elements, but the field is not a list');
    return node.flatMap((_, i) => matchPath(fieldRef(node, i), rest, create, onCreate));
  }
  if (node === undefined || node === null) return [];
  if (!isObject(node)) throw new KustomizeError(`"${head}" names a field, but the value there is not a mapping`);
  if (!Object.hasOwn(node, head)) {
    if (!create) return [];
    node[head] = emptyOf(partKind(rest[0], create));
    if (rest.length === 0) onCreate(fieldRef(node, head));
  }
  return matchPath(fieldRef(node, head), rest, create, onCreate);
}
