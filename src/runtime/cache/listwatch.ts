import type { PartialObjectMetadata, RestClient } from '../rest/client.js';
import type { KubeObject, ListOptions, ObjectList, Resource, WatchEvent, WatchOptions } from '../rest/types.js';

export interface ListerWatcherListOptions extends ListOptions {
  signal?: AbortSignal;
}

/** What a Reflector needs of the API: list a collection and watch it. */
export interface ListerWatcher<T extends KubeObject> {
  list(opts: ListerWatcherListOptions): Promise<ObjectList<T>>;
  watch(opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

/** Narrows every list and watch (client-go's ListOptions tweak): a namespace and label/field selectors. */
export interface ListWatchScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** A ListerWatcher over the API for one resource, optionally scoped. */
export function newListWatch<T extends KubeObject>(client: RestClient, res: Resource<T>, scope: ListWatchScope = {}): ListerWatcher<T> {
  const namespace = res.namespaced ? scope.namespace || undefined : undefined;
  return {
    list: (opts) => client.list(res, { ...opts, namespace, labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector }),
    watch: (opts) => client.watch(res, { ...opts, namespace, labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector }),
  };
}

/** A ListerWatcher of metadata only (client-go's metadata informers): objects arrive as PartialObjectMetadata. */
export function newMetadataListWatch(client: RestClient, res: Resource, scope: ListWatchScope = {}): ListerWatcher<PartialObjectMetadata> {
  const namespace = res.namespaced ? scope.namespace || undefined : undefined;
  return {
    list: (opts) => client.listMetadata(res, { ...opts, namespace, labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector }),
    watch: (opts) => client.watchMetadata(res, { ...opts, namespace, labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector }),
  };
}
