import { deepCopy } from '../json/index.js';
import { log as rootLog, type Logger } from '../log/index.js';
import { SharedInformerFactory, type ListerWatcherFactory } from './factory.js';
import type { ResourceEventHandler } from './listener.js';
import { SharedIndexInformer, type ResourceEventHandlerRegistration } from './shared-informer.js';
import { NAMESPACE_INDEX, type IndexFunc } from './store.js';
import { compactObjects } from './transforms.js';
import { waitForCacheSync } from './wait.js';
import { ApiError } from '../rest/errors.js';
import { RestClient } from '../rest/client.js';
import { resourceId } from '../rest/resource.js';
import type { PartialObjectMetadata } from '../rest/client.js';
import type { KubeObject, ListOptions, ObjectKey, ObjectList, Resource } from '../rest/types.js';
import type { TransformFunc } from './delta-fifo.js';
import { parseFieldSelector, parseSelector, SelectorParseError, type FieldRequirement } from '../rest/selector.js';
import { ConfigurationError, LifecycleError, ShutdownError, TimeoutError } from '../errors.js';
import { newListWatch, newMetadataListWatch, type ListerWatcher } from './listwatch.js';
import { partitionRanges, type HashRange } from '../sharding/hash.js';
import { shardedListWatch } from '../sharding/listwatch.js';
import { inRanges, type ShardKey } from '../sharding/selector.js';
import { probeServerFiltering } from '../sharding/server-filtering.js';
import { shardServerFiltering } from '../metrics/sharding.js';
import { untilAborted } from '../internal/abort-fanout.js';

/** How one kind is cached instead of by the defaults (controller-runtime's cache.ByObject). */
export interface ByObject {
  /** The kind. */
  resource: Resource;
  /** Only these namespaces; default the cache's defaultNamespaces. */
  namespaces?: string[];
  /** Only objects matching this label selector ('app=web,tier!=db'); default the cache's defaultLabelSelector. */
  labelSelector?: string;
  /** Only objects matching this field selector ('metadata.name=x'); default the cache's defaultFieldSelector. */
  fieldSelector?: string;
  /** Applied to each object before it is cached, instead of the default compaction; null caches objects as served. */
  transform?: TransformFunc<KubeObject> | null;
  /** This kind's informer resync period (ms), instead of the cache's; 0 none (controller-runtime's ByObject.SyncPeriod). */
  syncPeriod?: number;
}

/** Options of an InformerCache (controller-runtime's cache.Options): what is cached, and how. */
export interface InformerCacheOptions {
  /** Lists and watches through this client (or a ListerWatcher factory in tests). */
  client: RestClient | ListerWatcherFactory;
  /** Only these namespaces are cached (one informer each per namespaced kind); all namespaces when unset. */
  namespaces?: string[];
  /** Only objects matching this label selector are cached, for every kind without its own in byObject. */
  defaultLabelSelector?: string;
  /** Only objects matching this field selector are cached, for every kind without its own in byObject. */
  defaultFieldSelector?: string;
  /** Per-kind namespaces, selectors and transforms. */
  byObject?: ByObject[];
  /**
   * Hand out the cached objects themselves instead of deep copies. Faster and leaner for large lists, but a caller
   * that changes an object it read changes the cache for everyone, silently and until the next event: only for
   * code that never mutates what it reads (controller-runtime's UnsafeDisableDeepCopy).
   */
  unsafeDisableDeepCopy?: boolean;
  /** Informer resync period (ms); 0 none. */
  resyncPeriodMs?: number;
  /**
   * Applied to each object of every kind without a transform of its own in byObject, instead of the default
   * compaction (managedFields dropped, equal strings shared); null caches objects as served (controller-runtime's
   * DefaultTransform).
   */
  defaultTransform?: TransformFunc<KubeObject> | null;
  /**
   * A read of a kind no informer was asked for fails with ResourceNotCachedError instead of starting one and waiting
   * for its list (controller-runtime's ReaderFailOnMissingInformer): only what the controllers watch is cached.
   */
  readerFailOnMissingInformer?: boolean;
  /**
   * Drop metadata.managedFields before caching (default true). Either way the cached objects share equal strings
   * and, when kept, equal managed field sets (compactObjects).
   */
  stripManagedFields?: boolean;
  /**
   * How long a read waits for its kind's first list before failing (ms), so a kind that can never sync (CRD not
   * installed, no list/watch permission) fails the reconcile instead of hanging it. Default 120000.
   */
  readSyncTimeout?: number;
  /**
   * Set when the manager shards its controllers across a ring's replicas: kinds marked with shardKind() are cached
   * per partition this replica holds, each listed and watched with a shardSelector.
   */
  sharding?: { ring: string; key: ShardKey; partitions: number };
  /** Parent logger; default the root logger. */
  log?: Logger;
}

/**
 * Raised by a cached read of a kind no informer was asked for, when the cache has readerFailOnMissingInformer
 * (controller-runtime's ErrResourceNotCached).
 */
export class ResourceNotCachedError extends ConfigurationError {
  constructor(readonly resource: string) {
    super(
      `${resource} is not cached: nothing watches it and the cache does not start informers on reads (readerFailOnMissingInformer); watch it, or read it with an uncached client`,
    );
    this.name = 'ResourceNotCachedError';
  }
}

/** Raised by cached reads before the manager started the cache (controller-runtime's ErrCacheNotStarted). */
export class CacheNotStartedError extends LifecycleError {
  constructor() {
    super('the cache is not started, can not read objects', 'NotStarted');
    this.name = 'CacheNotStartedError';
  }
}

