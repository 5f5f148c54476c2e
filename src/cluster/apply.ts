import { currentNamespace } from '@kubescaffold/runtime/clientcmd';
import { ApiError, isNotFound, Namespaces, type KubeObject } from '@kubescaffold/runtime/rest';
import type { Cluster } from './connect.js';
import { ClusterError } from './errors.js';
import { applyOrder, displayName, isCRD, isNamespace, type ManifestObject } from './objects.js';
import { resolveResources } from './resolve.js';
import { waitForCRDsEstablished } from './wait.js';

export const FIELD_MANAGER = 'kubescaffold';

export interface ApplyOptions {
  fieldManager?: string;
  /** Send every request with dryRun=All: the server validates and admits, and stores nothing. */
  dryRun?: boolean;
  /** Take ownership of fields another manager owns (kubectl apply --server-side --force-conflicts). */
  forceConflicts?: boolean;
  /** How long CRDs may take to become Established (ms). Default 60000. */
  timeoutMs?: number;
  /** Receives one line per object, kubectl style. */
  log?: (line: string) => void;
}

export type ApplyAction = 'created' | 'configured' | 'unchanged' | 'skipped';

export interface ApplyResult {
  object: ManifestObject;
  action: ApplyAction;
  note?: string;
}

// Fields the server changes on every write, ignored when judging whether a dry run would change anything.
function comparable(obj: KubeObject): string {
  const copy = structuredClone(obj) as KubeObject & { metadata?: Record<string, unknown>; status?: unknown };
  for (const k of ['resourceVersion', 'managedFields', 'generation', 'creationTimestamp', 'uid'])
    delete copy.metadata?.[k];
  return JSON.stringify(copy);
}

function applyFailure(obj: ManifestObject, e: unknown): string {
  if (e instanceof ApiError) {
    const hint =
      e.code === 409
        ? ' (another field manager owns these fields; rerun with --force-conflicts to take them over)'
        : '';
    return `${displayName(obj)}: ${e.message}${hint}`;
  }
  return `${displayName(obj)}: ${(e as Error).message}`;
}

/**
 * Server-side applies the objects: Namespaces first, then CRDs (waiting until they are Established), then the rest
 * in the order given. Every object is attempted; failures are reported together at the end.
 */
export async function applyManifests(
  cluster: Cluster,
  objects: ManifestObject[],
  opts: ApplyOptions = {},
): Promise<ApplyResult[]> {
  const log = opts.log ?? (() => undefined);
  const suffix = opts.dryRun ? ' (server dry run)' : '';
  const ordered = applyOrder(objects);
  const resolved = await resolveResources(cluster, ordered);
  const defaultNamespace = currentNamespace(cluster.kubeConfig);

  // A server dry run stores nothing, so objects inside a namespace (or of a CRD) this batch creates cannot be checked.
  const missingNamespaces = new Set<string>();
  if (opts.dryRun) {
    for (const ns of ordered.filter(isNamespace)) {
      try {
        await cluster.client.get(Namespaces, { name: ns.metadata.name });
      } catch (e) {
        if (isNotFound(e)) missingNamespaces.add(ns.metadata.name);
        else throw e;
      }
    }
  }

  const results: ApplyResult[] = [];
  const failures: string[] = [];
  const crdNames = ordered.filter(isCRD).map((o) => o.metadata.name);
  let crdsReady = crdNames.length === 0 || opts.dryRun === true;
  for (const obj of ordered) {
    if (!crdsReady && !isNamespace(obj) && !isCRD(obj)) {
      await waitForCRDsEstablished(cluster, crdNames, opts.timeoutMs ?? 60_000);
      crdsReady = true;
    }
    const r = resolved.get(obj)!;
    const namespace = r.resource.namespaced ? obj.metadata.namespace || defaultNamespace : undefined;
    if (opts.dryRun && (r.fromBatchCRD || (namespace !== undefined && missingNamespaces.has(namespace)))) {
      const note = r.fromBatchCRD
        ? 'its CustomResourceDefinition is created by this apply'
        : `namespace ${namespace} is created by this apply`;
      results.push({ object: obj, action: 'skipped', note });
      log(`${displayName(obj)} not checked: ${note}${suffix}`);
      continue;
    }
    const body: KubeObject = namespace ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj;
    try {
      let before: KubeObject | undefined;
      try {
        before = await cluster.client.get(r.resource, { namespace, name: obj.metadata.name });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      const after = await cluster.client.patch(r.resource, { namespace, name: obj.metadata.name }, body, {
        type: 'apply',
        fieldManager: opts.fieldManager ?? FIELD_MANAGER,
        force: opts.forceConflicts ?? false,
        dryRun: opts.dryRun ?? false,
      });
      let action: ApplyAction = 'created';
      if (before) {
        const same = opts.dryRun
          ? comparable(before) === comparable(after)
          : before.metadata?.resourceVersion === after.metadata?.resourceVersion;
        action = same ? 'unchanged' : 'configured';
      }
      results.push({ object: obj, action });
      log(`${displayName(obj)} ${action}${suffix}`);
    } catch (e) {
      failures.push(applyFailure(obj, e));
      log(`${displayName(obj)} failed${suffix}`);
    }
  }
  if (failures.length > 0) {
    throw new ClusterError(
      `${failures.length} of ${ordered.length} objects could not be applied:\n  ${failures.join('\n  ')}`,
    );
  }
  // Only CRDs were applied (install): they still have to be established and served before we return.
  if (!crdsReady) await waitForCRDsEstablished(cluster, crdNames, opts.timeoutMs ?? 60_000);
  return results;
}
