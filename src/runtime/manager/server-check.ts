import type { Clock } from '../clock.js';
import { DiscoveryClient } from '../discovery/discovery-client.js';
import { ConfigurationError, TimeoutError } from '../errors.js';
import { isUnauthorized } from '../rest/errors.js';
import { isCertificateError, type HttpTransport } from '../rest/transport.js';

/** The default of ManagerOptions.serverCheckTimeout (ms). */
export const DEFAULT_SERVER_CHECK_TIMEOUT = 10_000;

/** What checkServer needs: the manager's transport, how long to keep trying, and the clock that waits. */
export interface ServerCheckOptions {
  transport: HttpTransport;
  /** How long a server that cannot be reached is tried again before giving up (ms). */
  timeout: number;
  clock: Clock;
  signal: AbortSignal;
}

/**
 * Asks the API server for its version before the manager starts its caches, so that a kubeconfig that cannot work
 * ends the start in one error naming the server and what to fix, where informers would each log a retry until the
 * cache sync timeout. A certificate the kubeconfig cannot verify, or credentials the server rejects, fail at once; a
 * server that cannot be reached (a cluster still starting) is tried again, with backoff, for `timeout` ms. Any other
 * answer, even an error status, shows that the server is there and the check passes.
 */
export async function checkServer(opts: ServerCheckOptions): Promise<void> {
  const discovery = new DiscoveryClient(opts.transport);
  const server = opts.transport.server.origin;
  const deadline = opts.clock.now() + opts.timeout;
  let wait = 100;
  for (;;) {
    try {
      await discovery.serverVersion();
      return;
    } catch (err) {
      if (isUnauthorized(err))
        throw new ConfigurationError(
          `the API server ${server} rejected the kubeconfig's credentials (401 Unauthorized): check the user's token, client certificate or exec plugin`,
          { cause: err },
        );
      // No retry changes a certificate the kubeconfig cannot accept: said at once, instead of every informer retrying
      // until the cache sync timeout.
      if (isCertificateError(err))
        throw new ConfigurationError(`cannot trust the API server: ${(err as Error).message}`, { cause: err });
      // An answer of any other kind came from a server: reaching it is all this check asks.
      if (typeof (err as { code?: unknown }).code !== 'string') return;
      const left = deadline - opts.clock.now();
      if (left <= 0)
        throw new TimeoutError(
          `cannot reach the API server ${server} (tried for ${opts.timeout} ms): ${(err as Error).message}`,
          { cause: err },
        );
      if (!(await opts.clock.sleep(Math.min(wait, left), opts.signal))) return;
      wait = Math.min(wait * 2, 2_000);
    }
  }
}
