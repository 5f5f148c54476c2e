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
  };
}

/**
 * The manager's client (controller-runtime's default client): get and list read the informer cache, starting the
 * kind's informer on first use; writes go to the API server. Reads may lag writes until the watch delivers them.
 * getMetadata and listMetadata read metadata-only informers (controller-runtime's reads into PartialObjectMetadata).
 */
export class CachedClient implements Client {
  private readonly uncached: ReadonlySet<string>;

  constructor(
    private readonly cache: InformerCache,
    private readonly writer: RestClient,
    opts: CachedClientOptions = {},
  ) {
    this.uncached = new Set((opts.cache?.disableFor ?? []).map(resourceId));
  }

  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T> {
    return this.uncached.has(resourceId(res)) ? this.writer.get(res, key) : this.cache.get(res, key);
  }

  list<T extends KubeObject>(res: Resource<T>, opts?: ListOptions): Promise<ObjectList<T>> {
    return this.uncached.has(resourceId(res)) ? this.writer.list(res, opts) : this.cache.list(res, opts);
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

  create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: CreateOptions): Promise<T> {
    return this.writer.create(res, obj, opts);
  }

  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T> {
    return this.writer.update(res, obj, opts);
  }

  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T> {
    return this.writer.patch(res, key, patch, opts);
  }

  apply<T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T> {
    return this.writer.apply(res, config, opts);
  }

  delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    return this.writer.delete(res, key, opts);
  }

  status(): SubResourceWriter {
    return this.writer.status();
  }
}
