import type { GroupVersionKind, GroupVersionResource, KubeObject, Resource, ResourceDefinition } from './types.js';
import { InvalidObjectError } from '../errors.js';

/** Builds the typed descriptor generated code passes to the client (the core group is ''). */
export function defineResource<T extends KubeObject>(d: ResourceDefinition): Resource<T> {
  return Object.freeze({
    group: d.group,
    version: d.version,
    kind: d.kind,
    plural: d.plural,
    namespaced: d.namespaced,
    apiVersion: d.group === '' ? d.version : `${d.group}/${d.version}`,
  });
}

/** The group, version and kind of a resource descriptor (schema.GroupVersionKind). */
export function gvkOf(res: Resource): GroupVersionKind {
  return { group: res.group, version: res.version, kind: res.kind };
}

/** The group, version and plural resource name of a resource descriptor (schema.GroupVersionResource). */
export function gvrOf(res: Resource): GroupVersionResource {
  return { group: res.group, version: res.version, resource: res.plural };
}

/** Splits an apiVersion ('apps/v1' or 'v1') into group and version. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** A stable string for maps keyed by resource: 'plural.group/version'. */
export function resourceId(res: Pick<Resource, 'group' | 'version' | 'plural'>): string {
  // Asked on every cached read: each descriptor's id is made once (descriptors' fields are readonly).
  let id = ids.get(res);
  if (id === undefined) {
    id = `${res.plural}.${res.group}/${res.version}`;
    ids.set(res, id);
  }
  return id;
}

const ids = new WeakMap<object, string>();

/** The collection path: /api/v1[/namespaces/ns]/plural or /apis/g/v[/namespaces/ns]/plural. */
export function collectionPath(res: Resource, namespace?: string): string {
  const base = res.group === '' ? `/api/${res.version}` : `/apis/${res.group}/${res.version}`;
  if (res.namespaced && namespace) return `${base}/namespaces/${encodeURIComponent(namespace)}/${res.plural}`;
  return `${base}/${res.plural}`;
}

/** The object path, with an optional subresource (status, scale). */
export function objectPath(res: Resource, namespace: string | undefined, name: string, subresource?: string): string {
  if (name === '') throw new InvalidObjectError(`${res.kind}: an object name is required`);
  if (res.namespaced && !namespace)
    throw new InvalidObjectError(`${res.kind} ${name}: a namespace is required for a namespaced resource`);
  const path = `${collectionPath(res, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}
