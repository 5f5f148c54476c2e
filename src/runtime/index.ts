/**
 * kubescaffold/runtime: what generated operators import. Layered as client-go (rest, cache, workqueue)
 * under controller-runtime (reconcile, controller, builder, client, manager, ...); everything public is here.
 */

// API object types shared by generated code.
export type * as k8s from '@kubernetes/client-node';

// client-go layer: REST client, resources, API errors, kubeconfig (rest/), informers (cache/), work queues (workqueue/).
export * from './rest/index.js';
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
} from './controller/index.js';

// Client helpers: selectors, conditions, patches, retries, finalizers, owner references, create-or-update.
export * from './client/index.js';

// Process lifecycle.
export { setupSignalHandler } from './manager/signals.js';
