// kubescaffold/runtime/fake: an in-memory client for reconciler unit tests (controller-runtime's pkg/client/fake).
export { FakeClient, type FakeClientOptions, type Interceptors } from './client.js';
export { fieldIndex, type FieldIndex } from './tracker.js';
