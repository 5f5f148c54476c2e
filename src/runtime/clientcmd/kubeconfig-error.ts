import { findInChain } from '../errors.js';
/** Why loading a cluster configuration failed: `NoConfiguration` when none was found at all, else `Invalid`. */
export type KubeConfigErrorReason = 'NoConfiguration' | 'Invalid';

/**
 * A kubeconfig that cannot be used, or none found. The message names the file, the context and the field:
 * `kubeconfig /home/u/.kube/config: context "dev" names user "bob", which the file does not define (users: alice)`.
 */
export class KubeConfigError extends Error {
  /** NoConfiguration: nothing to load was found; Invalid: a configuration was found but cannot be used. */
  readonly reason: KubeConfigErrorReason;
  constructor(message: string, reason: KubeConfigErrorReason = 'Invalid', options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeConfigError';
    this.reason = reason;
  }
}

/** True when `err` (or an error in its cause chain) is a KubeConfigError, with `reason` when given. */
export function isKubeConfigError(err: unknown, reason?: KubeConfigErrorReason): err is KubeConfigError {
  const found = findInChain(err, KubeConfigError);
  return found !== undefined && (reason === undefined || found.reason === reason);
}
