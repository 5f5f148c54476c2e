/**
 * The admin user's requests to the environment's API server, for readiness checks and CRD installation: the
 * runtime's HTTP transport (the same TLS, keep-alive and error handling as every other client), answering with the
 * status and body of any response, since a starting API server's 503 is an answer to wait on, not an error.
 */
import { HttpTransport, type HttpMethod } from '@kubescaffold/runtime/rest';
import { toKubeConfig, type AdminCredentials } from './kubeconfig.js';

export interface Response {
  status: number;
  body: unknown;
  text: string;
}

export class AdminClient {
  private transport: HttpTransport;

  constructor(private readonly creds: AdminCredentials) {
    this.transport = this.newTransport();
  }

  // No retries on 429/5xx: the callers poll, and want to see each answer.
  private newTransport(): HttpTransport {
    return new HttpTransport(toKubeConfig(this.creds), { userAgent: 'kubescaffold-envtest', maxRetries: 0 });
  }

  /** One request; the body is parsed as JSON when it is JSON. Fails on a network error or after `timeoutMs`. */
  async request(method: HttpMethod, path: string, body?: unknown, timeoutMs = 10_000): Promise<Response> {
    let res: { status: number; text: string };
    try {
      res = await this.transport.requestRaw({
        method,
        path,
        body,
        signal: AbortSignal.timeout(timeoutMs),
        idleTimeoutMs: timeoutMs,
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        throw new Error(`${method} ${path}: timed out after ${timeoutMs} ms`, { cause: err });
      throw err;
    }
    let parsed: unknown = res.text;
    try {
      parsed = JSON.parse(res.text);
    } catch {
      // not JSON (e.g. /healthz's "ok")
    }
    return { status: res.status, body: parsed, text: res.text };
  }

  /** Closes the connections (the server is about to go away); later requests open new ones. */
  close(): void {
    this.transport.close();
    this.transport = this.newTransport();
  }
}
