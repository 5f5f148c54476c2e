/** The kube-apiserver flags that TestEnvironment's callers (and `scaffold envtest start --apiserver-arg`) may not set. */
import { EnvtestError } from '../errors.js';

/**
 * The kube-apiserver flags envtest sets for its own use, and what each is for. A value of the caller's for one of them
 * would leave the API server unreachable through the admin kubeconfig and envtest's readiness check, or storing
 * elsewhere than the etcd envtest starts and discards; the other defaults may be overridden (as controller-runtime's
 * envtest lets them be through APIServer.Configure()).
 */
export const RESERVED_APISERVER_FLAGS: Readonly<Record<string, string>> = {
  'secure-port': 'the admin kubeconfig and the readiness check use the free port envtest picks',
  'cert-dir': 'the admin kubeconfig trusts the serving certificate envtest writes there',
  'client-ca-file': "the admin kubeconfig's client certificate is signed by the CA envtest writes there",
  'etcd-servers': 'the API server stores in the etcd envtest starts beside it and discards on stop',
};

/**
 * Refuses flags the caller may not set (see {@link RESERVED_APISERVER_FLAGS}) and names without a flag name, with an
 * EnvtestError that names the flag and why.
 */
export function checkAPIServerFlags(flags: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(flags)) {
    if (name === '' || name.startsWith('-'))
      throw new EnvtestError(
        `kube-apiserver flag names are given without their dashes (feature-gates, not --feature-gates): "${name}"`,
      );
    const reason = RESERVED_APISERVER_FLAGS[name];
    if (reason !== undefined) throw new EnvtestError(`envtest sets --${name} itself: ${reason}`);
  }
}
