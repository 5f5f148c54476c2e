export { Controller, type ControllerOptions } from './controller.js';
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
export { enqueueRequestForObject, enqueueRequestForOwner, enqueueRequestsFromMapFunc, type MapFunc } from './handlers.js';
export { KindSource, GenericSource, type InformerProvider } from './source.js';
