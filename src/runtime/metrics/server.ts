import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { http } from '../internal/builtins.js';
import type { Logger } from '../log/index.js';
import { serveUntil, type ListeningServer } from '../internal/serve.js';
import type { Client } from '../client/client.js';
import { DelegatingAuth } from './auth.js';
import { registerProcessMetrics, registry } from './registry.js';
import { generateSelfSignedCert, type CertKeyPair } from './selfsigned.js';
import { ConfigurationError } from '../errors.js';

/**
 * Options of the MetricsServer (controller-runtime's metricsserver.Options): bind address, HTTPS with authentication
 * and authorization, HTTP/2, and certificates.
 */
export interface MetricsServerOptions {
  /** '[host]:port'; the manager does not build a server for '0'. */
  bindAddress: string;
  /** HTTPS plus TokenReview/SubjectAccessReview on every request. Default true. */
  secureServing?: boolean;
  /** Offer HTTP/2 over TLS; off by default (the HTTP/2 Rapid Reset and Stream Cancellation CVEs). */
  enableHTTP2?: boolean;
  /** Directory holding the serving certificate; a self-signed one is generated when unset. */
  certDir?: string;
  /** The certificate's file name in certDir; default 'tls.crt'. */
  certName?: string;
  /** The key's file name in certDir; default 'tls.key'. */
  keyName?: string;
  /** The client that sends TokenReviews and SubjectAccessReviews; required when secureServing. */
  authClient?: Client;
  /** Where serving and authorization problems are logged. */
  log: Logger;
}

interface Req {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
}
interface Res {
  writeHead(code: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** Serves the shared registry on /metrics, as controller-runtime's metrics server. */
export class MetricsServer {
  private bound: AddressInfo | undefined;
  private readonly auth: DelegatingAuth | undefined;
  private readonly secure: boolean;

  constructor(private readonly opts: MetricsServerOptions) {
    this.secure = opts.secureServing ?? true;
    if (this.secure) {
      if (!opts.authClient)
        throw new ConfigurationError('secure metrics serving needs a client for TokenReview and SubjectAccessReview');
      this.auth = new DelegatingAuth(opts.authClient);
    }
  }

  /** The bound address once listening. */
  address(): AddressInfo | undefined {
    return this.bound;
  }

  async start(signal: AbortSignal): Promise<void> {
    registerProcessMetrics();
    const handler = (req: Req, res: Res): void => {
      this.handle(req, res).catch((err: unknown) => {
        this.opts.log.error(err, 'metrics request failed');
        try {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end('internal server error\n');
        } catch {
          // The response may already be half-written; nothing more to do.
        }
      });
    };
    let server: ListeningServer;
    if (!this.secure) {
      server = http.createServer(handler);
    } else {
      const tls = await this.loadCert();
      // node:http2 costs several MiB of RSS to load, so only a server that offers HTTP/2 loads it.
      server = this.opts.enableHTTP2
        ? (await import('node:http2')).createSecureServer({ ...tls, allowHTTP1: true }, handler)
        : https.createServer({ ...tls, ALPNProtocols: ['http/1.1'] }, handler);
    }
    await serveUntil(server, {
      bindAddress: this.opts.bindAddress,
      signal,
      log: this.opts.log,
      onListening: (a) => (this.bound = a),
    });
    this.bound = undefined;
  }

  private async loadCert(): Promise<CertKeyPair> {
    const dir = this.opts.certDir;
    if (dir === undefined || dir === '') {
      this.opts.log.info('Generating self-signed cert as no cert is provided');
      return generateSelfSignedCert();
    }
    const [cert, key] = await Promise.all([
      readFile(join(dir, this.opts.certName ?? 'tls.crt'), 'utf8'),
      readFile(join(dir, this.opts.keyName ?? 'tls.key'), 'utf8'),
    ]);
    return { cert, key };
  }

  private async handle(req: Req, res: Res): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    if (this.auth) {
      const decision = await this.auth.check(req.headers.authorization, req.method ?? 'GET', path);
      if (!decision.allowed) {
        this.opts.log.debug('metrics request refused', { code: decision.code, reason: decision.message });
        res.writeHead(decision.code, {
          'Content-Type': 'text/plain; charset=utf-8',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end(decision.message + '\n');
        return;
      }
    }
    const body = await registry.metrics();
    res.writeHead(200, { 'Content-Type': registry.contentType });
    res.end(body);
  }
}
