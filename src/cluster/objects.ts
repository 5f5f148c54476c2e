import type { KubeObject } from '@kubescaffold/runtime/rest';

/** A manifest object as the kustomize build returns it. */
export interface ManifestObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export function versionOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

/** kubectl's name for an object in its messages: kind.group/name, lower-case kind. */
export function displayName(obj: ManifestObject): string {
  const group = groupOf(obj.apiVersion);
  return `${obj.kind.toLowerCase()}${group ? `.${group}` : ''}/${obj.metadata.name}`;
}

export const isNamespace = (o: ManifestObject) => o.kind === 'Namespace' && o.apiVersion === 'v1';
export const isCRD = (o: ManifestObject) =>
  o.kind === 'CustomResourceDefinition' && groupOf(o.apiVersion) === 'apiextensions.k8s.io';

/** Apply order: Namespaces, then CRDs, then everything else in the order given (kustomize's). */
export function applyOrder(objs: ManifestObject[]): ManifestObject[] {
  return [...objs.filter(isNamespace), ...objs.filter(isCRD), ...objs.filter((o) => !isNamespace(o) && !isCRD(o))];
}

/** Delete order: the reverse, so that what depends on a CRD or a namespace goes first. */
export function deleteOrder(objs: ManifestObject[]): ManifestObject[] {
  return applyOrder(objs).reverse();
}
