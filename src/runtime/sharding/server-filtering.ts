import type { KubeObject, ListOptions, ObjectList, Resource } from '../rest/types.js';
import { fnv1a64, HASH_SPACE, type HashRange } from './hash.js';
import { inRanges, shardKeyValue, shardSelector, type ShardKey } from './selector.js';

/**
 * Whether the API server applies shardSelector to a kind: it filters (each replica is sent only its partitions), it
 * ignores the selector (the ShardedListAndWatch gate is off, or the server predates it), or it is not known yet (no
 * object to tell by).
 */
export type ServerFiltering = 'filters' | 'ignores' | 'unknown';

/** What the probe needs of a client: one list call. */
export interface ProbeClient {
  list<T extends KubeObject>(res: Resource<T>, opts: ListOptions & { signal?: AbortSignal }): Promise<ObjectList<T>>;
}

/** Options of probeServerFiltering. */
export interface ProbeOptions {
  /** Which field's hash places an object. */
  key: ShardKey;
  /** The scope the cache lists in: a probe needs no more permission than the cache's own lists. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  signal?: AbortSignal;
}

/**
 * Asks the API server whether it applies shardSelector to `res`, from what it sends. metadata.shardInfo alone cannot
 * tell: kube-apiserver 1.37 filters custom resources but sets shardInfo only on lists of built-in kinds. So: list one
 * object X; then list again at the same resourceVersion with a selector for a range of one hash that X's hash is not
 * in. A server that filters sends nothing (or shardInfo); one that ignores the selector sends an object outside the
 * range. With no object in scope there is nothing to tell by: 'unknown'.
 * @throws what the lists throw (no permission, the kind not served, the signal aborted)
 */
export async function probeServerFiltering(
  res: Resource,
  client: ProbeClient,
  opts: ProbeOptions,
): Promise<ServerFiltering> {
  const scope = {
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
    ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const first = await client.list(res, { ...scope, limit: 1 });
  const known = first.items[0];
  if (!known) return 'unknown';
  const range = rangeBeside(fnv1a64(shardKeyValue(known, opts.key)));
  const probe = await client.list(res, {
    ...scope,
    limit: 1,
    shardSelector: shardSelector(opts.key, [range]),
    ...(first.metadata.resourceVersion
      ? { resourceVersion: first.metadata.resourceVersion, resourceVersionMatch: 'Exact' as const }
      : {}),
  });
  if (probe.metadata.shardInfo?.selector !== undefined) return 'filters';
  return probe.items.some((o) => !inRanges(o, opts.key, [range])) ? 'ignores' : 'filters';
}

/** A range of one hash next to `hash`, so the object hashed to it falls outside. */
function rangeBeside(hash: bigint): HashRange {
  return hash + 2n <= HASH_SPACE ? { start: hash + 1n, end: hash + 2n } : { start: hash - 1n, end: hash };
}