const ALL_NAMESPACES = '__all_namespaces';
/** The key suffix of a sharded kind's one informer when the server does not filter by shardSelector. */
const WHOLE = '#whole';
/** How long the question whether the server filters a kind may take before the kind is left undecided (ms). */
const PROBE_TIMEOUT_MS = 30_000;

/** controller-runtime's KeyToNamespacedKey: index values are kept per namespace and once across all of them. */
function namespacedIndexKey(namespace: string, value: string): string {
  return namespace === '' ? `${ALL_NAMESPACES}/${value}` : `${namespace}/${value}`;
}

function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/**
 * The informers of one kind: one cluster-wide informer, or one per configured namespace, or (for a kind sharded
 * across a ring's replicas) one per partition this replica holds, coming and going with the partitions. Handlers
 * added here are added to each, present and future; it has synced when each has.
 */
export class KindInformer<T extends KubeObject> {
  private readonly handlers = new Set<{
    handler: ResourceEventHandler<T>;
    regs: Map<string, ResourceEventHandlerRegistration>;
  }>();
  private readonly byKey: Map<string, SharedIndexInformer<T>>;

  constructor(
    readonly resource: Resource<T>,
    /** Keyed by namespace ('' is the cluster-wide informer), or by namespace#partition for a sharded kind. */
    informers: ReadonlyMap<string, SharedIndexInformer<T>>,
    /** Whether the informers are per partition of a shard ring. */
    readonly sharded = false,
  ) {
    this.byKey = new Map(informers);
  }

  /** The informers, keyed by namespace, or by namespace#partition for a sharded kind. */
  get informers(): ReadonlyMap<string, SharedIndexInformer<T>> {
    return this.byKey;
  }

  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    const entry = { handler, regs: new Map<string, ResourceEventHandlerRegistration>() };
    for (const [key, inf] of this.byKey) entry.regs.set(key, inf.addEventHandler(handler));
    this.handlers.add(entry);
    return {
      hasSynced: () => [...entry.regs.values()].every((r) => r.hasSynced()),
      remove: () => {
        for (const r of entry.regs.values()) r.remove();
        entry.regs.clear();
        this.handlers.delete(entry);
      },
    };
  }

  hasSynced(): boolean {
    for (const inf of this.byKey.values()) if (!inf.hasSynced()) return false;
    return true;
  }

  /** The object stored under `key` ('namespace/name' or 'name') in an informer that may hold `namespace`'s. */
  find(namespace: string, key: string): T | undefined {
    if (!this.sharded) return this.informerFor(namespace)?.getIndexer().getByKey(key);
    for (const inf of this.informersFor(namespace)) {
      const obj = inf.getIndexer().getByKey(key);
      if (obj !== undefined) return obj;
    }
    return undefined;
  }

  /** The informer holding objects of `namespace`, or undefined if the cache does not cover it (or it is sharded). */
  informerFor(namespace: string): SharedIndexInformer<T> | undefined {
    if (this.sharded) return undefined;
    return this.byKey.get('') ?? this.byKey.get(namespace);
  }

  /** Every informer that may hold objects of `namespace` ('' for all namespaces). */
  informersFor(namespace: string): SharedIndexInformer<T>[] {
    if (!this.sharded) {
      if (namespace === '') return [...this.byKey.values()];
      const inf = this.informerFor(namespace);
      return inf ? [inf] : [];
    }
    return [...this.byKey.entries()]
      .filter(([key]) => namespace === '' || scopeOfKey(key) === '' || scopeOfKey(key) === namespace)
      .map(([, inf]) => inf);
  }

  /** Adds an informer (a partition's), giving it every handler added so far. */
  attach(key: string, informer: SharedIndexInformer<T>): void {
    this.byKey.set(key, informer);
    for (const e of this.handlers) e.regs.set(key, informer.addEventHandler(e.handler));
  }

  /** Removes an informer (a released partition's) and its handlers; its objects leave without delete events. */
  detach(key: string): SharedIndexInformer<T> | undefined {
    const inf = this.byKey.get(key);
    for (const e of this.handlers) {
      e.regs.get(key)?.remove();
      e.regs.delete(key);
    }
    this.byKey.delete(key);
    return inf;
  }
}

/** The namespace part of a sharded informer's key (namespace#partition). */
function scopeOfKey(key: string): string {
  const i = key.lastIndexOf('#');
  return i < 0 ? key : key.slice(0, i);
}

/**
 * controller-runtime's informer cache: informers created on first use per kind (by a watch or a read) through a
 * shared informer factory, started as soon as the cache runs, and read with deep copies.
 */
export class InformerCache {
  private readonly factory: SharedInformerFactory;
  // Who is told when an informer's watch opens or goes down (onWatchesChange); the informers' reflectors call
  // watchingChanged.
  private readonly watchListeners = new Set<() => void>();

