/**
 * An in-memory client for reconciler unit tests (controller-runtime's pkg/client/fake).
 *
 * @module @kubescaffold/runtime/fake
 */
export { FakeClient, type FakeClientOptions, type Interceptors } from './client.js';
export { fieldIndex, type FieldIndex } from './tracker.js';
