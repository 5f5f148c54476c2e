import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { KustomizeError } from '../errors.js';
import type { GeneratorArgs } from '../kustomization.js';
import { displayPath, type Loader } from '../loader.js';
import { describeId, idEquals } from '../resid.js';
import { Resource } from '../resource.js';
import { isObject, type JSONObject, type JSONValue } from '../values.js';

const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function checkKey(key: string, where: string): void {
  if (key.length > 253 || !CONFIG_MAP_KEY.test(key) || key === '.' || key === '..' || key.startsWith('..')) {
    throw new KustomizeError(
      `${where}: "${key}" is not a valid key name: a valid key must consist of alphanumeric characters, '-', '_' or '.'`,
    );
  }
}

function removeQuotes(s: string): string {
  if (s.length < 2 || s[0] !== s[s.length - 1]) return s;
  return s[0] === '"' || s[0] === "'" ? s.slice(1, -1) : s;
}

/** Key/value pairs in kustomize's order: env files, then literals, then files. */
function loadPairs(args: GeneratorArgs, loader: Loader, where: string): Array<{ key: string; value: Buffer }> {
  const pairs: Array<{ key: string; value: Buffer }> = [];
  for (const env of args.envs) {
    const text = loader.readFile(env, 'env file');
    text.split('\n').forEach((rawLine, n) => {
      let line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
      if (n === 0 && line.startsWith('\uFEFF')) line = line.slice(1);
      line = line.replace(/^\s+/, '');
      if (line === '' || line.startsWith('#')) return;
      const eq = line.indexOf('=');
      const key = eq < 0 ? line : line.slice(0, eq);
      if (!ENV_VAR_NAME.test(key))
        throw new KustomizeError(`${where}: ${env} line ${n + 1}: "${key}" is not a valid environment variable name`);
      pairs.push({ key, value: Buffer.from(eq < 0 ? '' : line.slice(eq + 1)) });
    });
  }
  for (const lit of args.literals) {
    const eq = lit.indexOf('=');
    if (eq <= 0) throw new KustomizeError(`${where}: invalid literal source ${lit}, expected key=value`);
    pairs.push({ key: lit.slice(0, eq), value: Buffer.from(removeQuotes(lit.slice(eq + 1))) });
  }
  for (const src of args.files) {
    const seps = src.split('=').length - 1;
    let key: string;
    let path: string;
    if (seps === 0) {
      key = basename(src);
      path = src;
    } else if (seps === 1 && src.startsWith('=')) {
      throw new KustomizeError(`${where}: missing key name for file path "${src.slice(1)}" in source "${src}"`);
    } else if (seps === 1 && src.endsWith('=')) {
      throw new KustomizeError(`${where}: missing file path for key name "${src.slice(0, -1)}" in source "${src}"`);
    } else if (seps > 1) {
      throw new KustomizeError(`${where}: source "${src}" key name or file path contains '='`);
    } else {
      [key, path] = src.split('=') as [string, string];
    }
    if (loader.isDirectory(path))
      throw new KustomizeError(`${where}: file source "${path}" is a directory; name each file`);
    pairs.push({ key, value: loader.readBytes(path, 'file source') });
  }
  const seen = new Set<string>();
  for (const p of pairs) {
    checkKey(p.key, where);
    if (seen.has(p.key))
      throw new KustomizeError(
        `${where}: ${args.kind.toLowerCase()} ${args.name} illegally repeats the key \`${p.key}\``,
      );
    seen.add(p.key);
  }
  return pairs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function isUtf8(b: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** base64, broken into 70-character lines (each ending in a newline) once it reaches that length, as kustomize does. */
function encodeBase64(b: Buffer): string {
  const enc = b.toString('base64');
  if (Math.floor(enc.length / 70) + 1 <= 1) return enc;
  let out = '';
  for (let i = 0; i < enc.length; i += 70) out += enc.slice(i, i + 70) + '\n';
  return out;
}

function generate(args: GeneratorArgs, loader: Loader, where: string): Resource {
  if (args.name === '')
    throw new KustomizeError(
      `${where}: a ${args.kind === 'ConfigMap' ? 'configmap' : 'secret'} generator needs a name`,
    );
  const metadata: JSONObject = { name: args.name };
  if (args.namespace) metadata.namespace = args.namespace;
  const obj: JSONObject = { apiVersion: 'v1', kind: args.kind, metadata };
  const pairs = loadPairs(args, loader, where);
  if (args.kind === 'Secret') {
    obj.type = args.type || 'Opaque';
    const data: JSONObject = {};
    for (const p of pairs) data[p.key] = encodeBase64(p.value);
    obj.data = data;
  } else {
    for (const p of pairs) {
      const field = isUtf8(p.value) ? 'data' : 'binaryData';
      if (!isObject(obj[field])) obj[field] = {};
      (obj[field] as JSONObject)[p.key] = field === 'data' ? p.value.toString('utf8') : encodeBase64(p.value);
    }
  }
  const opts = args.options;
  if (opts) {
    const labels = Object.keys(opts.labels).sort();
    if (labels.length > 0) metadata.labels = Object.fromEntries(labels.map((k) => [k, opts.labels[k]!]));
    const annotations = Object.keys(opts.annotations).sort();
    if (annotations.length > 0)
      metadata.annotations = Object.fromEntries(annotations.map((k) => [k, opts.annotations[k]!]));
    if (opts.immutable) obj.immutable = true;
  }
  const res = new Resource(
    obj,
    `${displayPath(loader.kustomizationFile)} (${args.kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator'} ${args.name})`,
  );
  res.needsHashSuffix = !opts?.disableNameSuffixHash;
  res.behavior = args.behavior || 'create';
  return res;
}

function stringMap(v: JSONValue | undefined): Record<string, JSONValue> {
  return isObject(v) ? v : {};
}

/** Runs the generators and adds their output, merging into or replacing existing objects when behavior says so. */
export function runGenerators(
  resources: Resource[],
  generators: GeneratorArgs[],
  loader: Loader,
  file: string,
): Resource[] {
  const out = [...resources];
  generators.forEach((args) => {
    const where = `${file}: ${args.kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator'} ${args.name || '(unnamed)'}`;
    const res = generate(args, loader, where);
    const id = res.curId();
    const matches = out.filter((r) => r.allIds().some((x) => idEquals(x, id)));
    if (matches.length === 0) {
      if (res.behavior !== 'create')
        throw new KustomizeError(
          `${where}: behavior ${res.behavior} needs an existing ${describeId(id)} to ${res.behavior}, and there is none`,
        );
      out.push(res);
      return;
    }
    if (matches.length > 1)
      throw new KustomizeError(`${where}: found several objects that could accept ${describeId(id)}`);
    const old = matches[0]!;
    if (res.behavior === 'create')
      throw new KustomizeError(`${where}: ${describeId(id)} already exists; set behavior: merge or replace`);
    // CopyMergeMetaDataFieldsFrom: labels and annotations merge (new wins), name, namespace and history come from the old one.
    const md = res.metadata();
    const labels = { ...old.labels(), ...stringMap(md.labels) };
    const annotations = { ...old.annotations(), ...stringMap(md.annotations) };
    if (Object.keys(labels).length > 0) md.labels = labels;
    if (Object.keys(annotations).length > 0) md.annotations = annotations;
    md.name = old.name;
    if (old.namespace) md.namespace = old.namespace;
    else delete md.namespace;
    const needsHash = res.needsHashSuffix && old.needsHashSuffix;
    res.copyBookkeepingFrom(old);
    res.needsHashSuffix = needsHash;
    if (args.behavior === 'merge') {
      for (const field of ['data', 'binaryData'] as const) {
        const merged = { ...stringMap(old.obj[field]), ...stringMap(res.obj[field]) };
        if (Object.keys(merged).length > 0) res.obj[field] = merged;
      }
    }
    out[out.indexOf(old)] = res;
  });
  return out;
}

/** Go's encoding/json string escaping, which kustomize's hash input goes through (HTML characters escaped). */
function goJson(v: JSONValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') {
    return JSON.stringify(v).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${goJson(k)}:${goJson(v[k]!)}`)
    .join(',')}}`;
}

/** kustomize's name hash: the first ten hex digits of a SHA-256, with 0,1,3,a,e swapped for letters. */
function encodeHash(data: string): string {
  const hex = createHash('sha256').update(data, 'utf8').digest('hex').slice(0, 10);
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex].map((c) => swap[c] ?? c).join('');
}

/** The hash suffix kustomize appends to a generated ConfigMap's or Secret's name, from its kind, type and data. */
export function contentHash(res: Resource): string {
  const obj = res.obj;
  // kustomize looks the name up with a path its lookup does not split, so the name it hashes is always empty.
  if (res.kind === 'ConfigMap') {
    const m: JSONObject = { kind: 'ConfigMap', name: '', data: isObject(obj.data) ? obj.data : '' };
    if (isObject(obj.binaryData)) m.binaryData = obj.binaryData;
    return encodeHash(goJson(m));
  }
  if (res.kind === 'Secret') {
    const m: JSONObject = {
      kind: 'Secret',
      type: typeof obj.type === 'string' ? obj.type : '',
      name: '',
      data: isObject(obj.data) ? obj.data : '',
    };
    if (isObject(obj.stringData)) m.stringData = obj.stringData;
    return encodeHash(goJson(m));
  }
  return encodeHash(goJson(obj));
}

/** Appends the content hash to the names of generated ConfigMaps and Secrets. */
export function addHashSuffixes(resources: Resource[]): void {
  for (const r of resources) {
    if (!r.needsHashSuffix) continue;
    const h = contentHash(r);
    r.storePreviousId();
    r.name = `${r.name}-${h}`;
  }
}