  private readonly watchingChanged = (): void => {
    for (const listener of this.watchListeners) {
      try {
        listener();
      } catch (err) {
        this.log.error(err, 'a watch-change listener failed');
      }
    }
  };
  private readonly namespaces: string[] | undefined;
  private readonly defaults: { labelSelector?: string; fieldSelector?: string };
  private readonly byObject = new Map<string, ByObject>();
  private readonly deepCopy: boolean;
  private readonly kinds = new Map<string, KindInformer<KubeObject>>();
  private readonly fieldIndexes = new Map<string, Map<string, (obj: KubeObject) => string[]>>();
  private readonly log: Logger;
  private signal: AbortSignal | undefined;
  private readonly readSyncTimeout: number;
  private readonly opts: InformerCacheOptions;
  private readonly transform: TransformFunc<KubeObject>;
  // Sharding: the kinds cached per partition, the partitions held, and each partition informer's stop and run.
  private readonly shardedKinds = new Set<string>();
  private readonly ranges: HashRange[] = [];
  private readonly heldPartitions = new Set<number>();
  private readonly partitionRuns = new Map<string, { stop: AbortController; run: Promise<void> }>();
  // Per sharded kind, whether the API server applies shardSelector, as far as it has shown (absent: not known yet).
  // Where it does not, every partition informer would receive every object: the kind is then cached whole, by one
  // informer per scope, and split on this side.
  private readonly filtering = new Map<string, 'filters' | 'ignores'>();
  private readonly probes = new Map<string, Promise<void>>();

  constructor(opts: InformerCacheOptions) {
    this.readSyncTimeout = opts.readSyncTimeout ?? 120_000;
    this.log = (opts.log ?? rootLog).withName('cache');
    this.namespaces = uniqueNamespaces(opts.namespaces);
    this.defaults = { labelSelector: opts.defaultLabelSelector, fieldSelector: opts.defaultFieldSelector };
    for (const b of opts.byObject ?? []) {
      const id = resourceId(b.resource);
      if (this.byObject.has(id)) throw new ConfigurationError(`byObject names ${b.resource.kind} (${id}) twice`);
      if (b.labelSelector) parseSelector(b.labelSelector);
      this.byObject.set(id, b);
    }
    if (opts.defaultLabelSelector) parseSelector(opts.defaultLabelSelector);
    this.deepCopy = !opts.unsafeDisableDeepCopy;
    this.opts = opts;
    this.transform =
      opts.defaultTransform === null
        ? (o) => o
        : (opts.defaultTransform ?? compactObjects({ stripManagedFields: opts.stripManagedFields ?? true }));
    this.factory = new SharedInformerFactory(opts.client, {
      defaultResyncMs: opts.resyncPeriodMs ?? 0,
      transform: this.transform,
      logger: this.log,
      reflector: { onWatchingChange: this.watchingChanged },
    });
    if (opts.sharding) this.ranges.push(...partitionRanges(opts.sharding.partitions));
  }

  /**
   * Caches `res` per partition of the shard ring (InformerCacheOptions.sharding) instead of whole: only objects in
   * the partitions this replica holds, listed and watched with a shardSelector. Before the kind's first use.
   */
  shardKind(res: Resource): void {
    if (!this.opts.sharding) throw new ConfigurationError('shardKind needs InformerCacheOptions.sharding');
    const id = resourceId(res);
    if (this.shardedKinds.has(id)) return;
    if (this.kinds.has(id) || this.kinds.has(`${id}|metadata`))
      throw new ConfigurationError(`${res.kind} (${id}) is already cached whole; shard it before its first use`);
    if (!(this.opts.client instanceof RestClient))
      throw new ConfigurationError('sharded kinds need a RestClient, not a ListerWatcher factory');
    this.shardedKinds.add(id);
  }

  /** Whether `res` is cached per partition. */
  isSharded(res: Resource): boolean {
    return this.shardedKinds.has(resourceId(res));
  }

  /**
   * Starts the informers of `partition` for every sharded kind (and for kinds sharded later); resolves true once all
   * have listed, false if `signal` aborts or the cache stops first.
   */
  async startPartition(partition: number, signal: AbortSignal): Promise<boolean> {
    this.heldPartitions.add(partition);
    const kinds = [...this.kinds.values()].filter((k) => k.sharded);
    await Promise.all(kinds.map((k) => this.probe(k.resource)));
    if (!this.heldPartitions.has(partition) || signal.aborted) return false;
    for (const [key, kind] of this.kinds) {
      if (kind.sharded)
        this.addShardedInformers(kind, key.endsWith('|metadata'), this.shardScope(kind.resource, partition));
    }
    const cacheSignal = this.signal;
    if (!cacheSignal) return false;
    const key = `#${partition}`;
    const synced = (): boolean =>
      [...this.kinds.values()]
        .filter((k) => k.sharded)
        .every((k) =>
          [...k.informers.entries()].every(
            ([name, inf]) => !(name.endsWith(key) || name.endsWith(WHOLE)) || inf.hasSynced(),
          ),
        );
    return waitForCacheSync(AbortSignal.any([signal, cacheSignal]), synced);
  }

  /** Where a sharded kind's objects of `partition` are cached: in the partition's own informers, or in the whole. */
  private shardScope(res: Resource, partition: number): number | 'whole' {
    return this.filtering.get(resourceId(res)) === 'ignores' ? 'whole' : partition;
  }

