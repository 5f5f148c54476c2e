import { fs } from '../internal/builtins.js';

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * The namespace for the lease when none is configured: the pod's own, read from its service account mount.
 * Outside a cluster there is none, and (as controller-runtime) that is an error.
 */
export function leaderElectionNamespace(configured: string | undefined): string {
  if (configured) return configured;
  try {
    const ns = fs.readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim();
    if (ns !== '') return ns;
  } catch {
    // Not in a cluster; fall through to the error.
  }
  throw new Error('unable to find leader election namespace: not running in-cluster, please specify leaderElectionNamespace');
}
