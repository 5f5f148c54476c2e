export type { Request, Result, ReconcileContext, Reconciler } from './types.js';
export { reconcilerFunc, requestKey, typedRequestKey } from './types.js';
export { TerminalError, isTerminalError } from './terminal.js';
