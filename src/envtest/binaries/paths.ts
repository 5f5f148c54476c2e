import { homedir } from 'node:os';
import { join } from 'node:path';

/** The two binaries a control plane needs, as named in every envtest assets directory. */
export const KUBE_APISERVER = 'kube-apiserver';
/** The etcd binary's file name. */
export const ETCD = 'etcd';

/** Root of the binary cache: one subdirectory per Kubernetes version ($XDG_CACHE_HOME or ~/.cache). */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kubescaffold', 'envtest');
}
