/**
 * client-go's tools/cache (stores, DeltaFIFO, Reflector, shared informers, listers) and controller-runtime's cache: the
 * InformerCache behind a manager's client.
 *
 * @module @kubescaffold/runtime/cache
 */
export {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
  unwrapTombstone,
  type KeyFunc,
} from './keys.js';
export {
  Cache,
  NAMESPACE_INDEX,
  ThreadSafeStore,
  metaNamespaceIndexFunc,
  newIndexer,
  newStore,
  type IndexFunc,
  type Indexer,
  type Indexers,
  type KeyListerGetter,
  type Store,
} from './store.js';
export {
  DeltaFIFO,
  type Delta,
  type DeltaFIFOOptions,
  type DeltaType,
  type Deltas,
  type PopProcessFunc,
  type TransformFunc,
} from './delta-fifo.js';
export {
  newListWatch,
  newMetadataListWatch,
  type ListWatchScope,
  type ListerWatcher,
  type ListerWatcherListOptions,
} from './listwatch.js';
export { Backoff, sleep } from './backoff.js';
export { Reflector, isNetworkError, type ReflectorOptions, type ReflectorStore } from './reflector.js';
export { ProcessorListener, SharedProcessor, type Notification, type ResourceEventHandler } from './listener.js';
export {
  MINIMUM_RESYNC_PERIOD_MS,
  SharedIndexInformer,
  type HandlerOptions,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformerOptions,
} from './shared-informer.js';
export {
  SharedInformerFactory,
  type InformerRequest,
  type ListerWatcherFactory,
  type MetadataListerWatcherFactory,
  type SharedInformerFactoryOptions,
} from './factory.js';
export { Lister, NamespaceLister, type LabelMatcher } from './lister.js';
export { waitForCacheSync } from './wait.js';
export {
  chainTransforms,
  compactObjects,
  newManagedFieldsSharer,
  newStringInterner,
  stripManagedFields,
  type CompactObjectsOptions,
  type ManagedFieldsSharerOptions,
  type StringInternerOptions,
} from './transforms.js';
export {
  InformerCache,
  KindInformer,
  CacheNotStartedError,
  ResourceNotCachedError,
  type InformerCacheOptions,
  type ByObject,
} from './informer-cache.js';
