/**
 * The webhook server (controller-runtime's webhook.DefaultServer): HTTPS on port 9443 with HTTP/1.1 only (HTTP/2
 * stays off, as kubebuilder's default, for the Rapid Reset CVEs), one handler per path, the certificate from a
 * directory (tls.crt/tls.key, reloaded when it changes) or, when there is none, a CA and serving certificate made
 * at start whose CA is put into the webhook configurations and CRDs that point at this server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { getHeapStatistics } from 'node:v8';
import type { Checker } from '../healthz/index.js';
import { crypto, fs } from '../internal/builtins.js';
import { closeGracefully } from '../internal/serve.js';
import { log as rootLog, type Logger } from '../log/index.js';
import type { Runnable } from '../manager/runnable.js';
import type { Client } from '../client/client.js';
import { injectCABundle, type ServingEndpoint } from './cabundle.js';
import { generateLocalServingCert } from './certs.js';
import { CertWatcher } from './certwatcher.js';
import { ConversionWebhook } from './conversion.js';
import { HttpError, MAX_REVIEW_BYTES, type WebhookHandler } from './handler.js';
import { webhookRequestInFlight, webhookRequestLatency, webhookRequestTotal } from './metrics.js';
import { ConfigurationError, LifecycleError, ShutdownError, TimeoutError, TransportError } from '../errors.js';
import { untilAborted } from '../internal/abort-fanout.js';

const { randomUUID } = crypto;

/**
 * Options of a WebhookServer (controller-runtime's webhook.Options): where it listens, its certificate, and its
 * connection limits and timeouts.
 */
export interface WebhookServerOptions {
  /** The address to listen on; '' (the default) listens on every interface. Also named in a generated certificate. */
  host?: string;
  /** Default 9443; 0 picks a free port. */
  port?: number;
  /**
   * Directory holding the serving certificate (tls.crt, tls.key, reloaded when they change). When unset, a CA and
   * serving certificate are generated; when set but without the certificate, start() fails, as controller-runtime's
   * does (in a cluster that is a missing cert-manager Secret, which a generated certificate would hide).
   */
  certDir?: string;
  /** Default 'tls.crt'. */
  certName?: string;
  /** Default 'tls.key'. */
  keyName?: string;
  /**
   * Puts a generated CA into the webhook configurations and CRDs that point at this server; nothing is patched
   * without it. The manager that runs the server gives it its client.
   */
  client?: Client;
  /** Parent logger; the manager's when it runs the server, else the root logger. */
  log?: Logger;
  /** Connections served at once; more are refused (and logged). Default 1000. */
  maxConnections?: number;
  /**
   * How long a client may take to send a request's headers (ms). Default 32000, controller-runtime's
   * ReadHeaderTimeout: a half-sent request does not hold a connection for long.
   */
  readHeaderTimeout?: number;
  /** How long an idle keep-alive connection stays open (ms). Default 90000, controller-runtime's IdleTimeout. */
  idleTimeout?: number;
  /**
   * How long a whole request, body included, may take to arrive (ms). Default 60000. controller-runtime sets no
   * bound; the API server gives up on a webhook after its timeoutSeconds (at most 30 s), so a body still trickling in
   * after a minute is dropped rather than held for Node's default of 300 s.
   */
  requestTimeout?: number;
  /**
   * The bytes of request bodies being read or handled at once. A request that would go beyond it, while others are in
   * flight, is answered 429 with Retry-After: 1, which the API server honours by sending it again; a request alone is
   * always served. A review costs several times its size in memory while it is parsed and handled, so this keeps
   * concurrent large reviews inside the container's limit. Default: an eighth of V8's heap limit (the scaffolded
   * manager.yaml sizes the heap at 70% of the memory limit), at least one largest review. 0 means no bound.
   */
  maxInFlightBodyBytes?: number;
}

/** What the manager that runs a webhook server gives it (see WebhookServer.attach). */
export interface WebhookServerManagerLink {
  /** The manager's client, used to inject a generated CA. */
  client: Client;
  /** The manager's logger. */
  log: Logger;
  /** Called when the first path is registered: the manager runs the server only once something needs it. */
  onFirstRegistration: () => void;
}

/** The port a WebhookServer listens on unless told otherwise, as controller-runtime's (9443). */
export const DEFAULT_WEBHOOK_PORT = 9443;
/** The path of the conversion webhook, as kubebuilder's CRD patches name it. */
export const CONVERSION_PATH = '/convert';
const DIAL_TIMEOUT_MS = 10_000;