  /**
   * Asks the API server whether it applies shardSelector to `res` (probeServerFiltering), unless that is known or
   * being asked. A kind it cannot tell for (no object yet) or cannot list stays undecided: its partition informers
   * filter on this side too, and their first list or watch event with an object asks again.
   */
  private probe(res: Resource): Promise<void> {
    const id = resourceId(res);
    const signal = this.signal;
    if (this.filtering.has(id) || !signal || signal.aborted) return Promise.resolve();
    let probe = this.probes.get(id);
    if (!probe) {
      const own = this.byObject.get(id);
      const namespaces = own?.namespaces ? uniqueNamespaces(own.namespaces) : this.namespaces;
      probe = probeServerFiltering(res, this.opts.client as RestClient, {
        key: this.opts.sharding!.key,
        namespace: res.namespaced ? namespaces?.[0] : undefined,
        labelSelector: own?.labelSelector ?? this.defaults.labelSelector,
        fieldSelector: own?.fieldSelector ?? this.defaults.fieldSelector,
        signal: AbortSignal.any([signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]),
      })
        .then((found) => {
          if (found !== 'unknown') this.serverFiltering(id, found);
        })
        .catch((err: unknown) => {
          if (!signal.aborted)
            this.log.debug('could not ask whether the API server filters by shardSelector', {
              resource: id,
              error: String(err),
            });
        })
        .finally(() => this.probes.delete(id));
      this.probes.set(id, probe);
    }
    return probe;
  }

  /**
   * Records what the server showed of a kind's filtering: in shard_server_filtering and, when it changes, in the log.
   * A kind found unfiltered is cached whole from then on (cacheWhole), until the replica restarts.
   */
  private serverFiltering(id: string, found: 'filters' | 'ignores'): void {
    const before = this.filtering.get(id);
    if (before === found || before === 'ignores') return;
    this.filtering.set(id, found);
    shardServerFiltering.labels({ ring: this.opts.sharding!.ring, resource: id }).set(found === 'filters' ? 1 : 0);
    if (found === 'filters') {
      this.log.info('the API server filters by shardSelector: this replica lists and watches only its partitions', {
        resource: id,
      });
      return;
    }
    this.log.info(
      before === 'filters'
        ? 'the API server stopped applying shardSelector (feature gate ShardedListAndWatch turned off?): this replica now caches the kind whole and filters on its side, which is correct but saves no traffic'
        : 'the API server ignores shardSelector (feature gate ShardedListAndWatch off, or a server before 1.36): this replica filters on its side, which is correct but saves no traffic',
      { resource: id },
    );
    this.cacheWhole(id);
  }

  /**
   * Moves a sharded kind from per-partition informers to one whole informer per scope. The partition informers keep
   * delivering (their client-side filter keeps them exact) until the whole ones have listed, so no event is lost on the
   * way; handlers may see an object twice, as after any relist.
   */
  private cacheWhole(id: string): void {
    const signal = this.signal;
    if (!signal || signal.aborted) return;
    for (const kindKey of [id, `${id}|metadata`]) {
      const kind = this.kinds.get(kindKey);
      if (!kind?.sharded) continue;
      const partitionKeys = [...kind.informers.keys()].filter((k) => !k.endsWith(WHOLE));
      if (partitionKeys.length === 0 && this.heldPartitions.size === 0) continue;
      this.addShardedInformers(kind, kindKey.endsWith('|metadata'), 'whole');
      const whole = [...kind.informers.entries()].filter(([k]) => k.endsWith(WHOLE)).map(([, inf]) => inf);
      void waitForCacheSync(signal, ...whole.map((inf) => () => inf.hasSynced())).then(async (synced) => {
        if (synced) await this.stopInformers(kindKey, kind, partitionKeys);
      });
    }
  }

