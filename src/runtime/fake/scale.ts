// The scale subresource of the built-in kinds that have one, as the API server's registries serve it: an
// autoscaling/v1 Scale read from the object's spec.replicas, status.replicas and selector, and written back to
// spec.replicas.
import type { Scale } from '../rest/client.js';
import { isObject, type JSONObject } from '../json/index.js';
import { selectorFromLabelSelector, selectorFromSet, type LabelSelector } from '../rest/selector.js';
import type { Resource } from '../rest/types.js';

// The kinds with a scale subresource, by group/kind; ReplicationController's selector is a plain label map.
const SCALABLE = new Set(['apps/Deployment', 'apps/ReplicaSet', 'apps/StatefulSet', '/ReplicationController']);

/** Whether the fake serves a scale subresource for the kind. */
export function hasScale(res: Resource): boolean {
  return SCALABLE.has(`${res.group}/${res.kind}`);
}

/** The Scale of a stored object: its identity, spec.replicas, status.replicas and selector as a string. */
export function scaleOf(res: Resource, obj: JSONObject): Scale {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status = isObject(obj.status) ? obj.status : {};
  const selector =
    res.kind === 'ReplicationController'
      ? selectorFromSet((spec.selector ?? {}) as Record<string, string>).toString()
      : isObject(spec.selector)
        ? selectorFromLabelSelector(spec.selector as LabelSelector).toString()
        : '';
  const pick = (k: string): Record<string, unknown> => (meta[k] === undefined ? {} : { [k]: meta[k] });
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      ...pick('name'),
      ...pick('namespace'),
      ...pick('uid'),
      ...pick('resourceVersion'),
      ...pick('creationTimestamp'),
    } as Scale['metadata'],
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
    status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, ...(selector ? { selector } : {}) },
  };
}
