import { join } from 'node:path';
import { fs } from '../internal/builtins.js';
import { serviceAccountDir, type Environment } from '../clientcmd/in-cluster.js';
import { ConfigurationError } from '../errors.js';

/**
 * The namespace for the lease when none is configured: the pod's own, read from its service account mount
 * (KUBESCAFFOLD_SERVICE_ACCOUNT_DIR moves it, as for the in-cluster config). Outside a cluster there is none, and
 * (as controller-runtime) that is an error.
 */
export function leaderElectionNamespace(configured: string | undefined, env: Environment = process.env): string {
  if (configured) return configured;
  const file = join(serviceAccountDir(env), 'namespace');
  try {
    const ns = fs.readFileSync(file, 'utf8').trim();
    if (ns !== '') return ns;
  } catch {
    // Not in a cluster; fall through to the error.
  }
  throw new ConfigurationError(
    `unable to find leader election namespace: not running in-cluster (no ${file}), please specify leaderElectionNamespace`,
  );
}
