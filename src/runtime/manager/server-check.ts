import type { Clock } from '../clock.js';
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
  const server = opts.transport.server.origin;
  const deadline = opts.clock.now() + opts.timeout;
  let wait = 100;
  let unreachable: unknown;
  for (;;) {
    try {
      await askVersion(opts, deadline - opts.clock.now());
      return;
    } catch (caught) {
      // The last try may run out of time before a refused connection is reported: the refusal is the news.
      const err = caught instanceof NoAnswer && unreachable !== undefined ? unreachable : caught;
      if (err instanceof NoAnswer)
        throw new TimeoutError(
          `the API server ${server} did not answer within ${opts.timeout} ms: it accepts connections but sends nothing back; is the kubeconfig's server address the API server's?`,
          { cause: err },
        );
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
      unreachable = err;
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

class NoAnswer extends Error {}

/**
 * GET /version, given up after `left` ms: a server that accepts the connection and never answers (a TLS handshake
 * left hanging, a wrong port) would otherwise hold the start for the socket's own timeout.
 */
async function askVersion(opts: ServerCheckOptions, left: number): Promise<void> {
  const attempt = new AbortController();
  const stop = (): void => attempt.abort();
  opts.signal.addEventListener('abort', stop, { once: true });
  const timer = new AbortController();
  void opts.clock.sleep(Math.max(left, 0), timer.signal).then((slept) => {
    if (slept) attempt.abort(new NoAnswer(`no answer within ${left} ms`));
  });
  try {
    await opts.transport.requestJson({ method: 'GET', path: '/version', signal: attempt.signal });
  } catch (err) {
    if (attempt.signal.reason instanceof NoAnswer) throw attempt.signal.reason;
    throw err;
  } finally {
    timer.abort();
    opts.signal.removeEventListener('abort', stop);
  }
}
