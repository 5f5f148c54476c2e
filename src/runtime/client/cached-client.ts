import type { ClientOptions, PartialObjectMetadata, RestClient } from '../rest/client.js';
import { resourceId } from '../rest/resource.js';
import type { Client, SubResourceWriter } from './client.js';
import type {
  ApplyConfiguration,
  ApplyOptions,
  CreateOptions,
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectKey,
  ObjectList,
  PatchOptions,
  Resource,
  UpdateOptions,
} from '../rest/types.js';
import type { InformerCache } from '../cache/informer-cache.js';
import { isDeletedFinalStateUnknown } from '../cache/keys.js';
import { realClock, type Clock } from '../clock.js';
import { OwnWrites, type OwnWrite } from './own-writes.js';

/** ReadYourWritesOptions.timeout's default (ms). */
const DEFAULT_READ_YOUR_WRITES_TIMEOUT = 2000;

/**
 * How a read waits for the client's own writes (CachedClientOptions.cache.readYourWrites): it waits at most
 * `timeout` for the cache to show them, then reads the API server instead.
 */
export interface ReadYourWritesOptions {
  /**
   * How long a read waits for the informer to reach the resourceVersion of the client's own write (ms) before it
   * reads the API server instead. Default 2000: the watch usually delivers a write within milliseconds.
   */
  timeout?: number;
  /** Measures the wait; default the process's clock (tests pass a fake one). */
  clock?: Clock;
}

/** Options of one get of the CachedClient. */
export interface CachedReadOptions {
  /**
   * Whether this read sees the client's own writes (CachedClientOptions.cache.readYourWrites), whatever the client's
   * default: true to wait for them, false to read the cache as it is.
   */
  readYourWrites?: boolean;
}

/** Options of one list of the CachedClient: the ListOptions, and whether it sees the client's own writes. */
export interface CachedListOptions extends ListOptions, CachedReadOptions {}

/**
 * Options of the manager's client (controller-runtime's client.Options): the defaults of its writes (`fieldOwner`,
 * `fieldValidation`), where the API server's warnings go (`warningHandler`), and how it uses the cache.
 */
export interface CachedClientOptions extends Pick<ClientOptions, 'fieldOwner' | 'fieldValidation' | 'warningHandler'> {
  /** How the client uses the cache. */
  cache?: {
    /**
     * Kinds read from the API server on every get and list instead of from the cache, so no informer holds them
     * (controller-runtime's client.CacheOptions.DisableFor): for kinds read rarely but numerous, such as Secrets.
     */
    disableFor?: Resource[];
    /**
     * Make every get and list see this client's own writes (true, or how long to wait for them): a read of an object
     * the client created, updated, patched, applied or deleted returns that write or a later state, never the one
     * before. The read waits, at most `timeout`, for the informer to reach the resourceVersion the write returned,
     * then reads the API server instead. A single read can ask for it, or opt out, with `{ readYourWrites }`.
     * Default off, as in controller-runtime, whose reads may lag the client's writes.
     */
    readYourWrites?: boolean | ReadYourWritesOptions;
  };
}

/**
 * The manager's client (controller-runtime's default client): get and list read the informer cache, starting the
 * kind's informer on first use; writes go to the API server. Reads may lag writes until the watch delivers them,
 * unless they ask to read the client's own writes (CachedClientOptions.cache.readYourWrites, or `{ readYourWrites:
 * true }` on one read). getMetadata and listMetadata read metadata-only informers (controller-runtime's reads into
 * PartialObjectMetadata); they do not wait for the client's writes.
 */
export class CachedClient implements Client {
  private readonly uncached: ReadonlySet<string>;
  private readonly ownWrites = new OwnWrites();
  private readonly readYourWrites: boolean;
  private readonly readYourWritesTimeout: number;
  private readonly clock: Clock;
  /** Kinds whose informer tells ownWrites of its events. */
  private readonly observed = new Set<string>();

  constructor(
    private readonly cache: InformerCache,
    private readonly writer: Client & Pick<RestClient, 'getMetadata' | 'listMetadata'>,
    opts: CachedClientOptions = {},
  ) {
    this.uncached = new Set((opts.cache?.disableFor ?? []).map(resourceId));
    const ryw = opts.cache?.readYourWrites;
    this.readYourWrites = ryw !== undefined && ryw !== false;
    const rywOpts = typeof ryw === 'object' ? ryw : {};
    this.readYourWritesTimeout = rywOpts.timeout ?? DEFAULT_READ_YOUR_WRITES_TIMEOUT;
    this.clock = rywOpts.clock ?? realClock;
  }

