/** Shared pieces of the runtime unit tests. */
import type { KubeConfig } from '../../src/runtime/rest/index.js';

/** A configuration for a server nobody listens on (https://127.0.0.1:1), for tests that never need the API. */
export function unreachableKubeConfig(): KubeConfig {
  return { server: 'https://127.0.0.1:1', contextName: 'x', auth: { token: 't' } };
}
