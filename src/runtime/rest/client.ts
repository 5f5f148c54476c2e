import type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
import { isObject as isPlainObject } from '../json/index.js';
import { collectionPath, objectPath } from './resource.js';
import {
  HttpTransport,
  isAbortError,
  responseBody,
  type HttpRequest,
  type QueryValue,
  type TransportOptions,
} from './transport.js';
import type {
  ApplyConfiguration,
  ApplyOptions,
  CreateOptions,
  FieldValidation,
  DeleteCollectionOptions,
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectKey,
  ObjectList,
  ObjectMeta,
  PatchOptions,
  PatchType,
  Resource,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
} from './types.js';
import { decodeWatchStream } from './watch.js';
import { ConfigurationError, InvalidObjectError } from '../errors.js';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
  strategic: 'application/strategic-merge-patch+json',
};

// Ask the server for metadata only (meta.k8s.io/v1 PartialObjectMetadata), as client-go's metadata client does.
const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** An object reduced to its metadata (kind PartialObjectMetadata, apiVersion meta.k8s.io/v1). */
export interface PartialObjectMetadata extends KubeObject {
  /** The object's metadata. */
  metadata: ObjectMeta;
}

/** The scale subresource (autoscaling/v1 Scale). */
export interface Scale extends KubeObject {
  /** The desired number of replicas. */
  spec?: { replicas?: number };
  /** The observed number of replicas, and the label selector of the pods counted. */
  status?: { replicas: number; selector?: string };
}

/** Per-call options of RestClient's reads: an AbortSignal that cancels the request. */
export interface RequestOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** What a list call does with each item as it is decoded (RestClient.list and listMetadata). */
export interface ListItemOptions<T> {
  /**
   * Applied to each item as soon as it is decoded (apiVersion and kind filled in), before the next is read; what it
   * returns takes the item's place. An informer passes its transform here, so that what the transform drops is
   * garbage at once instead of surviving until the whole list is in.
   */
  transformItem?: (item: T) => T;
  /**
   * Leave each item's metadata.managedFields out when decoding (where the body is written compactly, as the API server
   * writes it): for a caller that drops them anyway, whose parse it saves. Items keep them where the decoder cannot
   * tell cheaply.
   */
  omitManagedFields?: boolean;
}

/**
 * Reads and writes one named subresource (status, scale, ...) of objects of any resource; for status, the
 * SubResourceWriter of a Client (@kubescaffold/runtime/client).
 */
export interface SubResourceClient {
  /** Reads the subresource of the object named by key (GET .../status, .../scale). */
  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T>;
  /** Replaces the subresource of the object (PUT .../status); the object must carry its resourceVersion. */
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T>;
  /** Patches the subresource of the object named by key, in the given patch format. */
  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T>;
  /** Server-side applies the subresource's fields of `config` (PATCH .../status, application/apply-patch+yaml). */
  apply<T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T>;
}

/**
 * Options of a client: its transport's, plus defaults for every write (controller-runtime's client.WithFieldOwner and
 * client.WithFieldValidation).
 * @example
 * A client whose writes are one field manager's, and that collects the API server's warnings instead of logging them.
 * ```ts
 * import { loadKubeConfig, newClient, type k8s } from '@kubescaffold/runtime';
 * import { ConfigMaps, type Warning } from '@kubescaffold/runtime/rest';
 *
 * const warnings: Warning[] = [];
 * const client = newClient(loadKubeConfig(), { fieldOwner: 'example-options', warningHandler: (w) => warnings.push(w) });
 * const key = { namespace: 'default', name: 'example-options' };
 * try {
 *   // A field ConfigMaps do not have: with fieldValidation Warn the server drops it and says so.
 *   const typo = { metadata: key, data: { mode: 'a' }, dta: { mode: 'b' } } as k8s.V1ConfigMap;
 *   const created = await client.create(ConfigMaps, typo, { fieldValidation: 'Warn' });
 *   console.log(warnings.map((w) => w.text).join('; '));
 *   console.log(created.metadata?.managedFields?.map((e) => e.manager).join());
 *   await client.delete(ConfigMaps, key);
 * } finally {
 *   client.close();
 * }
 * // Output:
 * // unknown field "dta"
 * // example-options
 * ```
 */
