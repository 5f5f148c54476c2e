import type { PartialObjectMetadata, RestClient } from '../rest/client.js';
import type { KubeObject, ListOptions, ObjectList, Resource, WatchEvent, WatchOptions } from '../rest/types.js';

/** List options plus an AbortSignal that cancels the request, and what to do with each item as it is decoded. */
export interface ListerWatcherListOptions<T = KubeObject> extends ListOptions {
  /** Aborts the list request. */
  signal?: AbortSignal;
  /**
   * The Reflector's transform: applied to each item as it is decoded, its result kept in the item's place (RestClient's
   * list does so). A ListerWatcher that cannot apply it may ignore it: when it was called for no item of a page, the
   * Reflector applies it to the page's items itself.
   */
  transformItem?: (item: T) => T;
  /** The transform drops metadata.managedFields: the ListerWatcher may leave them out when decoding (or ignore this). */
  omitManagedFields?: boolean;
}

/** What a Reflector needs of the API: list a collection and watch it. */
export interface ListerWatcher<T extends KubeObject> {
  /** Lists one page of the collection. */
  list(opts: ListerWatcherListOptions<T>): Promise<ObjectList<T>>;
  /** Watches the collection from opts.resourceVersion; the iterable ends when the watch does. */
  watch(opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

/** Narrows every list and watch (client-go's ListOptions tweak): a namespace and label/field selectors. */
export interface ListWatchScope {
  /** Only this namespace; all namespaces when unset or ''. */
  namespace?: string;
  /** Only objects whose labels match this selector. */
  labelSelector?: string;
  /** Only objects whose fields match this selector. */
  fieldSelector?: string;
}

/** A ListerWatcher over the API for one resource, optionally scoped. */
export function newListWatch<T extends KubeObject>(
  client: RestClient,
  res: Resource<T>,
  scope: ListWatchScope = {},
): ListerWatcher<T> {
  const namespace = res.namespaced ? scope.namespace || undefined : undefined;
  return {
    list: (opts) =>
      client.list(res, { ...opts, namespace, labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector }),
    watch: (opts) =>
      client.watch(res, { ...opts, namespace, labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector }),
  };
}

/** A ListerWatcher of metadata only (client-go's metadata informers): objects arrive as PartialObjectMetadata. */
export function newMetadataListWatch(
  client: RestClient,
  res: Resource,
  scope: ListWatchScope = {},
): ListerWatcher<PartialObjectMetadata> {
  const namespace = res.namespaced ? scope.namespace || undefined : undefined;
  return {
    list: (opts) =>
      client.listMetadata(res, {
        ...opts,
        namespace,
        labelSelector: scope.labelSelector,
        fieldSelector: scope.fieldSelector,
      }),
    watch: (opts) =>
      client.watchMetadata(res, {
        ...opts,
        namespace,
        labelSelector: scope.labelSelector,
        fieldSelector: scope.fieldSelector,
      }),
  };
}
