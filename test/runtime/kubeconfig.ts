/** Shared pieces of the runtime unit tests. */
import { KubeConfig } from '@kubernetes/client-node';

/** A kubeconfig for a server nobody listens on (https://127.0.0.1:1), for tests that never need the API. */
export function unreachableKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