function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::';
}

/**
 * Reads a request body of at most `limit` bytes as text; undefined when it is (or says it is) larger, with the rest
 * left unread for refuseTooLarge. With a Content-Length the bytes go straight into one buffer of that size, so a large
 * review is held once, not as chunks plus their concatenation.
 */
function readBodyText(req: IncomingMessage, limit: number | undefined): Promise<string | undefined> {
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (limit !== undefined && declared !== undefined && declared > limit) return Promise.resolve(undefined);
  const buf = declared !== undefined && Number.isSafeInteger(declared) ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    // Listeners rather than for-await: leaving a for-await loop early destroys the request and its connection.
    const settle = (done: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      req.pause();
      done();
    };
    const onData = (c: Buffer) => {
      // More than Content-Length said, or over the limit: refuse rather than grow.
      if (buf ? size + c.length > buf.length : limit !== undefined && size + c.length > limit)
        return settle(() => resolve(undefined));
      if (buf) c.copy(buf, size);
      else chunks.push(c);
      size += c.length;
    };
    const onEnd = () =>
      settle(() => resolve(buf ? buf.toString('utf8', 0, size) : Buffer.concat(chunks).toString('utf8')));
    const onError = (err: Error) => settle(() => reject(err));
    const onClose = () =>
      settle(() => reject(new TransportError('the client closed the connection before the body ended', 'Unreachable')));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** How much more of an oversized body is read after the 413, as Go's net/http reads (maxPostHandlerReadBytes). */
const TOO_LARGE_DRAIN_BYTES = 256 * 1024;
/** How long the connection then stays open, as Go's rstAvoidanceDelay, unless the body ends first. */
const TOO_LARGE_LINGER_MS = 500;

/**
 * 413 for a body over the limit, readable by a client still sending it. Closing at once, with the body unread, resets
 * the connection under the answer, and the client sees only EPIPE. So, as Go's net/http does: the answer goes first,
 * then up to 256 KiB more of the body is read and dropped, and the connection is closed half a second later (at
 * once when the client hangs up; kept for the next request when the body ended).
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const socket = req.socket;
  // For a client that sent Connection: close, Node destroys the socket as soon as the answer is written (destroySoon).
  // End only our side instead; the timer below closes the connection.
  socket.destroySoon = () => void socket.end();
  let drained = 0;
  let ended = false;
  const close = setTimeout(() => {
    if (!ended) socket.destroy();
  }, TOO_LARGE_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(close));
  req.on('data', (c: Buffer) => {
    drained += c.length;
    // Stop reading: the client's writes then wait on TCP instead of failing, while it reads the answer.
    if (drained >= TOO_LARGE_DRAIN_BYTES) req.pause();
  });
  req.on('end', () => {
    ended = true;
    clearTimeout(close);
  });
  req.on('error', () => socket.destroy());
  sendText(res, 413, `request body is larger than ${limit} bytes`);
  req.resume();
}

/** An eighth of V8's heap limit, and never less than one largest review. */
function defaultBodyBudget(): number {
  return Math.max(MAX_REVIEW_BYTES, Math.floor(getHeapStatistics().heap_size_limit / 8));
}

function sendText(res: ServerResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(text.endsWith('\n') ? text : text + '\n');
}

/**
 * The HTTPS server for admission and conversion webhooks (controller-runtime's webhook.Server): serves registered
 * handlers by path, with the certificate from certDir (reloaded on change) or a generated one, and runs as a manager
 * Runnable on every replica.
 */
export class WebhookServer implements Runnable {
  /** The address it listens on; '' means every interface. */
  readonly host: string;
  /** The port it listens on (0: a free port; see address() once started). */
  readonly port: number;
  private log: Logger;
  private client: Client | undefined;
  private onFirstRegistration: (() => void) | undefined;
  private attached = false;
  private readonly handlers = new Map<string, WebhookHandler>();
  private conversions: ConversionWebhook | undefined;
  private bound: AddressInfo | undefined;
  private started = false;
  private startCalled = false;
  private generatedCA: string | undefined;
  // Bytes of request bodies admitted and not yet answered, against bodyBudget (0: unbounded).
  private bodyBytesInFlight = 0;
  private readonly bodyBudget: number;
  private resolveReady!: () => void;
  private rejectReady!: (err: unknown) => void;
  private readonly readyPromise = new Promise<void>((resolve, reject) => {
    this.resolveReady = resolve;
    this.rejectReady = reject;
  });

  constructor(private readonly opts: WebhookServerOptions = {}) {
    this.host = opts.host ?? '';
    this.port = opts.port ?? DEFAULT_WEBHOOK_PORT;
    this.bodyBudget = opts.maxInFlightBodyBytes ?? defaultBodyBudget();
    if (!(this.bodyBudget >= 0))
      throw new ConfigurationError(`maxInFlightBodyBytes must be 0 or more, not ${String(opts.maxInFlightBodyBytes)}`);
    this.log = (opts.log ?? rootLog).withName('webhook');
    this.client = opts.client;
    // Whoever awaits ready() sees a failed start; nobody awaiting must not make it an unhandled rejection.
    this.readyPromise.catch(() => {});
  }

  /**
   * Links the server to the manager that runs it (ManagerOptions.webhookServer): its client and logger, unless the
   * options named others, and the call that asks the manager to run the server once a path is registered.
   */
  attach(manager: WebhookServerManagerLink): void {
    if (this.attached) throw new ConfigurationError('this webhook server already belongs to a manager');
    this.attached = true;
    this.client ??= manager.client;
    if (!this.opts.log) this.log = manager.log.withName('webhook');
    this.onFirstRegistration = manager.onFirstRegistration;
  }

  /** Webhooks run on every replica, leader or not (the API server may call any of them). */
  needLeaderElection(): boolean {
    return false;
  }

  /** Serves `handler` at `path`; paths are unique. Handlers registered while running are served at once. */
  register(path: string, handler: WebhookHandler): void {
    if (!path.startsWith('/')) throw new ConfigurationError(`webhook path ${JSON.stringify(path)} must start with "/"`);
    if (this.handlers.has(path)) throw new ConfigurationError(`can't register duplicate path: ${path}`);
    this.handlers.set(path, handler);
    this.log.info('Registering webhook', { path });
    if (this.handlers.size === 1) this.onFirstRegistration?.();
  }

  /** The paths served. */
  registeredPaths(): string[] {
    return [...this.handlers.keys()];
  }

  /** The shared conversion webhook at /convert, registered on first use. */
  conversionWebhook(): ConversionWebhook {
    if (!this.conversions) {
      this.conversions = new ConversionWebhook();
      this.register(CONVERSION_PATH, this.conversions);
    }
    return this.conversions;
  }

  /** Where the server listens, once it does. */
  address(): AddressInfo | undefined {
    return this.bound;
  }

  /** The CA (PEM) of a certificate generated at start; undefined when the certificate came from certDir. */
  generatedCABundle(): string | undefined {
    return this.generatedCA;
  }

  /** Resolves once the server listens (and a generated CA has been put in place); rejects if the start failed. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** A readiness check: fails until the server is started, then dials it over TLS (controller-runtime's StartedChecker). */
  startedChecker(): Checker {
    return () => {
      if (!this.started || !this.bound)
        throw new LifecycleError('webhook server has not been started yet', 'NotStarted');
      const host = isWildcard(this.host) ? '127.0.0.1' : this.host;
      const port = this.bound.port;
      return new Promise<void>((resolve, reject) => {
        const socket = connect({
          host,
          port,
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
          timeout: DIAL_TIMEOUT_MS,
        });
        socket.once('secureConnect', () => {
          socket.end();
          resolve();
        });
        socket.once('timeout', () => socket.destroy(new TimeoutError(`timed out after ${DIAL_TIMEOUT_MS} ms`)));
        socket.once('error', (err) =>
          reject(new TransportError(`webhook server is not reachable: ${err.message}`, 'Unreachable', { cause: err })),
        );
      });
    };
  }

  /** Serves until `signal` aborts, then lets in-flight requests finish briefly and releases everything. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.startCalled) throw new LifecycleError('the webhook server was already started', 'AlreadyStarted');
    this.startCalled = true;
    let watcher: CertWatcher | undefined;
    let generatedDir: string | undefined;
    let server: https.Server | undefined;
    try {
      const certs = await this.certificateFiles();
      generatedDir = certs.generatedDir;
      const w = new CertWatcher({
        certPath: certs.certPath,
        keyPath: certs.keyPath,
        log: this.log,
        onChange: (pair) => server?.setSecureContext({ cert: pair.cert, key: pair.key }),
      });
      watcher = w;
      await w.start();
      if (signal.aborted) throw new ShutdownError('the webhook server stopped before it was ready');
      const pair = w.current();
      const srv = https.createServer(
        {
          cert: pair.cert,
          key: pair.key,
          ALPNProtocols: ['http/1.1'],
          minVersion: 'TLSv1.2',
          headersTimeout: this.opts.readHeaderTimeout ?? 32_000,
          requestTimeout: this.opts.requestTimeout ?? 60_000,
          // Node checks those two bounds this often (default 30 s, which would stretch a 32 s bound to a minute).
          connectionsCheckingInterval: Math.min(1000, this.opts.readHeaderTimeout ?? 32_000),
          keepAliveTimeout: this.opts.idleTimeout ?? 90_000,
          maxHeaderSize: 1 << 20,
        },
        (req, res) => this.serve(req, res, signal),
      );
      srv.maxConnections = this.opts.maxConnections ?? 1000;
      srv.on('drop', (d?: { remoteAddress?: string }) =>
        this.log.info('Refused a connection: the webhook server is at its connection limit', {
          maxConnections: srv.maxConnections,
          remoteAddress: d?.remoteAddress,
        }),
      );
      // A 'clientError' listener replaces Node's own answer (408 for a timeout, 400 otherwise), so it is sent here.
      srv.on('clientError', (err: NodeJS.ErrnoException, socket) => {
        const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
        if (timedOut) {
          const remoteAddress = (socket as Partial<Socket>).remoteAddress;
          this.log.info('Dropped a request that did not arrive in time', {
            readHeaderTimeoutMs: srv.headersTimeout,
            requestTimeoutMs: srv.requestTimeout,
            remoteAddress,
          });
        }
        if (socket.writable)
          socket.end(`HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
        else socket.destroy();
      });
      server = srv;
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(this.port, this.host === '' ? undefined : this.host, () => {
          srv.off('error', reject);
          resolve();
        });
      });
      srv.on('error', (err) => this.log.error(err, 'webhook server error'));
      this.bound = srv.address() as AddressInfo;
      this.log.info('Starting webhook server', {
        address: this.bound.address,
        port: this.bound.port,
        paths: this.registeredPaths(),
      });
      if (certs.caPem) await this.injectCA(certs.caPem);
      // Ready (and startedChecker passing) only once a generated CA is in place: before that the API server cannot
      // call us, and a readiness probe that passed earlier would send traffic that fails.
      this.started = true;
      this.resolveReady();
      await untilAborted(signal);
    } catch (err) {
      this.rejectReady(err);
      throw err;
    } finally {
      this.started = false;
      if (server) await closeGracefully(server);
      this.bound = undefined;
      await watcher?.stop();
      if (generatedDir) await rm(generatedDir, { recursive: true, force: true });
      this.log.info('Webhook server stopped');
    }
  }

  private endpoint(port: number): ServingEndpoint {
    return {
      hosts: new Set(['localhost', '127.0.0.1', '::1', hostname(), ...(isWildcard(this.host) ? [] : [this.host])]),
      port,
    };
  }

  private async certificateFiles(): Promise<{
    certPath: string;
    keyPath: string;
    caPem?: string;
    generatedDir?: string;
  }> {
    const certName = this.opts.certName ?? 'tls.crt';
    const keyName = this.opts.keyName ?? 'tls.key';
    const dir = this.opts.certDir;
    if (dir) {
      if (fs.existsSync(join(dir, certName))) return { certPath: join(dir, certName), keyPath: join(dir, keyName) };
      throw new ConfigurationError(
        `webhook server: the certificate directory ${dir} has no ${certName}; mount the serving certificate there (in a cluster: is cert-manager's Secret there?), or give no directory to have one generated for local runs`,
      );
    }
    const hosts = [...this.endpoint(this.port).hosts];
    const made = generateLocalServingCert(hosts);
    const generatedDir = await mkdtemp(join(tmpdir(), 'kubescaffold-webhook-certs-'));
    this.log.info('No serving certificate found; generated a CA and a serving certificate', {
      certDir: dir ?? '(none)',
      generatedDir,
      hosts,
    });
    await Promise.all([
      writeFile(join(generatedDir, certName), made.certPem, { mode: 0o600 }),
      writeFile(join(generatedDir, keyName), made.keyPem, { mode: 0o600 }),
      writeFile(join(generatedDir, 'ca.crt'), made.caPem, { mode: 0o600 }),
    ]);
    this.generatedCA = made.caPem;
    return {
      certPath: join(generatedDir, certName),
      keyPath: join(generatedDir, keyName),
      caPem: made.caPem,
      generatedDir,
    };
  }

  private async injectCA(caPem: string): Promise<void> {
    if (!this.client || !this.bound) return;
    const patched = await injectCABundle(this.client, {
      caPem,
      endpoint: this.endpoint(this.bound.port),
      conversionKinds: this.conversions?.hubs() ?? [],
      log: this.log,
    });
    if (patched.length) this.log.info('Set the generated CA as caBundle', { patched });
    else this.log.info('No webhook configuration or CRD points at this server; no caBundle was set');
  }

  private serve(req: IncomingMessage, res: ServerResponse, stop: AbortSignal): void {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const handler = this.handlers.get(path);
    if (!handler) return sendText(res, 404, '404 page not found');
    // What this request may hold: its declared size, or the most a chunked body may grow to.
    const declared = Number(req.headers['content-length']);
    const cost =
      Number.isSafeInteger(declared) && declared >= 0 ? declared : (handler.maxRequestBytes ?? MAX_REVIEW_BYTES);
    if (this.bodyBudget > 0 && this.bodyBytesInFlight > 0 && this.bodyBytesInFlight + cost > this.bodyBudget) {
      this.refuseOverBudget(req, res, path, cost);
      return;
    }
    this.bodyBytesInFlight += cost;
    res.once('close', () => (this.bodyBytesInFlight -= cost));
    const startedAt = performance.now();
    const hangUp = new AbortController();
    webhookRequestInFlight.inc({ webhook: path });
    res.once('close', () => {
      webhookRequestInFlight.dec({ webhook: path });
      webhookRequestLatency.observe({ webhook: path }, (performance.now() - startedAt) / 1000);
      webhookRequestTotal.inc({ webhook: path, code: String(res.statusCode) });
      hangUp.abort();
    });
    const log = this.log.withValues({ webhook: path, requestID: randomUUID() });
    this.answer(req, res, handler, { signal: AbortSignal.any([hangUp.signal, stop]), log }).catch((err: unknown) => {
      log.error(err, 'webhook request failed');
      if (!res.headersSent) sendText(res, 500, 'internal server error');
      else res.destroy();
    });
  }

  /**
   * 429 with Retry-After for a request beyond the body budget. The body is read and dropped first, chunk by chunk, so
   * that the client, still sending, gets the answer rather than a reset connection, and nothing of it is kept.
   */
  private refuseOverBudget(req: IncomingMessage, res: ServerResponse, path: string, cost: number): void {
    webhookRequestTotal.inc({ webhook: path, code: '429' });
    this.log.debug('Refused a request over the in-flight body budget', {
      webhook: path,
      bytes: cost,
      inFlight: this.bodyBytesInFlight,
      budget: this.bodyBudget,
    });
    req.on('end', () =>
      sendText(
        res,
        429,
        `the webhook server is handling ${this.bodyBytesInFlight} bytes of requests, its budget is ${this.bodyBudget}; retry`,
        { 'Retry-After': '1' },
      ),
    );
    req.on('error', () => res.destroy());
    req.resume();
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    handler: WebhookHandler,
    ctx: { signal: AbortSignal; log: Logger },
  ): Promise<void> {
    if (req.method !== 'POST') return sendText(res, 405, `method ${req.method ?? ''} not allowed`, { Allow: 'POST' });
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/json')
      return sendText(res, 400, `contentType=${contentType}, expected application/json`);
    const body = await readBodyText(req, handler.maxRequestBytes);
    if (body === undefined) return refuseTooLarge(req, res, handler.maxRequestBytes!);
    if (body.length === 0) return sendText(res, 400, 'request body is empty');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return sendText(res, 400, `cannot decode the request body: ${(err as Error).message}`);
    }
    let reply: object;
    try {
      reply = await handler.handle(parsed, ctx);
    } catch (err) {
      if (err instanceof HttpError) return sendText(res, err.code, err.message);
      throw err;
    }
    const json = JSON.stringify(reply);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(json)) });
    res.end(json);
    ctx.log.debug('wrote webhook response');
  }
}
