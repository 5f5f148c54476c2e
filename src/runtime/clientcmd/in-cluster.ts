// A pod's service account as a cluster configuration (client-go's rest.InClusterConfig, which clientcmd's loader falls
// back to): the API server from the environment, the CA and the token file from the mounted directory.
import { join } from 'node:path';
import { KubeConfigError } from './kubeconfig-error.js';
import type { KubeConfig } from './kubeconfig-types.js';
import { fs } from '../internal/builtins.js';

const { existsSync, readFileSync, statSync } = fs;

/** Where a pod's service account is mounted. */
export const DEFAULT_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The environment variable that moves the in-cluster service account directory (token, ca.crt, namespace) away from
 * {@link DEFAULT_SERVICE_ACCOUNT_DIR}: for tests, and for running a manager outside its pod as if deployed.
 */
export const SERVICE_ACCOUNT_DIR_ENV = 'KUBESCAFFOLD_SERVICE_ACCOUNT_DIR';

/** Environment variables as the loaders read them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Options of {@link inClusterConfig}. */
export interface InClusterConfigOptions {
  /** Where to read KUBERNETES_SERVICE_HOST/PORT, POD_NAMESPACE and KUBESCAFFOLD_SERVICE_ACCOUNT_DIR. Default process.env. */
  env?: Environment;
}

/** The service account directory: $KUBESCAFFOLD_SERVICE_ACCOUNT_DIR, else {@link DEFAULT_SERVICE_ACCOUNT_DIR}. */
export function serviceAccountDir(env: Environment = process.env): string {
  return env[SERVICE_ACCOUNT_DIR_ENV] || DEFAULT_SERVICE_ACCOUNT_DIR;
}

/**
 * The configuration of a pod's service account, as client-go's rest.InClusterConfig: the server at
 * https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, the CA in ca.crt (system CAs when it is missing, as
 * client-go), and the token file, which the transport re-reads as the kubelet rotates it. The namespace is
 * $POD_NAMESPACE, else the service account's namespace file. The directory is {@link serviceAccountDir}.
 */
export function inClusterConfig(opts: InClusterConfigOptions = {}): KubeConfig {
  const env = opts.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeConfigError(
      'not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set',
      'NoConfiguration',
    );
  }
  const dir = serviceAccountDir(env);
  const tokenFile = join(dir, 'token');
  try {
    if (statSync(tokenFile).isDirectory()) throw new KubeConfigError(`${tokenFile} is a directory`);
    readFileSync(tokenFile);
  } catch (e) {
    throw new KubeConfigError(
      `the service account token ${tokenFile} cannot be read: ${(e as Error).message}`,
      'Invalid',
      { cause: e },
    );
  }
  const caFile = join(dir, 'ca.crt');
  let namespace = env.POD_NAMESPACE || undefined;
  if (!namespace) {
    try {
      namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
    } catch {
      // No namespace file: currentNamespace answers "default", as client-go.
    }
  }
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    server: `https://${bracketed}:${port}`,
    namespace,
    tls: existsSync(caFile) ? { caFile } : {},
    auth: { tokenFile },
    source: `in-cluster service account ${dir}`,
  };
}