  /** Detaches and stops the informers `keys` of a sharded kind. */
  private async stopInformers(kindKey: string, kind: KindInformer<KubeObject>, keys: string[]): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const key of keys) {
      if (!kind.informers.has(key)) continue;
      kind.detach(key);
      const run = this.partitionRuns.get(`${kindKey}|${key}`);
      this.partitionRuns.delete(`${kindKey}|${key}`);
      if (run) {
        run.stop.abort();
        runs.push(run.run);
      }
    }
    await Promise.all(runs);
  }

  /** Stops the informers of `partition`; their objects leave the cache without delete events. */
  async stopPartition(partition: number): Promise<void> {
    this.heldPartitions.delete(partition);
    await Promise.all(
      [...this.kinds]
        .filter(([, kind]) => kind.sharded)
        .map(([kindKey, kind]) =>
          this.stopInformers(
            kindKey,
            kind,
            [...kind.informers.keys()].filter((key) => key.endsWith(`#${partition}`)),
          ),
        ),
    );
  }

  /** The cached objects of `res` (a sharded kind) in `partition`. */
  objectsInPartition<T extends KubeObject>(res: Resource<T>, partition: number): T[] {
    const kind = this.kinds.get(resourceId(res)) as KindInformer<T> | undefined;
    if (!kind?.sharded) return [];
    const entries = [...kind.informers.entries()];
    const own = entries.filter(([key]) => key.endsWith(`#${partition}`)).flatMap(([, inf]) => inf.getIndexer().list());
    const range = [this.ranges[partition]!];
    const fromWhole = entries
      .filter(([key]) => key.endsWith(WHOLE))
      .flatMap(([, inf]) => inf.getIndexer().list())
      .filter((o) => inRanges(o, this.opts.sharding!.key, range));
    return [...own, ...fromWhole];
  }

  /** The cached object `key` of `res` from any informer, without waiting for a sync (undefined if not cached). */
  peek<T extends KubeObject>(res: Resource<T>, key: ObjectKey): T | undefined {
    const kind = this.kinds.get(resourceId(res)) as KindInformer<T> | undefined;
    if (!kind) return undefined;
    const ns = res.namespaced ? (key.namespace ?? '') : '';
    const k = ns === '' ? key.name : `${ns}/${key.name}`;
    for (const inf of kind.informersFor(ns)) {
      const obj = inf.getIndexer().getByKey(k);
      if (obj !== undefined) return obj;
    }
    return undefined;
  }

  /** Adds a sharded kind's informers of one partition, or its whole informers, per scope, and runs them. */
  private addShardedInformers<T extends KubeObject>(
    kind: KindInformer<T>,
    metadataOnly: boolean,
    where: number | 'whole',
  ): void {
    const res = kind.resource;
    const id = resourceId(res);
    const sharding = this.opts.sharding!;
    const client = this.opts.client as RestClient;
    const own = this.byObject.get(id);
    const namespaces = own?.namespaces ? uniqueNamespaces(own.namespaces) : this.namespaces;
    const scopes = res.namespaced && namespaces ? namespaces : [''];
    const kindKey = metadataOnly ? `${id}|metadata` : id;
    const whole = where === 'whole';
    for (const ns of scopes) {
      const key = whole ? `${ns}${WHOLE}` : `${ns}#${where}`;
      if (kind.informers.has(key)) continue;
      const scope = {
        namespace: ns || undefined,
        labelSelector: own?.labelSelector ?? this.defaults.labelSelector,
        fieldSelector: own?.fieldSelector ?? this.defaults.fieldSelector,
      };
      const base = metadataOnly ? newMetadataListWatch(client, res, scope) : newListWatch(client, res, scope);
      const lw = whole
        ? (base as unknown as ListerWatcher<T>)
        : shardedListWatch(base as unknown as ListerWatcher<T>, {
            key: sharding.key,
            ranges: [this.ranges[where]!],
            ring: sharding.ring,
            resource: id,
            onForeign: () => this.serverFiltering(id, 'ignores'),
            onList: ({ shardInfo, items }) => {
              if (shardInfo) this.serverFiltering(id, 'filters');
              else if (items > 0) void this.probe(res);
            },
            // A kind that had no object when it was asked about is asked again once one arrives.
            onEvent: () => {
              if (!this.filtering.has(id)) void this.probe(res);
            },
          });
      const name = `${metadataOnly ? 'metadata:' : ''}${id}${ns ? ` ns=${ns}` : ''} ${whole ? 'whole' : `partition=${where}`}`;
      const transform = own?.transform !== undefined ? own.transform : this.transform;
      const informer = new SharedIndexInformer<T>(lw, {
        name,
        resyncPeriodMs: own?.syncPeriod ?? this.opts.resyncPeriodMs ?? 0,
        transform: transform as TransformFunc<T> | null,
        logger: this.log.withValues({ informer: name }),
        reflector: { onWatchingChange: this.watchingChanged },
      });
      for (const [field, extract] of this.fieldIndexes.get(id) ?? []) {
        informer.addIndexers({ [fieldIndexName(field)]: this.fieldIndexFunc(extract) as IndexFunc<T> });
      }
      kind.attach(key, informer);
      const signal = this.signal;
      if (signal && !signal.aborted) {
        const stop = new AbortController();
        const run = informer
          .run(AbortSignal.any([signal, stop.signal]))
          .catch((err: unknown) => this.log.error(err, 'partition informer stopped with an error', { informer: name }));
        this.partitionRuns.set(`${kindKey}|${key}`, { stop, run });
      }
    }
  }

  /** The cache serves every replica, leader or not. */
  needLeaderElection(): boolean {
    return false;
  }

  /** Runs every informer (those created later too) until `signal` aborts, then waits for them to stop. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.signal) throw new LifecycleError('the cache was already started', 'AlreadyStarted');
    this.signal = signal;
    this.factory.start(signal);
    await untilAborted(signal);
    await this.factory.shutdown();
  }

  started(): boolean {
    return this.signal !== undefined && !this.signal.aborted;
  }

  /** The kinds with informers, e.g. 'widgets.test.io/v1', and 'secrets.core/v1 (metadata)' for metadata-only ones. */
  informedKinds(): string[] {
    return [...this.kinds.keys()].map((k) => k.replace(/\|metadata$/, ' (metadata)'));
  }

  /**
   * How many objects the informers hold, in all and per kind, and which kinds are still listing: '61,234 objects cached
   * (ConfigMap v1 61,234), still listing Secret v1'.
   */
  describeCached(): string {
    const fmt = (n: number): string => n.toLocaleString('en-US');
    const per = [...this.kinds.entries()].map(([key, kind]) => ({
      name: `${kind.resource.kind} ${kind.resource.version}${key.endsWith('|metadata') ? ' (metadata)' : ''}`,
      count: [...kind.informers.values()].reduce((n, inf) => n + inf.getIndexer().size, 0),
      listing: !kind.hasSynced(),
    }));
    const held = per.filter((k) => k.count > 0).sort((a, b) => b.count - a.count);
    const listing = per.filter((k) => k.listing).map((k) => k.name);
    const total = per.reduce((n, k) => n + k.count, 0);
    return (
      `${fmt(total)} objects cached` +
      (held.length > 0 ? ` (${held.map((k) => `${k.name} ${fmt(k.count)}`).join(', ')})` : '') +
      (listing.length > 0 ? `, still listing ${listing.join(', ')}` : '')
    );
  }

  /**
   * The informers that have listed once and whose watch is not open now (relisting, or backing off after a
   * failure), by kind and key, e.g. 'widgets.test.io/v1'; empty when every one watches. An informer that has never
   * listed (a kind the server lacks or forbids) is the cache sync's concern, not counted here.
   */
  watchesDown(): string[] {
    if (!this.started()) return [];
    const down: string[] = [];
    for (const [id, kind] of this.kinds)
      for (const [key, inf] of kind.informers)
        if (inf.hasSynced() && !inf.isStopped() && !inf.isWatching()) down.push(key === '' ? id : `${id} ${key}`);
    return down;
  }

  /**
   * Every informer retries its list or watch at once, its backoff started over: for a server that answers again,
   * so that the cache does not wait out the backoff of its last failures (up to 30 s). client-go has no such call.
   */
  retryNow(): void {
    for (const kind of this.kinds.values()) for (const inf of kind.informers.values()) inf.retryNow();
  }

  /**
   * Calls `listener` whenever one of the cache's informers' watches opens or goes down (a failure, a relist); see
   * watchesDown() for which. Returns a function that removes it.
   */
  onWatchesChange(listener: () => void): () => void {
    this.watchListeners.add(listener);
    return () => void this.watchListeners.delete(listener);
  }

  /** True once every informer's watch is open (watchesDown() is empty); false if `signal` aborts first. */
  waitForWatches(signal: AbortSignal): Promise<boolean> {
    return waitForCacheSync(signal, () => this.watchesDown().length === 0);
  }

  /** The kinds whose informers have not listed yet, e.g. 'widgets.test.io/v1'. */
  unsyncedKinds(): string[] {
    return [...this.kinds.entries()].filter(([, k]) => !k.hasSynced()).map(([id]) => id);
  }

  /** True once every informer created so far has synced; false if `signal` aborts first. */
  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    const kinds = [...this.kinds.values()];
    return waitForCacheSync(signal, ...kinds.map((k) => () => k.hasSynced()));
  }

  /** The informer(s) for `res`, created on first request and started at once if the cache runs. */
  getInformer<T extends KubeObject>(res: Resource<T>): KindInformer<T> {
    return this.kindInformer(res, false);
  }

  /**
   * The metadata-only informer(s) for `res` (controller-runtime's informers for PartialObjectMetadata): objects are
   * cached as metadata alone, a fraction of full objects, for kinds whose bodies are never read (owned Secrets).
   */
  getMetadataInformer(res: Resource): KindInformer<PartialObjectMetadata> {
    return this.kindInformer(res, true) as unknown as KindInformer<PartialObjectMetadata>;
  }

  private kindInformer<T extends KubeObject>(res: Resource<T>, metadataOnly: boolean): KindInformer<T> {
    const id = resourceId(res);
    const key = metadataOnly ? `${id}|metadata` : id;
    let kind = this.kinds.get(key) as KindInformer<T> | undefined;
    if (!kind && this.shardedKinds.has(id)) {
      kind = new KindInformer(res, new Map<string, SharedIndexInformer<T>>(), true);
      this.kinds.set(key, kind as unknown as KindInformer<KubeObject>);
      for (const p of this.heldPartitions) this.addShardedInformers(kind, metadataOnly, this.shardScope(res, p));
    }
    if (!kind) {
      const own = this.byObject.get(id);
      const namespaces = own?.namespaces ? uniqueNamespaces(own.namespaces) : this.namespaces;
      const request = {
        labelSelector: own?.labelSelector ?? this.defaults.labelSelector,
        fieldSelector: own?.fieldSelector ?? this.defaults.fieldSelector,
        ...(own?.transform !== undefined ? { transform: own.transform } : {}),
        ...(own?.syncPeriod !== undefined ? { resyncPeriodMs: own.syncPeriod } : {}),
      };
      const informers = new Map<string, SharedIndexInformer<T>>();
      const scopes = res.namespaced && namespaces ? namespaces : [''];
      for (const ns of scopes) {
        const req = ns === '' ? request : { ...request, namespace: ns };
        informers.set(
          ns,
          (metadataOnly
            ? this.factory.metadataInformerFor(res, req)
            : this.factory.informerFor(res, req)) as SharedIndexInformer<T>,
        );
      }
      kind = new KindInformer(res, informers);
      this.kinds.set(key, kind as unknown as KindInformer<KubeObject>);
      for (const [field, extract] of this.fieldIndexes.get(id) ?? []) this.addFieldIndex(kind, field, extract);
      if (this.signal && !this.signal.aborted) this.factory.start(this.signal);
    }
    return kind;
  }

  /**
   * Indexes `res` objects by the values `extract` returns for `field`, so list({ fieldSelector: 'field=value' })
   * can be answered from the cache (controller-runtime's FieldIndexer.IndexField).
   */
  indexField<T extends KubeObject>(res: Resource<T>, field: string, extract: (obj: T) => string[]): void {
    const id = resourceId(res);
    const fields = this.fieldIndexes.get(id) ?? new Map<string, (obj: KubeObject) => string[]>();
    if (fields.has(field))
      throw new ConfigurationError(`indexer conflict: field ${field} of ${res.kind} is already indexed`);
    fields.set(field, extract as (obj: KubeObject) => string[]);
    this.fieldIndexes.set(id, fields);
    for (const key of [id, `${id}|metadata`]) {
      const kind = this.kinds.get(key);
      if (kind) this.addFieldIndex(kind, field, extract as (obj: KubeObject) => string[]);
    }
  }

  private addFieldIndex<T extends KubeObject>(
    kind: KindInformer<T>,
    field: string,
    extract: (obj: T) => string[],
  ): void {
    const indexFunc = this.fieldIndexFunc(extract);
    for (const inf of kind.informers.values()) inf.addIndexers({ [fieldIndexName(field)]: indexFunc });
  }

  private fieldIndexFunc<T extends KubeObject>(extract: (obj: T) => string[]): IndexFunc<T> {
    return (obj) => {
      const ns = obj.metadata?.namespace ?? '';
      const raw = extract(obj);
      const vals = raw.map((v) => namespacedIndexKey(ns, v));
      if (ns !== '') for (const v of raw) vals.push(namespacedIndexKey('', v));
      return vals;
    };
  }

  /** Starts (if needed) and waits for the kind's informers; reads must not see a half-filled cache. */
  private async synced<T extends KubeObject>(res: Resource<T>, metadataOnly = false): Promise<KindInformer<T>> {
    const signal = this.signal;
    if (!signal || signal.aborted) throw new CacheNotStartedError();
    if (this.opts.readerFailOnMissingInformer && !this.informs(res, metadataOnly))
      throw new ResourceNotCachedError(`${metadataOnly ? 'the metadata of ' : ''}${resourceId(res)}`);
    const kind = this.kindInformer(res, metadataOnly);
    if (kind.hasSynced()) return kind;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.readSyncTimeout);
    try {
      if (!(await waitForCacheSync(AbortSignal.any([signal, timeout.signal]), () => kind.hasSynced()))) {
        if (signal.aborted) throw new ShutdownError(`the cache stopped before ${res.kind} synced`);
        throw new TimeoutError(
          `timed out after ${this.readSyncTimeout} ms waiting for the cache of ${resourceId(res)} to sync (is the kind installed, and may we list and watch it?)`,
        );
      }
    } finally {
      clearTimeout(timer);
    }
    return kind;
  }

  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T> {
    return this.read(res, key, false);
  }

  /** Reads one object's metadata from the metadata-only informer of its kind (started on first use). */
  getMetadata(res: Resource, key: ObjectKey): Promise<PartialObjectMetadata> {
    return this.read(res as Resource<PartialObjectMetadata>, key, true);
  }

  // Every reconcile reads: once the kind has synced, the read settles without an await, array or timer on the way, and
  // a miss rejects a microtask later, once the caller's await or catch is attached. A promise rejected while it has no
  // handler yet costs Node its unhandled-rejection bookkeeping, and reconcilers of objects not made yet miss often.
  private read<T extends KubeObject>(res: Resource<T>, key: ObjectKey, metadataOnly: boolean): Promise<T> {
    let out: T;
    try {
      const kind = this.syncedKind(res, metadataOnly);
      if (kind === undefined) return this.readOnceSynced(res, key, metadataOnly);
      const obj = this.lookup(kind, res, key);
      if (obj === undefined) return rejectSoon(notFound(res, key.name));
      out = this.copyOut(res, obj, metadataOnly);
    } catch (err) {
      return rejectSoon(err);
    }
    return Promise.resolve(out);
  }

  private async readOnceSynced<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    metadataOnly: boolean,
  ): Promise<T> {
    const kind = await this.synced(res, metadataOnly);
    const obj = this.lookup(kind, res, key);
    if (obj === undefined) throw notFound(res, key.name);
    return this.copyOut(res, obj, metadataOnly);
  }

  /** The cached object under key, as stored (not copied); throws if the cache does not cover its namespace. */
  private lookup<T extends KubeObject>(kind: KindInformer<T>, res: Resource<T>, key: ObjectKey): T | undefined {
    const ns = res.namespaced ? (key.namespace ?? '') : '';
    if (!kind.sharded && kind.informerFor(ns) === undefined)
      throw new ConfigurationError(`unable to get: ${ns}/${key.name} because of unknown namespace for the cache`);
    return kind.find(ns, ns === '' ? key.name : `${ns}/${key.name}`);
  }

  /** The kind's informers if the cache runs and they have synced; undefined otherwise (synced() then waits). */
  private syncedKind<T extends KubeObject>(res: Resource<T>, metadataOnly: boolean): KindInformer<T> | undefined {
    if (!this.signal || this.signal.aborted) return undefined;
    if (this.opts.readerFailOnMissingInformer && !this.informs(res, metadataOnly)) return undefined;
    const kind = this.kindInformer(res, metadataOnly);
    return kind.hasSynced() ? kind : undefined;
  }

  /**
   * Whether informers of the kind (its metadata-only ones with `metadataOnly`) were asked for, by a watch, a declared
   * read or an earlier cached read; a sharded kind's come with its partitions.
   */
  informs(res: Resource, metadataOnly = false): boolean {
    const id = resourceId(res);
    return this.kinds.has(metadataOnly ? `${id}|metadata` : id) || this.shardedKinds.has(id);
  }

  /**
   * Lists from the cache: namespace, label selector and field selector (exact matches on indexed fields, or on
   * metadata.name / metadata.namespace) are honoured; limit truncates (the cache has no continue tokens).
   */
  async list<T extends KubeObject>(res: Resource<T>, opts: ListOptions = {}): Promise<ObjectList<T>> {
    return this.readList(res, opts, false);
  }

  /** Lists the metadata of a kind's objects from its metadata-only informer (started on first use). */
  listMetadata(res: Resource, opts: ListOptions = {}): Promise<ObjectList<PartialObjectMetadata>> {
    return this.readList(res as Resource<PartialObjectMetadata>, opts, true);
  }

  private async readList<T extends KubeObject>(
    res: Resource<T>,
    opts: ListOptions,
    metadataOnly: boolean,
  ): Promise<ObjectList<T>> {
    const kind = await this.synced(res, metadataOnly);
    const ns = res.namespaced ? (opts.namespace ?? '') : '';
    let informers: SharedIndexInformer<T>[] = [];
    informers = kind.informersFor(ns);
    if (ns !== '' && informers.length === 0 && !kind.sharded)
      throw new ConfigurationError(`unable to list: namespace ${ns} is not covered by the cache`);
    const labels = opts.labelSelector ? parseSelector(opts.labelSelector) : undefined;
    const fields = parseFieldSelector(opts.fieldSelector ?? '');
    const indexed = fields.find((f) => f.operator === '=' && this.fieldIndexes.get(resourceId(res))?.has(f.field));
    const rest = fields.filter((f) => f !== indexed);
    for (const f of rest) {
      if (f.field !== 'metadata.name' && f.field !== 'metadata.namespace') {
        throw new SelectorParseError(
          `field selector ${f.field}${f.operator}${f.value} needs a field index (mgr.getFieldIndexer().indexField)`,
        );
      }
    }
    const items: T[] = [];
    for (const inf of informers) {
      const idx = inf.getIndexer();
      const candidates = indexed
        ? idx.byIndex(fieldIndexName(indexed.field), namespacedIndexKey(ns, indexed.value))
        : ns !== ''
          ? idx.byIndex(NAMESPACE_INDEX, ns)
          : idx.list();
      for (const o of candidates) {
        if (labels && !labels.matches(o.metadata?.labels ?? {})) continue;
        if (!rest.every((f) => matchesField(o, f))) continue;
        items.push(o);
      }
    }
    items.sort(byNamespaceName);
    const limited = opts.limit && opts.limit > 0 ? items.slice(0, opts.limit) : items;
    const rv = informers.length === 1 && !kind.sharded ? informers[0]!.lastSyncResourceVersion() : undefined;
    return {
      apiVersion: metadataOnly ? 'meta.k8s.io/v1' : res.apiVersion,
      kind: metadataOnly ? 'PartialObjectMetadataList' : `${res.kind}List`,
      items: limited.map((o) => this.copyOut(res, o, metadataOnly)),
      metadata: rv ? { resourceVersion: rv } : {},
    };
  }

  /**
   * What a read hands out: a deep copy, so callers may change it without touching the cache (unless deep copies were
   * turned off), with apiVersion and kind set as a list's items lack them.
   */
  private copyOut<T extends KubeObject>(res: Resource<T>, obj: T, metadataOnly: boolean): T {
    const out = this.deepCopy ? deepCopy(obj) : obj;
    out.apiVersion ??= metadataOnly ? 'meta.k8s.io/v1' : res.apiVersion;
    out.kind ??= metadataOnly ? 'PartialObjectMetadata' : res.kind;
    return out;
  }
}

