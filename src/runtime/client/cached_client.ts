import type { RestClient } from '../rest/client.js';
import type {
  Client,
  CreateOptions,
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectKey,
  ObjectList,
  PatchOptions,
  Resource,
  SubResourceWriter,
  UpdateOptions,
} from '../rest/types.js';
import type { InformerCache } from '../cache/informer_cache.js';

/**
 * The manager's client (controller-runtime's default client): get and list read the informer cache, starting the
 * kind's informer on first use; writes go to the API server. Reads may lag writes until the watch delivers them.
 */
export class CachedClient implements Client {
  constructor(
    private readonly cache: InformerCache,
    private readonly writer: RestClient,
  ) {}

  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T> {
    return this.cache.get(res, key);
  }

  list<T extends KubeObject>(res: Resource<T>, opts?: ListOptions): Promise<ObjectList<T>> {
    return this.cache.list(res, opts);
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

  delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    return this.writer.delete(res, key, opts);
  }

  status(): SubResourceWriter {
    return this.writer.status();
  }
}
