import { readFileSync, writeFileSync } from 'node:fs';
import { isMap, isScalar, isSeq } from 'yaml';
import { resolveInProject } from '../files/confine.js';
import { decodeUtf8 } from '../files/utf8.js';
import { readYamlDocument, YamlInputError } from '../yaml/read.js';
import { KustomizeError } from './errors.js';
import type { ImageSpec } from './kustomization.js';
import { displayPath, findKustomizationFile } from './loader.js';
import { splitImage } from './transform/images.js';

/** Parses `kustomize edit set image` arguments: name=newName[:tag][@digest], or image[:tag][@digest]. */
export function parseImageArgument(arg: string): ImageSpec {
  const eq = arg.indexOf('=');
  const key = eq >= 0 ? arg.slice(0, eq) : '';
  const value = eq >= 0 ? arg.slice(eq + 1) : arg;
  const { name, tag, digest } = splitImage(value);
  if (name === arg || name === '') {
    throw new KustomizeError(
      `invalid image "${arg}"; use one of <image>=<newimage>:<newtag>, <image>=<newimage>@<digest>, <image>:<newtag>, <image>@<digest>`,
    );
  }
  return key === ''
    ? { name, newName: '', newTag: tag, digest, tagSuffix: '' }
    : { name: key, newName: name, newTag: tag, digest, tagSuffix: '' };
}

/**
 * `kustomize edit set image` in dir: replaces (or adds) the images entry for the image's name, keeping the others and
 * the file's comments. Returns whether the file changed. The file is not written through a link that leaves `root`
 * (the project; dir by default).
 */
export function setKustomizationImage(dir: string, image: ImageSpec, root: string = dir): boolean {
  const file = findKustomizationFile(dir);
  const before = decodeUtf8(readFileSync(file), displayPath(file));
  // An empty file becomes an empty mapping to add to.
  let doc;
  try {
    doc = readYamlDocument(before.trim() === '' ? '{}\n' : before, displayPath(file))?.document;
  } catch (err) {
    if (err instanceof YamlInputError) throw new KustomizeError(err.message);
    throw err;
  }
  if (!doc || !isMap(doc.contents))
    throw new KustomizeError(`${displayPath(file)} must be a mapping of kustomization fields`);
  const existing = doc.get('images');
  const entries: ImageSpec[] = [];
  if (isSeq(existing)) {
    for (const item of existing.items) {
      if (!isMap(item)) continue;
      const get = (k: string) => {
        const v = item.get(k, true);
        return isScalar(v) ? String(v.value ?? '') : '';
      };
      entries.push({
        name: get('name'),
        newName: get('newName'),
        newTag: get('newTag'),
        digest: get('digest'),
        tagSuffix: get('tagSuffix'),
      });
    }
  }
  const others = entries.filter((e) => e.name !== image.name);
  const merged = [...others, image].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  doc.set(
    'images',
    merged.map((e) => {
      const out: Record<string, string> = { name: e.name };
      if (e.newName) out.newName = e.newName;
      if (e.newTag) out.newTag = e.newTag;
      if (e.digest) out.digest = e.digest;
      if (e.tagSuffix) out.tagSuffix = e.tagSuffix;
      return out;
    }),
  );
  if (!doc.has('apiVersion')) doc.set('apiVersion', 'kustomize.config.k8s.io/v1beta1');
  if (!doc.has('kind')) doc.set('kind', 'Kustomization');
  const after = doc.toString({ indentSeq: false });
  if (after === before) return false;
  writeFileSync(resolveInProject(root, file, 'write'), after);
  return true;
}
