/**
 * kubescaffold/runtime: what generated operators import. Layered as client-go (rest, cache, workqueue)
 * under controller-runtime (reconcile, controller, builder, client, manager, ...); everything public is here.
 */

// API object types shared by generated code.
export type * as k8s from '@kubernetes/client-node';

// client-go layer: REST client, resources, API errors, kubeconfig (rest/), informers (cache/), work queues (workqueue/).
export * from './rest/index.js';
export * from './cache/index.js';
export * from './workqueue/index.js';

// Logging.
export { log, newLogger, configureLog, parseLogLevel } from './log/index.js';
export type { Logger, LogLevel, LogSettings } from './log/index.js';

// Reconcile.
export { TerminalError, isTerminalError, reconcilerFunc, requestKey, parseRequestKey } from './reconcile/index.js';
export type { Request, Result, ReconcileContext, Reconciler } from './reconcile/index.js';

// Controllers: events, predicates, handlers.
export {
  Controller,
  predicateFuncs,
  objectPredicate,
  generationChangedPredicate,
  resourceVersionChangedPredicate,
  labelChangedPredicate,
  annotationChangedPredicate,
  labelSelectorPredicate,
  and,
  or,
  not,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  KindSource,
  GenericSource,
} from './controller/index.js';
export type {
  ControllerOptions,
  CreateEvent,
  UpdateEvent,
  DeleteEvent,
  GenericEvent,
  EventHandler,
  Predicate,
  RequestQueue,
  Source,
  MapFunc,
  InformerProvider,
} from './controller/index.js';

// Client helpers: selectors, conditions, patches, retries, finalizers, owner references, create-or-update.
export * from './client/index.js';

// The cache behind the manager's client.
export { InformerCache, KindInformer, CacheNotStartedError, type InformerCacheOptions } from './client/informer_cache.js';
export { CachedClient } from './client/cached_client.js';

// Manager, builder, and what the manager runs.
export { Manager, LeaderElectionLostError, EventBroadcaster, runnableFunc, setupSignalHandler, parseBindAddress } from './manager/index.js';
export type { ManagerOptions, Runnable, FieldIndexer, EventRecorder, EventType } from './manager/index.js';
export { Builder, newControllerManagedBy } from './builder/index.js';
export type { BuilderControllerOptions } from './builder/index.js';
export { ping, HealthzHandler } from './healthz/index.js';
export type { Checker } from './healthz/index.js';
export { LeaderElector, LeaseResource, microTime, leaderElectionNamespace } from './leaderelection/index.js';
export type { LeaderElectorOptions, Lease, LeaseClient, LeaderElectionRecord } from './leaderelection/index.js';
export { registry as metricsRegistry, MetricsServer, generateSelfSignedCert, workqueueMetricsProvider } from './metrics/index.js';
export type { MetricsServerOptions, CertKeyPair } from './metrics/index.js';

// Webhooks: admission (defaulting, validating) and conversion, their server, builder and certificates.
export * from './webhook/index.js';
