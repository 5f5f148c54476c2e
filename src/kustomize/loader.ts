import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { decodeUtf8 } from '../files/utf8.js';
import { KustomizeError } from './errors.js';
import { KUSTOMIZATION_FILE_NAMES } from './kustomization.js';
import { Resource } from './resource.js';
import { isObject, stringField, type JSONObject, type JSONValue } from './values.js';
import { parseYamlDocuments } from './yaml.js';

/** Shortens absolute paths in messages to paths relative to where the build started. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** Whether a path is a remote URL (git, http, ssh); scaffold build reads local files only and says so. */
export function isRemote(target: string): boolean {
  return /^(https?|git|ssh|file):\/\//.test(target) || /^git@/.test(target) || /^github\.com\//.test(target);
}

/** The kustomization file in dir, or an error saying none (or more than one) was found. */
export function findKustomizationFile(dir: string): string {
  const found = KUSTOMIZATION_FILE_NAMES.map((n) => join(dir, n)).filter((p) => existsSync(p));
  if (found.length === 0) {
    throw new KustomizeError(
      `no kustomization file in ${displayPath(dir)} (looked for ${KUSTOMIZATION_FILE_NAMES.join(', ')})`,
    );
  }
  if (found.length > 1)
    throw new KustomizeError(`found multiple kustomization files under ${displayPath(dir)}; keep one`);
  return found[0]!;
}

/**
 * Reads files named by a kustomization, which (as kustomize's default load restrictor requires) must lie in or below
 * the kustomization's directory.
 */
export class Loader {
  constructor(
    readonly root: string,
    readonly kustomizationFile: string,
  ) {}

  /** A path of the kustomization resolved against its directory. */
  resolvePath(rel: string): string {
    return isAbsolute(rel) ? rel : resolve(this.root, rel);
  }

  /** Whether a path the kustomization names is a directory (another kustomization to build) rather than a file. */
  isDirectory(rel: string): boolean {
    const p = this.resolvePath(rel);
    return existsSync(p) && statSync(p).isDirectory();
  }

  /**
   * Reads a local text file (UTF-8) in or below the kustomization's directory; `purpose` names it in errors ("resource",
   * "patch").
   */
  readFile(rel: string, purpose: string): string {
    return decodeUtf8(this.readBytes(rel, purpose), displayPath(this.resolvePath(rel)));
  }

  /** Reads a local file's bytes (a generator's file source may be binary), as readFile checks it. */
  readBytes(rel: string, purpose: string): Buffer {
    const where = displayPath(this.kustomizationFile);
    if (isRemote(rel))
      throw new KustomizeError(`${where}: ${purpose} "${rel}" is a remote URL; scaffold build reads local files only`);
    const p = this.resolvePath(rel);
    if (!existsSync(p))
      throw new KustomizeError(`${where}: ${purpose} "${rel}" does not exist (looked for ${displayPath(p)})`);
    const real = realpathSync(p);
    const root = realpathSync(this.root);
    if (real !== root && !real.startsWith(root + sep)) {
      throw new KustomizeError(
        `${where}: ${purpose} "${rel}" is outside ${displayPath(this.root)}; kustomize only reads files in or below the kustomization's directory (move the file, or list its directory as a resource)`,
      );
    }
    if (statSync(real).isDirectory())
      throw new KustomizeError(`${where}: ${purpose} "${rel}" is a directory, not a file`);
    return readFileSync(real);
  }

  /** The objects in a resource file, with Lists expanded, as kustomize's resource factory reads them. */
  readResources(rel: string): Resource[] {
    const text = this.readFile(rel, 'resource');
    return resourcesFromText(text, displayPath(this.resolvePath(rel)));
  }
}

/**
 * The objects in a multi-document YAML text, with `kind: ...List` objects expanded into their items; empty documents
 * are skipped.
 */
export function resourcesFromText(text: string, source: string): Resource[] {
  const queue: JSONValue[] = parseYamlDocuments(text, source).filter(
    (d) => !(d === null || (isObject(d) && Object.keys(d).length === 0)),
  );
  const out: Resource[] = [];
  while (queue.length > 0) {
    const doc = queue.shift()!;
    if (!isObject(doc))
      throw new KustomizeError(
        `${source}: every document must be a Kubernetes object (a mapping), found ${Array.isArray(doc) ? 'a list' : JSON.stringify(doc)}`,
      );
    const kind = stringField(doc, 'kind');
    if (kind === '') throw new KustomizeError(`${source}: missing kind in object ${JSON.stringify(doc).slice(0, 120)}`);
    checkNoNullItems(doc, source, kind);
    if (kind.endsWith('List') && 'items' in doc) {
      const items = doc.items;
      if (items === null) continue;
      if (!Array.isArray(items)) throw new KustomizeError(`${source}: expected array in ${kind}/items`);
      queue.push(...items);
      continue;
    }
    if (stringField(doc, 'metadata', 'name') === '') {
      throw new KustomizeError(`${source}: missing metadata.name in ${kind} object; every resource needs a name`);
    }
    out.push(new Resource(doc as JSONObject, source));
  }
  return out;
}

function checkNoNullItems(v: JSONValue, source: string, kind: string, path: string[] = []): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (x === null)
        throw new KustomizeError(`${source}: empty item at ${[...path, String(i)].join('.')} in ${kind} object`);
      checkNoNullItems(x, source, kind, [...path, String(i)]);
    });
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) checkNoNullItems(x, source, kind, [...path, k]);
  }
}
