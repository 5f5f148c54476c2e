import dc from 'node:diagnostics_channel';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError } from './errors.js';
import { ListDecodeError, ListStreamDecoder } from './list_decoder.js';
import { sleep } from '../sleep.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined;

export interface HttpRequest {
  method: HttpMethod;
  /** Path below the server URL, starting with '/'. */
  path: string;
  query?: Record<string, QueryValue>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  contentType?: string;
  /** Accept header; application/json by default. */
  accept?: string;
  signal?: AbortSignal;
  /** Destroy the request when its socket is idle this long (ms); 0 disables. Defaults to the transport's. */
  idleTimeoutMs?: number;
}

export interface TransportOptions {
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Idle bound for ordinary (non-watch) requests: a half-open connection fails instead of hanging. Default 60 s. */
  requestIdleTimeoutMs?: number;
  /** Re-read credentials from the kubeconfig's auth provider or exec plugin at most this often (ms). Default 30 s. */
  credentialRefreshMs?: number;
  /**
   * How often a request answered 429 or 5xx with a Retry-After header is sent again after waiting that long
   * (client-go's maxRetries). Default 10; 0 disables.
   */
  maxRetries?: number;
}

/** Published on {@link restRetryChannel} before a request is sent again. */
export interface RestRetryMessage {
  method: HttpMethod;
  /** host:port of the API server, as in the metrics' host label. */
  host: string;
  /** The status code that caused the retry. */
  code: number;
}

/** Published on {@link restSizeChannel} when a non-streaming exchange completes. */
export interface RestSizeMessage {
  method: HttpMethod;
  host: string;
  requestBytes: number;
  responseBytes: number;
}

// Diagnostics channels, like Node's own http.client.*: the metrics module listens without the transport knowing it.
export const restRetryChannel = dc.channel('kubescaffold.rest.retry');
export const restSizeChannel = dc.channel('kubescaffold.rest.size');

// The longest Retry-After we honour; a server asking for more gets its answer passed to the caller instead.
const MAX_RETRY_AFTER_S = 60;

// Bytes of the request body each response answered, for restSizeChannel.
const requestSizes = new WeakMap<IncomingMessage, number>();

type TlsMaterial = Pick<https.AgentOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>;

interface Credentials {
  headers: Record<string, string>;
  fetchedAt: number;
}

/** Raised when a watch or request receives no bytes for its idle bound. */
export class IdleTimeoutError extends Error {
  readonly code = 'EIDLETIMEOUT';
  constructor(ms: number) {
    super(`no data from the server for ${ms} ms`);
    this.name = 'IdleTimeoutError';
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('the operation was aborted'), { name: 'AbortError' });
}

/** True for the errors an aborted signal produces, so callers can stop quietly. */
export function isAbortError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'ABORT_ERR');
}

/**
 * HTTP(S) to one API server with the kubeconfig's TLS material and credentials, over one keep-alive agent.
 * KubeConfig.applyToHTTPSOptions supplies the TLS files and auth headers (tokens, exec plugins, auth providers);
 * we keep the agent ourselves so connections are reused. close() destroys every socket.
 */
export class HttpTransport {
  readonly server: URL;
  private readonly basePath: string;
  private readonly isHttps: boolean;
  private readonly dynamicCredentials: boolean;
  private readonly opts: Required<TransportOptions>;
  private readonly host: string;
  private agent: http.Agent | undefined;
  private tlsKey = '';
  private credentials: Credentials | undefined;
  private pendingCredentials: Promise<Credentials> | undefined;
  private closed = false;

