import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface LoadKubeConfigOptions {
  /** A kubeconfig file to use instead of the search below (controller-runtime's --kubeconfig). */
  kubeconfig?: string;
  /** The context to use instead of the file's current-context. */
  context?: string;
}

/**
 * Loads the cluster configuration in controller-runtime's order: an explicit file, $KUBECONFIG (a list of files,
 * merged), the in-cluster service account, then ~/.kube/config. Unlike KubeConfig.loadFromDefault it never falls back
 * to http://localhost:8080; finding nothing is an error.
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  const home = homedir();
  const defaultFile = home ? join(home, '.kube', 'config') : undefined;
  if (opts.kubeconfig) {
    kc.loadFromFile(opts.kubeconfig);
  } else if (process.env.KUBECONFIG) {
    // loadFromDefault reads and merges every file listed in $KUBECONFIG before anything else.
    kc.loadFromDefault();
  } else if (process.env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
  } else if (defaultFile && existsSync(defaultFile)) {
    kc.loadFromFile(defaultFile);
  } else {
    throw new Error(
      'no Kubernetes configuration found: set KUBECONFIG, create ~/.kube/config, or run inside a cluster',
    );
  }
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) {
      const known = kc.getContexts().map((c) => c.name).join(', ') || 'none';
      throw new Error(`kubeconfig context "${opts.context}" not found (contexts: ${known})`);
    }
    kc.setCurrentContext(opts.context);
  }
  if (!kc.getCurrentCluster()) {
    throw new Error(`kubeconfig context "${kc.getCurrentContext()}" names no cluster`);
  }
  return kc;
}

/** The namespace of the current context ('default' when unset), or the pod's own namespace in-cluster. */
export function currentNamespace(kc: KubeConfig): string {
  const ctx = kc.getContextObject(kc.getCurrentContext());
  return ctx?.namespace || 'default';
}
