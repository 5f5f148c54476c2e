import { KustomizeError } from '../errors.js';
import { applyFieldSpec, type FieldRef, type FieldSpec } from '../fieldspec.js';
import type { ImageSpec } from '../kustomization.js';
import type { Resource } from '../resource.js';
import { isObject, type JSONValue } from '../values.js';

/** Splits [[host[:port]/]component/]component[:tag][@digest] the way kustomize's image.Split does. */
export function splitImage(image: string): { name: string; tag: string; digest: string } {
  let search = image;
  let slash = image.indexOf('/');
  if (slash > 0) search = image.slice(slash);
  else slash = 0;
  let id = search.indexOf('@');
  let ic = search.indexOf(':');
  if (ic < 0 && id < 0) return { name: image, tag: '', digest: '' };
  if (id >= 0 && (id < ic || ic < 0)) {
    id += slash;
    return { name: image.slice(0, id), tag: '', digest: image.slice(id + 1) };
  }
  if (id >= 0 && ic >= 0) {
    id += slash;
    ic += slash;
    return { name: image.slice(0, ic), tag: image.slice(ic + 1, id), digest: image.slice(id + 1) };
  }
  ic += slash;
  return { name: image.slice(0, ic), tag: image.slice(ic + 1), digest: '' };
}

function imageMatches(value: string, name: string): boolean {
  // The name is used as a regular expression, as in kustomize.
  return new RegExp(`^${name}(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?$`).test(value);
}

/** The image reference after an `images:` entry applies to it, or undefined if the entry does not match it. */
export function newImageValue(value: string, spec: ImageSpec): string | undefined {
  if (!imageMatches(value, spec.name)) return undefined;
  let { name, tag, digest } = splitImage(value);
  if (spec.newName) name = spec.newName;
  if (spec.newTag && spec.digest) {
    tag = spec.newTag;
    digest = spec.digest;
  } else if (spec.newTag) {
    tag = spec.newTag;
    digest = '';
  } else if (spec.digest) {
    tag = '';
    digest = spec.digest;
  } else if (spec.tagSuffix) {
    tag += spec.tagSuffix;
    digest = '';
  }
  return name + (tag ? `:${tag}` : '') + (digest ? `@${digest}` : '');
}

function updateImage(ref: FieldRef, spec: ImageSpec): void {
  const v = ref.get();
  if (isObject(v) || Array.isArray(v)) throw new KustomizeError('an image field must be a string');
  if (typeof v !== 'string') return;
  const next = newImageValue(v, spec);
  if (next !== undefined) ref.set(next);
}

/** Every `image` of any list named containers or initContainers, anywhere (kustomize's legacy image filter). */
function updateContainerLists(v: JSONValue, spec: ImageSpec): void {
  if (Array.isArray(v)) {
    for (const x of v) updateContainerLists(x, spec);
    return;
  }
  if (!isObject(v)) return;
  for (const [key, value] of Object.entries(v)) {
    updateContainerLists(value, spec);
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const c of value) {
        if (isObject(c) && 'image' in c && c.image !== null)
          updateImage({ get: () => c.image, set: (x) => (c.image = x) }, spec);
      }
    }
  }
}

/** `images:`: rewrites matching container images; CRDs are never touched. */
export function setImages(resources: Resource[], images: ImageSpec[], specs: FieldSpec[]): void {
  for (const spec of images) {
    for (const r of resources) {
      if (r.kind === 'CustomResourceDefinition') continue;
      updateContainerLists(r.obj, spec);
      for (const fs of specs) applyFieldSpec(r.obj, fs, (ref) => updateImage(ref, spec), undefined);
    }
  }
}
