/**
 * kubescaffold/runtime: what generated operators import. Layered as client-go (rest, cache, workqueue)
 * under controller-runtime (reconcile, controller, builder, client, manager, ...); everything public is here.
 */

// API object types shared by generated code.
export type * as k8s from '@kubernetes/client-node';
export type { int32, int64, Condition } from './client/apitypes.js';
export type { TypeMeta, ObjectMeta, KubeObject, Resource, ObjectKey, ListOptions, Client } from './rest/types.js';

// Logging.
export { log, newLogger, configureLog, parseLogLevel } from './log/index.js';
export type { Logger, LogLevel, LogSettings } from './log/index.js';

// Reconcile.
export { TerminalError, isTerminalError, reconcilerFunc, requestKey, parseRequestKey } from './reconcile/index.js';
export type { Request, Result, ReconcileContext, Reconciler } from './reconcile/index.js';

// Conditions (apimachinery meta helpers).
export {
  setStatusCondition,
  findStatusCondition,
  removeStatusCondition,
  isStatusConditionTrue,
  isStatusConditionFalse,
} from './client/conditions.js';
export type { NewCondition } from './client/conditions.js';

// Process lifecycle.
export { setupSignalHandler } from './manager/signals.js';
