/**
 * A minimal JSON client for the apiserver, authenticated as the admin user. The environment uses
 * it for readiness checks and CRD installation, before (and independently of) @kubernetes/client-node.
 */
import { Agent, request as httpsRequest } from 'node:https';

export interface AdminCredentials {
  /** https://127.0.0.1:<port> */
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface Response {
  status: number;
  body: unknown;
  text: string;
}

export class AdminClient {
  private readonly agent: Agent;

  constructor(private readonly creds: AdminCredentials) {
    this.agent = new Agent({ keepAlive: true, ca: creds.caPem, cert: creds.certPem, key: creds.keyPem, maxSockets: 8 });
  }

  request(method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Response> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.creds.server),
        {
          method,
          agent: this.agent,
          headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON (e.g. /healthz's "ok")
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, text });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Closes idle keep-alive connections (the server is about to go away). */
  close(): void {
    this.agent.destroy();
  }
}
