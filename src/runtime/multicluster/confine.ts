// A cluster that is one namespace of a real cluster (the namespaces provider's): its clients reach that namespace
// alone. An object or key naming no namespace is put in it; one naming another namespace, or of a cluster-scoped kind,
// is refused before anything is sent, with an error that says so.
import type { InformerCache } from '../cache/informer-cache.js';
import { CachedClient, type CachedClientOptions } from '../client/cached-client.js';
import type { Client, SubResourceWriter } from '../client/client.js';
import { ConfigurationError } from '../errors.js';
import type { PartialObjectMetadata, RestClient } from '../rest/client.js';
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

/** Checks and fills in the namespace of what a confined client is given. */
class Confinement {
  constructor(
    readonly cluster: string,
    readonly namespace: string,
  ) {}

  private check(res: Resource, ns: string | undefined): string {
    if (!res.namespaced)
      throw new ConfigurationError(
        `cluster ${this.cluster} is the namespace ${this.namespace}: ${res.kind} is cluster-scoped, which it cannot reach`,
      );
    if (ns && ns !== this.namespace)
      throw new ConfigurationError(
        `cluster ${this.cluster} is the namespace ${this.namespace}: ${res.kind} ${ns}/… is in another namespace`,
      );
    return this.namespace;
  }

  key(res: Resource, key: ObjectKey): ObjectKey {
    return { ...key, namespace: this.check(res, key.namespace) };
  }

  list<O extends ListOptions | undefined>(res: Resource, opts: O): ListOptions {
    return { ...opts, namespace: this.check(res, opts?.namespace) };
  }

  object<T extends { metadata?: { namespace?: string } }>(res: Resource, obj: T): T {
    const namespace = this.check(res, obj.metadata?.namespace);
    return obj.metadata?.namespace === namespace ? obj : { ...obj, metadata: { ...obj.metadata, namespace } };
  }

  writer(inner: SubResourceWriter): SubResourceWriter {
    return {
      update: async (res, obj, opts) => inner.update(res, this.object(res, obj), opts),
      patch: async (res, key, patch, opts) => inner.patch(res, this.key(res, key), patch, opts),
      apply: async (res, config, opts) => inner.apply(res, this.object(res, config), opts),
    };
  }
}

/** The cached client of a namespace-confined cluster. */
export class NamespaceConfinedClient extends CachedClient {
  private readonly confine: Confinement;

  constructor(cache: InformerCache, writer: RestClient, opts: CachedClientOptions, cluster: string, namespace: string) {
    super(cache, writer, opts);
    this.confine = new Confinement(cluster, namespace);
  }

  override get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T> {
    return this.guard(() => super.get(res, this.confine.key(res, key)));
  }

  override list<T extends KubeObject>(res: Resource<T>, opts?: ListOptions): Promise<ObjectList<T>> {
    return this.guard(() => super.list(res, this.confine.list(res, opts)));
  }

  override getMetadata(res: Resource, key: ObjectKey): Promise<PartialObjectMetadata> {
    return this.guard(() => super.getMetadata(res, this.confine.key(res, key)));
  }

  override listMetadata(res: Resource, opts?: ListOptions): Promise<ObjectList<PartialObjectMetadata>> {
    return this.guard(() => super.listMetadata(res, this.confine.list(res, opts)));
  }

  override create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: CreateOptions): Promise<T> {
    return this.guard(() => super.create(res, this.confine.object(res, obj), opts));
  }

  override update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T> {
    return this.guard(() => super.update(res, this.confine.object(res, obj), opts));
  }

  override patch<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    return this.guard(() => super.patch(res, this.confine.key(res, key), patch, opts));
  }

  override apply<T extends KubeObject>(
    res: Resource<T>,
    config: ApplyConfiguration<T>,
    opts?: ApplyOptions,
  ): Promise<T> {
    return this.guard(() => super.apply(res, this.confine.object(res, config), opts));
  }

  override delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    return this.guard(() => super.delete(res, this.confine.key(res, key), opts));
  }

  override status(): SubResourceWriter {
    return this.confine.writer(super.status());
  }

  // A refusal is a rejected promise, as the API server's would be.
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}

/** The API reader of a namespace-confined cluster: the RestClient, held to the namespace. */
export function confinedReader(rest: RestClient, cluster: string, namespace: string): Client {
  const c = new Confinement(cluster, namespace);
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => fn();
  return {
    get: (res, key) => guard(() => rest.get(res, c.key(res, key))),
    list: (res, opts) => guard(() => rest.list(res, c.list(res, opts))),
    create: (res, obj, opts) => guard(() => rest.create(res, c.object(res, obj), opts)),
    update: (res, obj, opts) => guard(() => rest.update(res, c.object(res, obj), opts)),
    patch: (res, key, patch, opts) => guard(() => rest.patch(res, c.key(res, key), patch, opts)),
    apply: (res, config, opts) => guard(() => rest.apply(res, c.object(res, config), opts)),
    delete: (res, key, opts) => guard(() => rest.delete(res, c.key(res, key), opts)),
    status: () => c.writer(rest.status()),
  };
}