export interface ClientOptions extends TransportOptions {
  /**
   * The field manager of every create, update, patch and apply that names none (their `fieldManager`, apply's
   * `fieldOwner`), e.g. the operator's name. Without it the server names the manager after the user agent, and an
   * apply must name one.
   */
  fieldOwner?: string;
  /** The field validation of every create, update and patch that asks for none; the server's default is Warn. */
  fieldValidation?: FieldValidation;
}

// No `implements Client`: the interface is declared above rest, in client/. test/runtime/client/client.test.ts
// checks that a RestClient is one.
/**
 * The uncached client: every call is one HTTP request to the API server, objects are plain JSON. A Client
 * (@kubescaffold/runtime/client) as generated code uses it, plus watch, deleteCollection and subresources for the
 * cache layer.
 */
export class RestClient {
  /** The HTTP transport every request of this client goes through (shared with its discovery client and watches). */
  readonly transport: HttpTransport;
  private readonly defaults: Pick<ClientOptions, 'fieldOwner' | 'fieldValidation'>;

  constructor(kc: KubeConfig, opts: ClientOptions = {}) {
    const { fieldOwner, fieldValidation, ...transport } = opts;
    this.transport = new HttpTransport(kc, transport);
    this.defaults = { fieldOwner, fieldValidation };
  }

