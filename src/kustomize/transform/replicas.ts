import { KustomizeError } from '../errors.js';
import { applyFieldSpec, type FieldSpec } from '../fieldspec.js';
import { gvkSelected } from '../resid.js';
import type { Resource } from '../resource.js';

/** `replicas:`: sets spec.replicas of the named workloads; naming nothing is an error, as in kustomize. */
export function setReplicas(
  resources: Resource[],
  replicas: Array<{ name: string; count: number }>,
  specs: FieldSpec[],
  file: string,
): void {
  for (const rc of replicas) {
    let found = false;
    for (const fs of specs) {
      const matched = resources.filter((r) =>
        r.allIds().some((id) => id.name === rc.name && gvkSelected(id.gvk, fs.gvk)),
      );
      if (matched.length > 0) found = true;
      for (const r of matched) applyFieldSpec(r.obj, fs, (ref) => ref.set(rc.count), 'scalar');
    }
    if (!found)
      throw new KustomizeError(
        `${file}: replicas: no Deployment, ReplicationController, ReplicaSet or StatefulSet is named ${rc.name}`,
      );
  }
}
