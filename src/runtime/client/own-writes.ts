import { resourceId } from '../rest/resource.js';
import type { KubeObject, ObjectKey, Resource } from '../rest/types.js';
import { compareResourceVersions, isRevision } from './resource-version.js';

/** One write of the client's own that its cache may not show yet. */
export interface OwnWrite {
  /** resourceId|namespace/name. */
  readonly id: string;
  /** The object written. */
  readonly key: ObjectKey;
  /** The resourceVersion the server answered the write with; unset for a delete. */
  readonly resourceVersion?: string;
  readonly deleted: boolean;
}

/** How many writes are remembered at most: the oldest go first (by then the watch has long delivered them). */
const DEFAULT_LIMIT = 4096;

function storeKey(res: Resource, namespace: string | undefined, name: string): string {
  const ns = res.namespaced ? (namespace ?? '') : '';
  return ns === '' ? name : `${ns}/${name}`;
}

function objectKey(res: Resource, namespace: string | undefined, name: string): ObjectKey {
  return res.namespaced && namespace ? { namespace, name } : { name };
}

/**
 * The writes a cached client made that its informers have not shown yet, and the reads waiting for them: informer
 * events for a written object wake its waiters and, once the cache shows the write, forget it.
 */
export class OwnWrites {
  private readonly writes = new Map<string, OwnWrite>();
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  /** Remembers a create, update, patch or apply, at the resourceVersion the server answered. */
  recordWrite(res: Resource, written: KubeObject): void {
    const name = written.metadata?.name;
    const resourceVersion = written.metadata?.resourceVersion;
    if (!name || !resourceVersion) return;
    this.remember(res, objectKey(res, written.metadata?.namespace, name), { resourceVersion, deleted: false });
  }

  /** Remembers a delete: the cache shows it once the object is gone or carries a deletionTimestamp. */
  recordDelete(res: Resource, key: ObjectKey): void {
    this.remember(res, objectKey(res, key.namespace, key.name), { deleted: true });
  }

  private remember(res: Resource, key: ObjectKey, what: Pick<OwnWrite, 'resourceVersion' | 'deleted'>): void {
    const id = `${resourceId(res)}|${storeKey(res, key.namespace, key.name)}`;
    // Re-inserted so that the Map's order stays the order of the writes.
    this.writes.delete(id);
    this.writes.set(id, { id, key, ...what });
    if (this.writes.size > this.limit) this.writes.delete(this.writes.keys().next().value!);
  }

  /** The remembered write of one object, if any. */
  of(res: Resource, key: ObjectKey): OwnWrite | undefined {
    return this.writes.get(`${resourceId(res)}|${storeKey(res, key.namespace, key.name)}`);
  }

  /** The remembered writes of a kind in `namespace` ('' or undefined: in every namespace). */
  in(res: Resource, namespace: string | undefined): OwnWrite[] {
    const prefix = `${resourceId(res)}|${res.namespaced && namespace ? `${namespace}/` : ''}`;
    return [...this.writes.values()].filter((w) => w.id.startsWith(prefix));
  }

  /** How many writes are remembered. */
  get size(): number {
    return this.writes.size;
  }

  /**
   * Whether `cached` (the cache's object under the write's key, undefined if absent) shows the write or a later
   * state; undefined when that cannot be told, as the resourceVersions are not etcd revisions.
   */
  static shows(w: OwnWrite, cached: KubeObject | undefined): boolean | undefined {
    if (w.deleted) return cached === undefined || cached.metadata?.deletionTimestamp !== undefined;
    if (!isRevision(w.resourceVersion!)) return undefined;
    const rv = cached?.metadata?.resourceVersion;
    if (rv === undefined) return false;
    const order = compareResourceVersions(rv, w.resourceVersion!);
    return order === undefined ? undefined : order >= 0;
  }

  /** Forgets `w`, unless a newer write of the same object replaced it meanwhile. */
  forget(w: OwnWrite): void {
    if (this.writes.get(w.id) === w) this.writes.delete(w.id);
  }

  /**
   * A promise that resolves on the next informer event for any of `writes`' objects; register it before reading the
   * cache, so an event between the read and the wait is not missed. cancel() when it is no longer awaited.
   */
  nextChange(writes: readonly OwnWrite[]): { changed: Promise<void>; cancel(): void } {
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    const ids = [...new Set(writes.map((w) => w.id))];
    for (const id of ids) {
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      set.add(wake);
    }
    const cancel = (): void => {
      for (const id of ids) {
        const set = this.waiters.get(id);
        set?.delete(wake);
        if (set?.size === 0) this.waiters.delete(id);
      }
    };
    return { changed: changed.then(cancel), cancel };
  }

  /**
   * An informer event for `obj` of `res` (its new state, or the object deleted when `deleted`): drops the remembered
   * write it shows and wakes the reads waiting on the object. The informer calls it after updating its store.
   */
  observe(res: Resource, obj: KubeObject, deleted: boolean): void {
    const name = obj.metadata?.name;
    if (!name) return;
    const id = `${resourceId(res)}|${storeKey(res, obj.metadata?.namespace, name)}`;
    const w = this.writes.get(id);
    if (w && OwnWrites.shows(w, deleted ? undefined : obj) === true) this.writes.delete(id);
    const set = this.waiters.get(id);
    if (set) for (const wake of [...set]) wake();
  }
}