  async get<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts: RequestOptions = {}): Promise<T> {
    return this.transport.requestJson<T>({
      method: 'GET',
      path: objectPath(res, key.namespace, key.name),
      signal: opts.signal,
    });
  }

  /** Lists one page (or everything when no limit is given); items get apiVersion and kind, which lists omit. */
  async list<T extends KubeObject>(
    res: Resource<T>,
    opts: ListOptions & RequestOptions & ListItemOptions<T> = {},
  ): Promise<ObjectList<T>> {
    return this.listRaw<T>(res, opts, undefined, res.apiVersion, res.kind);
  }

  /** Reads one object's metadata only (PartialObjectMetadata), as client-go's metadata client does. */
  async getMetadata(res: Resource, key: ObjectKey, opts: RequestOptions = {}): Promise<PartialObjectMetadata> {
    return this.transport.requestJson<PartialObjectMetadata>({
      method: 'GET',
      path: objectPath(res, key.namespace, key.name),
      accept: METADATA_ACCEPT,
      signal: opts.signal,
    });
  }

  /** Lists only the objects' metadata (PartialObjectMetadata), which is far smaller to transfer and to cache. */
  async listMetadata(
    res: Resource,
    opts: ListOptions & RequestOptions & ListItemOptions<PartialObjectMetadata> = {},
  ): Promise<ObjectList<PartialObjectMetadata>> {
    return this.listRaw<PartialObjectMetadata>(
      res,
      opts,
      METADATA_LIST_ACCEPT,
      'meta.k8s.io/v1',
      'PartialObjectMetadata',
    );
  }

  // Each item gets the apiVersion and kind that lists leave out (parsed with it, typeMeta; set here for an item the
  // decoder could not give them to), then the caller's transform, as it is decoded.
  private async listRaw<T extends KubeObject>(
    res: Resource,
    opts: ListOptions & RequestOptions & ListItemOptions<T>,
    accept: string | undefined,
    apiVersion: string,
    kind: string,
  ): Promise<ObjectList<T>> {
    const transform = opts.transformItem;
    const mapItem = (value: unknown): unknown => {
      const item = value as T;
      item.apiVersion ??= apiVersion;
      item.kind ??= kind;
      return transform ? transform(item) : item;
    };
    const list = await this.transport.requestList<ObjectList<T>>(
      {
        method: 'GET',
        path: collectionPath(res, opts.namespace),
        query: listQuery(opts),
        signal: opts.signal,
        accept,
      },
      mapItem,
      { omitManagedFields: opts.omitManagedFields ?? false, typeMeta: { apiVersion, kind } },
    );
    list.items ??= [];
    list.metadata ??= {};
    return list;
  }

  /** Lists every page, following continue tokens; the result carries the first page's resourceVersion. */
  async listAll<T extends KubeObject>(
    res: Resource<T>,
    opts: ListOptions & RequestOptions = {},
  ): Promise<ObjectList<T>> {
    const first = await this.list(res, opts);
    let cont = first.metadata.continue;
    while (cont) {
      const page = await this.list(res, { ...opts, continue: cont, resourceVersion: undefined });
      for (const item of page.items) first.items.push(item);
      cont = page.metadata.continue;
    }
    first.metadata.continue = undefined;
    return first;
  }

  /**
   * Watches a collection: events until the server ends the stream, options.signal aborts (the iterator then just
   * returns), or the connection fails (the iterator throws). ERROR events are yielded for the caller to judge.
   */
  watch<T extends KubeObject>(res: Resource<T>, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    return this.watchRaw<T>(res, opts, undefined);
  }

  /** Watches only the objects' metadata (PartialObjectMetadata events). */
  watchMetadata(res: Resource, opts: WatchOptions = {}): AsyncGenerator<WatchEvent<PartialObjectMetadata>> {
    return this.watchRaw<PartialObjectMetadata>(res, opts, METADATA_ACCEPT);
  }

  private async *watchRaw<T extends KubeObject>(
    res: Resource,
    opts: WatchOptions,
    accept: string | undefined,
  ): AsyncGenerator<WatchEvent<T>> {
    const req: HttpRequest = {
      method: 'GET',
      path: collectionPath(res, opts.namespace),
      query: {
        watch: true,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        shardSelector: opts.shardSelector,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
        allowWatchBookmarks: opts.allowWatchBookmarks || undefined,
        timeoutSeconds: opts.timeoutSeconds,
        sendInitialEvents: opts.sendInitialEvents,
      },
      signal: opts.signal,
      idleTimeoutMs: opts.idleTimeoutMs ?? 0,
      accept,
    };
    try {
      const stream = await this.transport.stream(req);
      opts.onOpen?.();
      yield* decodeWatchStream<T>(responseBody(stream));
    } catch (e) {
      if (opts.signal?.aborted && (isAbortError(e) || isPrematureClose(e))) return;
      throw e;
    }
  }

  async create<T extends KubeObject>(res: Resource<T>, obj: T, opts: CreateOptions & RequestOptions = {}): Promise<T> {
    return this.transport.requestJson<T>({
      method: 'POST',
      path: collectionPath(res, namespaceOf(res, obj)),
      query: this.writeQuery(opts),
      body: withTypeMeta(res, obj),
      signal: opts.signal,
    });
  }

  async update<T extends KubeObject>(res: Resource<T>, obj: T, opts: UpdateOptions & RequestOptions = {}): Promise<T> {
    return this.transport.requestJson<T>({
      method: 'PUT',
      path: objectPath(res, namespaceOf(res, obj), nameOf(res, obj)),
      query: this.writeQuery(opts),
      body: withTypeMeta(res, obj),
      signal: opts.signal,
    });
  }

  async patch<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    patch: unknown,
    opts: PatchOptions & RequestOptions,
  ): Promise<T> {
    return this.patchAt(res, key, undefined, patch, opts);
  }

  /**
   * Server-side apply (controller-runtime's client.Apply): the server merges `config` into the object named by its
   * metadata, creating it if needed, and records its fields as owned by the field owner; fields this owner applied
   * before and leaves out now are removed. A field another manager owns with a different value fails with 409 Conflict
   * naming that manager and field, unless `force`.
   * @example
   * Two managers apply the same field: the second conflicts, then takes it with force.
   * ```ts
   * import { loadKubeConfig, newClient, type k8s } from '@kubescaffold/runtime';
   * import type { ApplyConfiguration } from '@kubescaffold/runtime/client';
   * import { ConfigMaps } from '@kubescaffold/runtime/rest';
   *
   * const client = newClient(loadKubeConfig());
   * // Checked against V1ConfigMap: a misspelt field or a number in data does not compile.
   * const config: ApplyConfiguration<k8s.V1ConfigMap> = { metadata: { name: 'example-apply', namespace: 'default' }, data: { mode: 'a' } };
   * try {
   *   await client.apply(ConfigMaps, config, { fieldOwner: 'first' });
   *   const second = { ...config, data: { mode: 'b' } };
   *   await client.apply(ConfigMaps, second, { fieldOwner: 'second' }).catch((err: unknown) => console.log((err as Error).message));
   *   console.log((await client.apply(ConfigMaps, second, { fieldOwner: 'second', force: true })).data?.mode);
   *   await client.delete(ConfigMaps, { namespace: 'default', name: 'example-apply' });
   * } finally {
   *   client.close();
   * }
   * // Output:
   * // Apply failed with 1 conflict: conflict with "first": .data.mode
   * // b
   * ```
   */
  async apply<T extends KubeObject>(
    res: Resource<T>,
    config: ApplyConfiguration<T>,
    opts: ApplyOptions & RequestOptions = {},
  ): Promise<T> {
    return this.applyAt(res, undefined, config, opts);
  }

  async delete<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    opts: DeleteOptions & RequestOptions = {},
  ): Promise<void> {
    await this.transport.requestText({
      method: 'DELETE',
      path: objectPath(res, key.namespace, key.name),
      body: deleteBody(opts),
      signal: opts.signal,
    });
  }

  /** Deletes every object matching the selectors (in one namespace, or all for cluster-wide calls). */
  async deleteCollection<T extends KubeObject>(
    res: Resource<T>,
    opts: DeleteCollectionOptions & RequestOptions = {},
  ): Promise<void> {
    await this.transport.requestText({
      method: 'DELETE',
      path: collectionPath(res, opts.namespace),
      query: listQuery(opts),
      body: deleteBody(opts),
      signal: opts.signal,
    });
  }

  /** Writes to the status subresource (needs `+kubebuilder:subresource:status` on custom resources). */
  status(): SubResourceClient {
    return this.subResource('status');
  }

  /** A client for any subresource; the scale subresource has getScale/updateScale/patchScale shortcuts below. */
  subResource(name: string): SubResourceClient {
    return {
      get: async <T extends KubeObject>(res: Resource<T>, key: ObjectKey) =>
        this.transport.requestJson<T>({ method: 'GET', path: objectPath(res, key.namespace, key.name, name) }),
      update: async <T extends KubeObject>(res: Resource<T>, obj: T, opts: UpdateOptions = {}) =>
        this.transport.requestJson<T>({
          method: 'PUT',
          path: objectPath(res, namespaceOf(res, obj), nameOf(res, obj), name),
          query: this.writeQuery(opts),
          body: withTypeMeta(res, obj),
        }),
      patch: <T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions) =>
        this.patchAt(res, key, name, patch, opts),
      apply: <T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts: ApplyOptions = {}) =>
        this.applyAt(res, name, config, opts),
    };
  }

  async getScale(res: Resource, key: ObjectKey): Promise<Scale> {
    return this.transport.requestJson<Scale>({
      method: 'GET',
      path: objectPath(res, key.namespace, key.name, 'scale'),
    });
  }

  async updateScale(res: Resource, key: ObjectKey, scale: Scale): Promise<Scale> {
    return this.transport.requestJson<Scale>({
      method: 'PUT',
      path: objectPath(res, key.namespace, key.name, 'scale'),
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale },
    });
  }

  /** Sets spec.replicas through the scale subresource with a merge patch. */
  async scale(res: Resource, key: ObjectKey, replicas: number): Promise<Scale> {
    return this.patchAt<Scale>(res as Resource<Scale>, key, 'scale', { spec: { replicas } }, { type: 'merge' });
  }

  /** Releases the client's sockets. */
  close(): void {
    this.transport.close();
  }

  private applyAt<T extends KubeObject>(
    res: Resource<T>,
    subresource: string | undefined,
    config: ApplyConfiguration<T>,
    opts: ApplyOptions & RequestOptions,
  ): Promise<T> {
    const { fieldOwner, ...rest } = opts;
    const obj = config as unknown as KubeObject;
    const key = { namespace: res.namespaced ? namespaceOf(res, obj) : undefined, name: nameOf(res, obj) };
    return this.patchAt(res, key, subresource, config, { ...rest, type: 'apply', fieldManager: fieldOwner });
  }

  // The options of a write with the client's defaults filled in.
  private writeQuery(opts: CreateOptions): Record<string, QueryValue> {
    return {
      dryRun: opts.dryRun ? 'All' : undefined,
      fieldManager: opts.fieldManager ?? this.defaults.fieldOwner,
      fieldValidation: opts.fieldValidation ?? this.defaults.fieldValidation,
    };
  }

  private async patchAt<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    subresource: string | undefined,
    patch: unknown,
    opts: PatchOptions & RequestOptions,
  ): Promise<T> {
    if (opts.type === 'apply' && !opts.fieldManager && !this.defaults.fieldOwner) {
      throw new ConfigurationError(
        "server-side apply needs a fieldManager: name one in the call (apply's fieldOwner) or set the client's fieldOwner",
      );
    }
    const body = opts.type === 'apply' && isPlainObject(patch) ? withTypeMeta(res, patch as unknown as T) : patch;
    return this.transport.requestJson<T>({
      method: 'PATCH',
      path: objectPath(res, key.namespace, key.name, subresource),
      query: { ...this.writeQuery(opts), force: opts.type === 'apply' && opts.force ? true : undefined },
      body,
      contentType: PATCH_CONTENT_TYPES[opts.type],
      signal: opts.signal,
    });
  }
}

