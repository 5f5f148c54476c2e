import type { AddressInfo } from 'node:net';
import { HealthzHandler, type Checker } from '../healthz/index.js';
import { http } from '../internal/builtins.js';
import type { Logger } from '../log/index.js';
import type { Runnable } from './runnable.js';
import { serveUntil } from '../internal/serve.js';

/** Serves /healthz and /readyz from the manager's check maps (read per request, so checks added later count). */
export class ProbeServer implements Runnable {
  private bound: AddressInfo | undefined;

  constructor(
    private readonly bindAddress: string,
    private readonly healthz: ReadonlyMap<string, Checker>,
    private readonly readyz: ReadonlyMap<string, Checker>,
    private readonly log: Logger,
  ) {}

  needLeaderElection(): boolean {
    return false;
  }

  address(): AddressInfo | undefined {
    return this.bound;
  }

  async start(signal: AbortSignal): Promise<void> {
    const onFailure = (endpoint: string) => (name: string, err: unknown) =>
      this.log.info(`${endpoint} check failed`, {
        checker: name,
        error: err instanceof Error ? err.message : String(err),
      });
    const handlers = [
      new HealthzHandler('/healthz', this.healthz, onFailure('healthz')),
      new HealthzHandler('/readyz', this.readyz, onFailure('readyz')),
    ];
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      void (async () => {
        for (const h of handlers) if (await h.handle(req, res, url)) return;
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
      })().catch((err: unknown) => {
        this.log.error(err, 'probe request failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await serveUntil(server, {
      bindAddress: this.bindAddress,
      signal,
      log: this.log,
      onListening: (a) => (this.bound = a),
    });
    this.bound = undefined;
  }
}
