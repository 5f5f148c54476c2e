import { KustomizeError } from '../errors.js';
import { applyFieldSpec, fieldRef, type FieldRef, type FieldSpec } from '../fieldspec.js';
import { idEquals } from '../resid.js';
import type { Resource } from '../resource.js';
import { isObject } from '../values.js';

function setNamespace(ns: string): (ref: FieldRef) => void {
  return (ref) => {
    const cur = ref.get();
    if (isObject(cur) || Array.isArray(cur)) throw new KustomizeError('namespace field specs must target scalar nodes');
    ref.set(ns);
  };
}

/**
 * The `namespace:` field: sets metadata.namespace on every resource not known to be cluster-scoped, renames
 * Namespace objects, sets the namespace of (Cluster)RoleBinding subjects named "default", and the configured fields.
 */
export function setNamespaces(resources: Resource[], ns: string, specs: FieldSpec[], file: string): void {
  for (const r of resources) {
    if (r.isEmpty()) continue;
    r.storePreviousId();
    const apiVersion = r.apiVersion;
    const gvk = r.gvk();
    // metadata.namespace is handled here and not by the specs, so cluster-scoped kinds are left alone.
    let list = specs.filter(
      (s) => s.path !== 'metadata/namespace' && (apiVersion === 'v1' || s.path !== 'metadata/name'),
    );
    if (!r.curId().clusterScoped) {
      applyFieldSpec(r.obj, { gvk: {}, path: 'metadata/namespace', create: true }, setNamespace(ns), 'scalar');
    }
    if (gvk.kind === 'RoleBinding' || gvk.kind === 'ClusterRoleBinding') {
      list = list.filter(
        (s) =>
          !((s.gvk.kind === 'RoleBinding' || s.gvk.kind === 'ClusterRoleBinding') && s.path === 'subjects/namespace'),
      );
      const subjects = r.obj.subjects;
      if (Array.isArray(subjects)) {
        for (const subject of subjects) {
          if (isObject(subject) && subject.name === 'default') setNamespace(ns)(fieldRef(subject, 'namespace'));
        }
      }
    }
    for (const fs of list) applyFieldSpec(r.obj, fs, setNamespace(ns), 'scalar');
    const id = r.curId();
    if (resources.filter((o) => idEquals(o.curId(), id)).length !== 1) {
      throw new KustomizeError(
        `${file}: namespace ${ns} makes two resources the same: ${r.kind}/${r.name}; rename one of them`,
      );
    }
  }
}
