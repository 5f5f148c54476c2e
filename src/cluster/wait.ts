import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiError,
  CustomResourceDefinitions,
  defineResource,
  isNotFound,
  type Resource,
} from '@kubescaffold/runtime/rest';
import type { Cluster } from './connect.js';
import { ClusterError } from './errors.js';

const POLL_MS = 200;

interface CRDState {
  spec?: {
    group?: string;
    scope?: string;
    names?: { kind?: string; plural?: string };
    versions?: Array<{ name?: string; served?: boolean }>;
  };
  status?: { conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string }> };
}

/** The resources a CRD serves, one per served version. */
function servedResources(crd: CRDState): Resource[] {
  const spec = crd.spec;
  if (!spec?.group || !spec.names?.kind || !spec.names.plural) return [];
  return (spec.versions ?? [])
    .filter((v) => v.name && v.served !== false)
    .map((v) =>
      defineResource({
        group: spec.group!,
        version: v.name!,
        kind: spec.names!.kind!,
        plural: spec.names!.plural!,
        namespaced: spec.scope !== 'Cluster',
      }),
    );
}

/** Lists the resource once: true when the API answers (a fresh CRD's storage answers 503 or 404 for a moment). */
async function serves(cluster: Cluster, res: Resource): Promise<boolean> {
  try {
    await cluster.client.list(res, { limit: 1 });
    return true;
  } catch (e) {
    if (e instanceof ApiError && (e.code === 404 || e.code === 503 || e.code === 429)) return false;
    throw e;
  }
}

/**
 * Waits until every named CRD is Established and each of its served versions answers a list, so that objects of
 * its kinds can be created as soon as this returns (`kubectl wait --for=condition=Established`, plus the moment a
 * new CRD's storage needs to initialize).
 */
export async function waitForCRDsEstablished(cluster: Cluster, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...names];
  const problems = new Map<string, string>();
  while (pending.length > 0) {
    const next: string[] = [];
    for (const name of pending) {
      const crd = (await cluster.client.get(CustomResourceDefinitions, { name })) as CRDState;
      const conditions = crd.status?.conditions ?? [];
      const established = conditions.some((c) => c.type === 'Established' && c.status === 'True');
      const notAccepted = conditions.find((c) => c.type === 'NamesAccepted' && c.status === 'False');
      if (notAccepted) problems.set(name, `names not accepted: ${notAccepted.message ?? notAccepted.reason ?? ''}`);
      else if (established) problems.set(name, 'established, but its API is not served yet');
      let ready = established;
      for (const res of ready ? servedResources(crd) : []) ready = ready && (await serves(cluster, res));
      if (!ready) next.push(name);
    }
    pending = next;
    if (pending.length === 0) return;
    if (Date.now() >= deadline) {
      const detail = pending.map((n) => `${n}${problems.has(n) ? ` (${problems.get(n)})` : ''}`).join(', ');
      throw new ClusterError(
        `these CustomResourceDefinitions were not ready within ${Math.round(timeoutMs / 1000)}s: ${detail}`,
      );
    }
    await sleep(POLL_MS);
  }
}

export interface Gone {
  resource: Resource;
  namespace?: string;
  name: string;
  display: string;
}

/** Waits until the objects are gone (finalizers done), as `kubectl delete` does by default; returns what remains. */
export async function waitForDeletion(cluster: Cluster, objs: Gone[], timeoutMs: number): Promise<Gone[]> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...objs];
  while (pending.length > 0) {
    const next: Gone[] = [];
    for (const o of pending) {
      try {
        await cluster.client.get(o.resource, { namespace: o.namespace, name: o.name });
        next.push(o);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    pending = next;
    if (pending.length === 0 || Date.now() >= deadline) return pending;
    await sleep(POLL_MS);
  }
  return pending;
}