/**
 * The plain API client for kc (no cache); close() it when done to release its sockets.
 * @example
 * Create, read, patch and delete with the plain client; a ConfigMap's type is client-node's V1ConfigMap.
 * ```ts
 * import { loadKubeConfig, newClient, isNotFound } from '@kubescaffold/runtime';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * const client = newClient(loadKubeConfig());
 * try {
 *   const key = { namespace: 'default', name: 'example-client' };
 *   await client.create(ConfigMaps, { metadata: key, data: { color: 'blue' } });
 *   await client.patch(ConfigMaps, key, { data: { color: 'green' } }, { type: 'merge' });
 *   console.log((await client.get(ConfigMaps, key)).data?.color);
 *   await client.delete(ConfigMaps, key);
 *   await client.get(ConfigMaps, key).catch((err: unknown) => console.log(isNotFound(err) ? 'gone' : err));
 * } finally {
 *   client.close();
 * }
 * // Output:
 * // green
 * // gone
 * ```
 */
export function newClient(kc: KubeConfig, opts: ClientOptions = {}): RestClient {
  return new RestClient(kc, opts);
}

function listQuery(opts: ListOptions): Record<string, QueryValue> {
  return {
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    shardSelector: opts.shardSelector,
    limit: opts.limit,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    timeoutSeconds: opts.timeoutSeconds,
  };
}

function deleteBody(opts: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
  if (opts.preconditions) body.preconditions = opts.preconditions;
  if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.dryRun) body.dryRun = ['All'];
  return body;
}

function withTypeMeta<T extends KubeObject>(res: Resource<T>, obj: T): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? res.apiVersion, kind: obj.kind ?? res.kind };
}

function namespaceOf(res: Resource, obj: KubeObject): string | undefined {
  const ns = obj.metadata?.namespace;
  if (res.namespaced && !ns)
    throw new InvalidObjectError(`${res.kind} ${obj.metadata?.name ?? ''}: metadata.namespace is required`);
  return res.namespaced ? ns : undefined;
}

function nameOf(res: Resource, obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new InvalidObjectError(`${res.kind}: metadata.name is required`);
  return name;
}

function isPrematureClose(e: unknown): boolean {
  const code = (e as { code?: string } | undefined)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET';
}
