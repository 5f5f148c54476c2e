import { CustomResourceDefinitions, defineResource, Namespaces, type Resource } from '@kubescaffold/runtime/rest';
import { isNoMatch } from '@kubescaffold/runtime/restmapper';
import type { Cluster } from './connect.js';
import { ClusterError } from './errors.js';
import { groupOf, isCRD, isNamespace, versionOf, type ManifestObject } from './objects.js';

interface CRDSpec {
  group?: string;
  scope?: string;
  names?: { kind?: string; plural?: string };
  versions?: Array<{ name?: string }>;
}

/** The resources that the CRDs among objs will serve, keyed by "group/version Kind". */
function resourcesFromCRDs(objs: ManifestObject[]): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const crd of objs.filter(isCRD)) {
    const spec = (crd.spec ?? {}) as CRDSpec;
    if (!spec.group || !spec.names?.kind || !spec.names.plural) continue;
    for (const v of spec.versions ?? []) {
      if (!v.name) continue;
      out.set(
        `${spec.group}/${v.name} ${spec.names.kind}`,
        defineResource({
          group: spec.group,
          version: v.name,
          kind: spec.names.kind,
          plural: spec.names.plural,
          namespaced: spec.scope !== 'Cluster',
        }),
      );
    }
  }
  return out;
}

export interface Resolved {
  resource: Resource;
  /** Served by a CRD of this same batch, so it exists only once that CRD is established. */
  fromBatchCRD: boolean;
}

/**
 * Maps every object to its API resource before anything is written, so that a kind the cluster does not serve (a
 * ServiceMonitor without prometheus-operator, a Certificate without cert-manager) fails the whole command up front.
 * With allowMissing, unserved kinds map to undefined instead (deleting what cannot exist).
 */
export async function resolveResources(
  cluster: Cluster,
  objs: ManifestObject[],
  allowMissing = false,
): Promise<Map<ManifestObject, Resolved | undefined>> {
  const fromCRDs = resourcesFromCRDs(objs);
  const out = new Map<ManifestObject, Resolved | undefined>();
  const missing = new Map<string, string[]>();
  for (const obj of objs) {
    if (isNamespace(obj)) {
      out.set(obj, { resource: Namespaces, fromBatchCRD: false });
      continue;
    }
    if (isCRD(obj)) {
      out.set(obj, { resource: CustomResourceDefinitions, fromBatchCRD: false });
      continue;
    }
    const gvk = { group: groupOf(obj.apiVersion), version: versionOf(obj.apiVersion), kind: obj.kind };
    try {
      out.set(obj, { resource: await cluster.mapper.resourceFor(gvk), fromBatchCRD: false });
    } catch (e) {
      if (!isNoMatch(e)) throw e;
      const batch = fromCRDs.get(`${obj.apiVersion} ${obj.kind}`);
      if (batch) {
        out.set(obj, { resource: batch, fromBatchCRD: true });
      } else if (allowMissing) {
        out.set(obj, undefined);
      } else {
        const key = `${obj.kind} (${obj.apiVersion})`;
        missing.set(key, [...(missing.get(key) ?? []), obj.metadata.name]);
      }
    }
  }
  if (missing.size > 0) {
    const list = [...missing].map(([kind, names]) => `${kind}: ${names.join(', ')}`).join('; ');
    throw new ClusterError(
      `the cluster at ${cluster.server} does not serve these kinds, so nothing was applied: ${list}. ` +
        'Install the CustomResourceDefinitions that provide them first (cert-manager for Certificate/Issuer, prometheus-operator for ServiceMonitor), ' +
        'or comment their sections out of config/default/kustomization.yaml',
    );
  }
  return out;
}
