/**
 * controller-runtime's reconcile, controller, builder, handler, predicate and source packages: what turns watch events
 * into reconciles. For handlers and predicates that use the old and new object, a deleted object's last state
 * (tombstones included) and the initial list, and typed requests that carry more than a name, see the guide
 * [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
 *
 * @module @kubescaffold/runtime/controller
 */
export {
  Controller,
  type ControllerOptions,
  type RequestGate,
  type Admission,
  type ControllerQueue,
  type GateQueueOptions,
} from './controller.js';
export type {
  CreateEvent,
  UpdateEvent,
  DeleteEvent,
  GenericEvent,
  EventHandler,
  Predicate,
  RequestQueue,
  Source,
} from './events.js';
export {
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
} from './predicates.js';
export {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type MapFunc,
} from './handlers.js';
export { KindSource, GenericSource, type InformerProvider } from './source.js';
export { TerminalError, isTerminalError, reconcilerFunc, requestKey, typedRequestKey } from '../reconcile/index.js';
export type { Request, Result, ReconcileContext, Reconciler } from '../reconcile/index.js';
export {
  Builder,
  newControllerManagedBy,
  newTypedControllerManagedBy,
  type BuilderControllerOptions,
  type BuilderReadOptions,
  type BuilderWatchOptions,
} from '../builder/index.js';
