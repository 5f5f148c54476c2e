import { currentNamespace } from '@kubescaffold/runtime/clientcmd';
import { isNotFound } from '@kubescaffold/runtime/rest';
import type { Cluster } from './connect.js';
import { ClusterError } from './errors.js';
import { deleteOrder, displayName, type ManifestObject } from './objects.js';
import { resolveResources } from './resolve.js';
import { waitForDeletion, type Gone } from './wait.js';

export interface DeleteOptions {
  /** Objects that are already gone are not an error (kubectl delete --ignore-not-found). */
  ignoreNotFound?: boolean;
  dryRun?: boolean;
  /** Wait until the objects are gone, finalizers included (kubectl's default). Default true. */
  wait?: boolean;
  /** How long to wait (ms). Default 120000. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface DeleteResult {
  object: ManifestObject;
  action: 'deleted' | 'not found';
}

/**
 * Deletes the objects in reverse apply order (workloads, then CRDs, then Namespaces), with background propagation,
 * then waits until they are gone. Every object is attempted; failures are reported together at the end.
 */
export async function deleteManifests(
  cluster: Cluster,
  objects: ManifestObject[],
  opts: DeleteOptions = {},
): Promise<DeleteResult[]> {
  const log = opts.log ?? (() => undefined);
  const suffix = opts.dryRun ? ' (server dry run)' : '';
  const ordered = deleteOrder(objects);
  const resolved = await resolveResources(cluster, ordered, true);
  const defaultNamespace = currentNamespace(cluster.kubeConfig);
  const results: DeleteResult[] = [];
  const failures: string[] = [];
  const deleted: Gone[] = [];
  for (const obj of ordered) {
    const r = resolved.get(obj);
    const notFound = () => {
      results.push({ object: obj, action: 'not found' });
      if (!opts.ignoreNotFound) failures.push(`${displayName(obj)} not found (pass --ignore-not-found to allow this)`);
    };
    if (!r) {
      notFound();
      continue;
    }
    const namespace = r.resource.namespaced ? obj.metadata.namespace || defaultNamespace : undefined;
    try {
      await cluster.client.delete(
        r.resource,
        { namespace, name: obj.metadata.name },
        { propagationPolicy: 'Background', dryRun: opts.dryRun ?? false },
      );
      results.push({ object: obj, action: 'deleted' });
      deleted.push({ resource: r.resource, namespace, name: obj.metadata.name, display: displayName(obj) });
      log(`${displayName(obj)} deleted${suffix}`);
    } catch (e) {
      if (isNotFound(e)) notFound();
      else failures.push(`${displayName(obj)}: ${(e as Error).message}`);
    }
  }
  if ((opts.wait ?? true) && !opts.dryRun && deleted.length > 0) {
    const timeoutMs = opts.timeoutMs ?? 120_000;
    const remaining = await waitForDeletion(cluster, deleted, timeoutMs);
    for (const o of remaining) {
      failures.push(
        `${o.display} is still terminating after ${Math.round(timeoutMs / 1000)}s (its finalizers have not finished; check the object's status, or pass --wait=false)`,
      );
    }
  }
  if (failures.length > 0)
    throw new ClusterError(
      `${failures.length} of ${ordered.length} objects could not be deleted:\n  ${failures.join('\n  ')}`,
    );
  return results;
}