function matchesField(o: KubeObject, f: FieldRequirement): boolean {
  const v = f.field === 'metadata.name' ? (o.metadata?.name ?? '') : (o.metadata?.namespace ?? '');
  return f.operator === '=' ? v === f.value : v !== f.value;
}

function byNamespaceName(a: KubeObject, b: KubeObject): number {
  const ak = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const bk = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ak < bk ? -1 : ak > bk ? 1 : 0;
}

function uniqueNamespaces(list: string[] | undefined): string[] | undefined {
  const ns = list?.filter((n) => n !== '');
  return ns && ns.length > 0 ? [...new Set(ns)] : undefined;
}

/** A promise that rejects with err in a microtask: by then whoever awaits it has attached its handler. */
function rejectSoon<T>(err: unknown): Promise<T> {
  return new Promise<T>((_resolve, reject) => queueMicrotask(() => reject(err)));
}

// What a cache miss's NotFound inherits: ApiError's prototype, its name, and a `stack` that is its first line, as a
// stackless Error's would be.
const cacheMissPrototype: object = Object.create(ApiError.prototype, {
  name: { value: 'ApiError', writable: true, configurable: true },
  stack: {
    get(this: ApiError) {
      return `${this.name}: ${this.message}`;
    },
    configurable: true,
  },
});

/**
 * The 404 of a cache miss as controller-runtime's cache reader words it: apierrors.NewNotFound with the Kind where the
 * API server has the resource (`ConfigMap "x" not found`, `Widget.test.io "x" not found`), so that messages built on it
 * (a status condition's, say) read as a Go operator's do. Reconcilers of deleted objects, and of owned objects not made
 * yet, meet it as often as they read, so it is built without Error's constructor, which was most of its cost even
 * without a stack: an ApiError all the same (instanceof, code, reason, status, message), whose message says where it
 * came from.
 */
export function notFound(res: Resource, name: string): ApiError {
  const qualified = res.group === '' ? res.kind : `${res.kind}.${res.group}`;
  const message = `${qualified} "${name}" not found`;
  const err = Object.create(cacheMissPrototype) as Record<'message' | 'code' | 'reason' | 'status', unknown>;
  err.message = message;
  err.code = 404;
  err.reason = 'NotFound';
  err.status = {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    reason: 'NotFound',
    details: { name, group: res.group, kind: res.kind },
    code: 404,
  };
  return err as unknown as ApiError;
}