  constructor(
    private readonly kc: KubeConfig,
    opts: TransportOptions = {},
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`kubeconfig context "${kc.getCurrentContext()}" names no cluster`);
    this.server = new URL(cluster.server);
    this.basePath = this.server.pathname.replace(/\/+$/, '');
    this.isHttps = this.server.protocol === 'https:';
    this.host = this.server.host || this.server.hostname;
    const user = kc.getCurrentUser();
    this.dynamicCredentials = Boolean(user?.exec || user?.authProvider);
    this.opts = {
      userAgent: opts.userAgent ?? `kubescaffold/${process.version}`,
      requestIdleTimeoutMs: opts.requestIdleTimeoutMs ?? 60_000,
      credentialRefreshMs: opts.credentialRefreshMs ?? 30_000,
      maxRetries: opts.maxRetries ?? 10,
    };
  }

  /** Sends a request and returns the parsed JSON body; non-2xx answers throw ApiError. */
  async requestJson<R>(req: HttpRequest): Promise<R> {
    const text = await this.requestText(req);
    return (text === '' ? {} : JSON.parse(text)) as R;
  }

  /** Sends a request and returns the body as text; non-2xx answers throw ApiError. */
  async requestText(req: HttpRequest): Promise<string> {
    const res = await this.exchange(req);
    const body = await readBody(res);
    this.publishSize(req, res, body.length);
    const text = body.toString('utf8');
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw ApiError.fromResponse(code, text, req.method, req.path);
    return text;
  }

  /**
   * Sends a request whose answer is a List and parses its items as they arrive (ListStreamDecoder), so a large list
   * is parsed while the server is still sending it. Non-2xx answers throw ApiError.
   */
  async requestList<R extends { items?: unknown[] }>(req: HttpRequest): Promise<R> {
    const res = await this.exchangeOk(req);
    const decoder = new ListStreamDecoder();
    let bytes = 0;
    let decoded;
    try {
      for await (const chunk of res) {
        bytes += (chunk as Buffer).length;
        decoder.write(chunk as Buffer);
      }
      decoded = decoder.end();
    } catch (e) {
      res.destroy();
      if (e instanceof ListDecodeError || e instanceof SyntaxError) {
        throw new Error(`${req.method} ${req.path}: ${e.message}`, { cause: e });
      }
      throw e;
    }
    this.publishSize(req, res, bytes);
    const list = decoded.envelope as R;
    if (Array.isArray(list.items)) list.items = decoded.items;
    return list;
  }

  /** Opens a streaming request (a watch); the caller consumes and closes the response. Non-2xx throws ApiError. */
  stream(req: HttpRequest): Promise<IncomingMessage> {
    return this.exchangeOk(req);
  }

  /** Destroys the agent and all of its sockets; later requests fail. */
  close(): void {
    this.closed = true;
    this.agent?.destroy();
    this.agent = undefined;
  }

  // exchange, with a non-2xx answer read and thrown as ApiError.
  private async exchangeOk(req: HttpRequest): Promise<IncomingMessage> {
    const res = await this.exchange(req);
    const code = res.statusCode ?? 0;
    if (code >= 200 && code < 300) return res;
    const text = (await readBody(res)).toString('utf8');
    throw ApiError.fromResponse(code, text, req.method, req.path);
  }

  private publishSize(req: HttpRequest, res: IncomingMessage, responseBytes: number): void {
    if (!restSizeChannel.hasSubscribers) return;
    const msg: RestSizeMessage = { method: req.method, host: this.host, requestBytes: requestSizes.get(res) ?? 0, responseBytes };
    restSizeChannel.publish(msg);
  }

  // client-go's retry rule: a 429 or 5xx answer with Retry-After is sent again after that many seconds, whatever the
  // verb (the server did not act on it), up to maxRetries times. API Priority and Fairness answers 429 this way.
  private async exchange(req: HttpRequest): Promise<IncomingMessage> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.sendAuthenticated(req);
      const code = res.statusCode ?? 0;
      const wait = code === 429 || code >= 500 ? retryAfterSeconds(res) : undefined;
      if (wait === undefined || attempt >= this.opts.maxRetries) return res;
      res.resume();
      if (restRetryChannel.hasSubscribers) {
        const msg: RestRetryMessage = { method: req.method, host: this.host, code };
        restRetryChannel.publish(msg);
      }
      if (!(await sleep(wait * 1000, req.signal))) throw abortError(req.signal!);
    }
  }

  // An expired token from an exec plugin or auth provider gets one refresh and one retry.
  private async sendAuthenticated(req: HttpRequest): Promise<IncomingMessage> {
    const res = await this.send(req);
    if (res.statusCode !== 401 || !this.dynamicCredentials) return res;
    res.resume();
    this.credentials = undefined;
    return this.send(req);
  }

  private async send(req: HttpRequest, retried = false): Promise<IncomingMessage> {
    if (this.closed) throw new Error('the API transport is closed');
    if (req.signal?.aborted) throw abortError(req.signal);
    const creds = await this.currentCredentials();
    try {
      return await this.sendOnce(req, creds);
    } catch (e) {
      const code = (e as { code?: string }).code;
      const idempotent = req.method === 'GET' || req.method === 'PUT' || req.method === 'DELETE';
      // A keep-alive socket the server closed just before we wrote is the usual cause; Go retries these too.
      if (!retried && idempotent && (e as { reusedSocket?: boolean }).reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
        return this.send(req, true);
      }
      throw e;
    }
  }

  private sendOnce(req: HttpRequest, creds: Credentials): Promise<IncomingMessage> {
    const headers: Record<string, string> = {
      ...creds.headers,
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.opts.userAgent,
    };
    let body: string | undefined;
    let bodyBytes = 0;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      bodyBytes = Buffer.byteLength(body);
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(bodyBytes);
    }
    const path = this.basePath + req.path + encodeQuery(req.query);
    const idle = req.idleTimeoutMs ?? this.opts.requestIdleTimeoutMs;
    const mod = this.isHttps ? https : http;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const r = mod.request({
        protocol: this.server.protocol,
        hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
        port: this.server.port || (this.isHttps ? 443 : 80),
        method: req.method,
        path,
        headers,
        agent: this.agent,
      });
      const signal = req.signal;
      let response: IncomingMessage | undefined;
      // Once the body streams, the response must carry the error, or its reader only sees "aborted".
      const fail = (err: Error): void => void (response ?? r).destroy(err);
      const onAbort = (): void => fail(abortError(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => signal?.removeEventListener('abort', onAbort);
      if (idle > 0) r.setTimeout(idle, () => fail(new IdleTimeoutError(idle)));
      r.once('response', (res) => {
        response = res;
        if (bodyBytes > 0) requestSizes.set(res, bodyBytes);
        // The abort listener stays until the body is consumed or the stream ends.
        res.once('close', cleanup);
        resolve(res);
      });
      r.once('error', (err) => {
        cleanup();
        if (r.reusedSocket) Object.assign(err, { reusedSocket: true });
        reject(err);
      });
      r.end(body);
    });
  }

  private async currentCredentials(): Promise<Credentials> {
    const c = this.credentials;
    if (c && (!this.dynamicCredentials || performance.now() - c.fetchedAt < this.opts.credentialRefreshMs)) return c;
    this.pendingCredentials ??= this.loadCredentials().finally(() => (this.pendingCredentials = undefined));
    return this.pendingCredentials;
  }

  private async loadCredentials(): Promise<Credentials> {
    const o: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(o);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) {
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    if (o.auth) headers.Authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
    const tls: TlsMaterial = {
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      pfx: o.pfx,
      passphrase: o.passphrase,
      rejectUnauthorized: o.rejectUnauthorized,
      servername: o.servername,
    };
    const key = tlsFingerprint(tls);
    // Exec plugins may rotate client certificates: rebuild the agent only when the material changed.
    if (!this.agent || key !== this.tlsKey) {
      this.agent?.destroy();
      this.agent = this.makeAgent(tls);
      this.tlsKey = key;
    }
    const creds = { headers, fetchedAt: performance.now() };
    this.credentials = creds;
    return creds;
  }

  private makeAgent(tls: TlsMaterial): http.Agent {
    // Idle sockets are closed after 30 s, well before the API server's own idle timeout (90 s): reusing a socket the
    // server is closing at that moment fails a request we cannot safely retry (a POST).
    const common = { keepAlive: true, keepAliveMsecs: 30_000, timeout: 30_000, scheduling: 'lifo' as const };
    if (!this.isHttps) return new http.Agent(common);
    const opts: https.AgentOptions = { ...common, ca: tls.ca, cert: tls.cert, key: tls.key, pfx: tls.pfx, passphrase: tls.passphrase };
    if (tls.rejectUnauthorized !== undefined) opts.rejectUnauthorized = tls.rejectUnauthorized;
    if (tls.servername) opts.servername = tls.servername;
    return new https.Agent(opts);
  }
}

function tlsFingerprint(t: TlsMaterial): string {
  const s = (v: unknown): string => (v === undefined ? '' : Array.isArray(v) ? v.map(String).join('|') : String(v));
  return [s(t.ca), s(t.cert), s(t.key), s(t.pfx), s(t.passphrase), s(t.rejectUnauthorized), s(t.servername)].join('\u0000');
}

export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  let out = '';
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === '') continue;
    out += `${out ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return out;
}

async function readBody(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** Retry-After as whole seconds (client-go reads only that form); undefined when absent, malformed or too long. */
function retryAfterSeconds(res: IncomingMessage): number | undefined {
  const v = res.headers['retry-after'];
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  const s = Number(v.trim());
  return s <= MAX_RETRY_AFTER_S ? s : undefined;
}