  /** One object, from the cache (from the API server if the kind is uncached); see CachedReadOptions. */
  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts: CachedReadOptions = {}): Promise<T> {
    if (this.uncached.has(resourceId(res))) return this.writer.get(res, key);
    const own = (opts.readYourWrites ?? this.readYourWrites) ? this.ownWrites.of(res, key) : undefined;
    if (!own) return this.cache.get(res, key);
    return this.afterOwnWrites(
      res,
      [own],
      () => this.cache.get(res, key),
      () => this.writer.get(res, key),
    );
  }

  /** Objects of a kind, from the cache (from the API server if the kind is uncached); see CachedListOptions. */
  list<T extends KubeObject>(res: Resource<T>, opts: CachedListOptions = {}): Promise<ObjectList<T>> {
    const { readYourWrites, ...listOpts } = opts;
    if (this.uncached.has(resourceId(res))) return this.writer.list(res, listOpts);
    const own = (readYourWrites ?? this.readYourWrites) ? this.ownWrites.in(res, listOpts.namespace) : [];
    if (own.length === 0) return this.cache.list(res, listOpts);
    return this.afterOwnWrites(
      res,
      own,
      () => this.cache.list(res, listOpts),
      () => this.writer.list(res, listOpts),
    );
  }

  /**
   * Reads the cache once it shows `writes` (or a later state of their objects), waiting for the informer's events at
   * most readYourWritesTimeout; reads the API server when the time runs out, or when the resourceVersions cannot be
   * ordered. The cache only moves forward, so a read after the check sees what the check saw or newer.
   */
  private async afterOwnWrites<R>(
    res: Resource,
    writes: OwnWrite[],
    fromCache: () => Promise<R>,
    fromServer: () => Promise<R>,
  ): Promise<R> {
    // Before the cache runs, or for a kind it does not inform yet, the read fails or starts the informer as a plain
    // cached read would.
    if (!this.cache.started()) return fromCache();
    if (!this.cache.informs(res)) await fromCache();
    const kind = this.cache.getInformer(res);
    this.observe(res, kind);
    const deadline = this.clock.now() + this.readYourWritesTimeout;
    for (;;) {
      const next = this.ownWrites.nextChange(writes);
      const shown = kind.hasSynced()
        ? writes.map((w) => OwnWrites.shows(w, this.cache.peek(res, w.key)))
        : writes.map(() => false);
      if (shown.includes(undefined)) {
        next.cancel();
        return fromServer();
      }
      if (shown.every((s) => s === true)) {
        next.cancel();
        for (const w of writes) this.ownWrites.forget(w);
        return fromCache();
      }
      const left = deadline - this.clock.now();
      const stopTimer = new AbortController();
      const woke =
        left > 0 &&
        (await Promise.race([
          next.changed.then(() => true),
          this.clock.sleep(left, stopTimer.signal).then(() => false),
        ]));
      stopTimer.abort();
      next.cancel();
      if (!woke) return fromServer();
    }
  }

  /** Tells ownWrites of the kind's events from now on (once per kind), to wake reads and forget shown writes. */
  private observe(res: Resource, kind: ReturnType<InformerCache['getInformer']>): void {
    const id = resourceId(res);
    if (this.observed.has(id)) return;
    this.observed.add(id);
    kind.addEventHandler({
      onAdd: (obj) => this.ownWrites.observe(res, obj, false),
      onUpdate: (_old, obj) => this.ownWrites.observe(res, obj, false),
      onDelete: (obj) => this.ownWrites.observe(res, isDeletedFinalStateUnknown(obj) ? obj.obj : obj, true),
    });
  }

  /** One object's metadata, from the kind's metadata-only informer (or the API server when the kind is uncached). */
  getMetadata(res: Resource, key: ObjectKey): Promise<PartialObjectMetadata> {
    return this.uncached.has(resourceId(res)) ? this.writer.getMetadata(res, key) : this.cache.getMetadata(res, key);
  }

  /** The metadata of a kind's objects, from its metadata-only informer (or the API server when uncached). */
  listMetadata(res: Resource, opts?: ListOptions): Promise<ObjectList<PartialObjectMetadata>> {
    return this.uncached.has(resourceId(res))
      ? this.writer.listMetadata(res, opts)
      : this.cache.listMetadata(res, opts);
  }

  async create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: CreateOptions): Promise<T> {
    return this.written(res, await this.writer.create(res, obj, opts), opts?.dryRun);
  }

  async update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T> {
    return this.written(res, await this.writer.update(res, obj, opts), opts?.dryRun);
  }

  async patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T> {
    return this.written(res, await this.writer.patch(res, key, patch, opts), opts.dryRun);
  }

  async apply<T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T> {
    return this.written(res, await this.writer.apply(res, config, opts), opts?.dryRun);
  }

  async delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    await this.writer.delete(res, key, opts);
    if (opts?.dryRun) return;
    this.ownWrites.recordDelete(res, key);
    this.forgetWhenShown(res);
  }

  /**
   * A writer for the status subresource (controller-runtime's client.Status()): updates and patches only .status.
   * Its writes are the client's own as the others are, for reads that wait for them.
   */
  status(): SubResourceWriter {
    const status = this.writer.status();
    return {
      update: async (res, obj, opts) => this.written(res, await status.update(res, obj, opts), opts?.dryRun),
      patch: async (res, key, patch, opts) => this.written(res, await status.patch(res, key, patch, opts), opts.dryRun),
      apply: async (res, config, opts) => this.written(res, await status.apply(res, config, opts), opts?.dryRun),
    };
  }

  /** Remembers what the server answered a write with (not a dry run's), for reads of the client's own writes. */
  private written<T extends KubeObject>(res: Resource<T>, out: T, dryRun: boolean | undefined): T {
    if (dryRun) return out;
    this.ownWrites.recordWrite(res, out);
    this.forgetWhenShown(res);
    return out;
  }

  /**
   * Lets the kind's informer drop the writes it shows, from the client's first write of an informed kind: a client
   * whose reads never wait would otherwise keep every write it made, up to the limit, for good.
   */
  private forgetWhenShown(res: Resource): void {
    if (this.cache.started() && this.cache.informs(res)) this.observe(res, this.cache.getInformer(res));
  }
}
