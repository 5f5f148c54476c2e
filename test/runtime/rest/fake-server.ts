import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '../../../src/runtime/rest/index.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: RecordedRequest, res: http.ServerResponse) => void;

/** A local HTTP server that records requests and answers with a handler: the API server as the client sees it. */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  connections = 0;
  private readonly server: http.Server;
  handler: Handler = (_req, res) => json(res, 404, notFound('x'));

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const rec = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        };
        this.requests.push(rec);
        this.handler(rec, res);
      });
    });
    this.server.on('connection', () => this.connections++);
  }

  /** Listens on a free port; the configuration reaches it with the bearer token secret-token. */
  async start(): Promise<KubeConfig> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const port = (this.server.address() as AddressInfo).port;
    return { server: `http://127.0.0.1:${port}`, contextName: 'ctx', auth: { token: 'secret-token' } };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export function json(res: http.ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function notFound(name: string): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: `"${name}" not found`,
    reason: 'NotFound',
    code: 404,
    details: { name },
  };
}
