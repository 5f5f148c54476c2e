import dc from 'node:diagnostics_channel';
import type { Agent, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { Authenticator, type AuthMaterial, type AuthenticatorOptions, type TlsMaterial } from './auth.js';
import type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
import { KubeConfigError } from '../clientcmd/kubeconfig-error.js';
import { ApiError } from './errors.js';
import { ListDecodeError, ListStreamDecoder, type ListDecodeOptions } from './list-decoder.js';
import { proxyAgentFactory, type ProxyAgentFactory } from './proxy.js';
import { http } from '../internal/builtins.js';
import { onAbort } from '../internal/abort-fanout.js';
import { sleep } from '../sleep.js';
import { LifecycleError, TimeoutError, TransportError } from '../errors.js';
import { log as rootLog } from '../log/index.js';
import { parseWarningHeaders, warningLogger, type WarningHandler } from './warnings.js';

/** The HTTP methods the API server is called with. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** A query parameter's value; undefined and '' leave the parameter out (see {@link encodeQuery}). */
export type QueryValue = string | number | boolean | undefined;

/** One request to the API server, as HttpTransport sends it. */
export interface HttpRequest {
  /** The HTTP method. */
  method: HttpMethod;
  /** Path below the server URL, starting with '/'. */
  path: string;
  /** Query parameters; undefined and '' are left out. */
  query?: Record<string, QueryValue>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Content-Type of the body; application/json by default. */
  contentType?: string;
  /** Accept header; application/json by default. */
  accept?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
  /** Destroy the request when its socket is idle this long (ms); 0 disables. Defaults to the transport's. */
  idleTimeoutMs?: number;
}

/**
 * Options of the HTTP transport (the non-kubeconfig parts of client-go's rest.Config): user agent, idle timeout,
 * credential refresh, retries.
 */
export interface TransportOptions {
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Idle bound for ordinary (non-watch) requests: a half-open connection fails instead of hanging. Default 60 s. */
  requestIdleTimeoutMs?: number;
  /**
   * How credentials are kept current (token file and client certificate re-reads, exec plugins); tests inject a clock
   * here. Defaults follow client-go.
   */
  auth?: AuthenticatorOptions;
  /**
   * How often a request answered 429 or 5xx with a Retry-After header is sent again after waiting that long
   * (client-go's maxRetries). Default 10; 0 disables.
   */
  maxRetries?: number;
  /**
   * Called just before each request other than a GET is sent, retries included; throwing refuses the request with that
   * error. The manager fences its clients with it under leader election: a deposed leader's writes are never sent.
   */
  beforeWrite?: (method: HttpMethod) => void;
  /**
   * Ask for uncompressed responses (client-go's rest.Config.DisableCompression); default the kubeconfig's
   * disable-compression. Otherwise requests accept gzip, which the API server uses for answers over 128 KiB, such as
   * the pages of a large list, and responses are decompressed as they arrive. A server that does not compress works
   * either way.
   */
  disableCompression?: boolean;
  /**
   * Receives the API server's warnings (Warning response headers: a deprecated API, an unknown field under
   * `fieldValidation: 'Warn'`), as client-go's rest.Config.WarningHandler. Default: each distinct text logged once at
   * info level by the root logger ({@link warningLogger}); `noWarnings` drops them.
   */
  warningHandler?: WarningHandler;
}

// What to fix for the connection errors a kubeconfig causes, by Node's error code.
const untrustedCertificate =
  "the server's certificate is not signed by a CA the kubeconfig trusts: set the cluster's certificate-authority (or certificate-authority-data) to the CA that signed it, or check that server names the right API server";
// Certificates the kubeconfig cannot accept: no retry changes them.
const certificateHints: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: untrustedCertificate,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: untrustedCertificate,
  SELF_SIGNED_CERT_IN_CHAIN: untrustedCertificate,
  DEPTH_ZERO_SELF_SIGNED_CERT: untrustedCertificate,
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet: check this machine's clock",
  ERR_TLS_CERT_ALTNAME_INVALID:
    "the server's certificate is not for this host name: use the name it was issued for in the kubeconfig's server, or set tls-server-name",
};
const connectionHints: Record<string, string> = {
  ECONNREFUSED: "nothing listens there: is the API server running, and is the kubeconfig's server address right?",
  ENOTFOUND: "the host name does not resolve: check the kubeconfig's server address",
  EAI_AGAIN: "the host name does not resolve: check the kubeconfig's server address",
  EHOSTUNREACH: 'the host cannot be reached from here',
  ENETUNREACH: 'the network of the host cannot be reached from here',
  ...certificateHints,
};

/** True when `err` is a TLS error about the server's certificate that the kubeconfig cannot accept (Node's code). */
export function isCertificateError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && Object.hasOwn(certificateHints, code);
}

/** Published on {@link restRetryChannel} before a request is sent again. */
export interface RestRetryMessage {
  /** The method of the request being retried. */
  method: HttpMethod;
  /** host:port of the API server, as in the metrics' host label. */
  host: string;
  /** The status code that caused the retry. */
  code: number;
}

/** Published on {@link restSizeChannel} when a non-streaming exchange completes. */
export interface RestSizeMessage {
  /** The request's method. */
  method: HttpMethod;
  /** host:port of the API server, as in the metrics' host label. */
  host: string;
  /** Bytes of the request body. */
  requestBytes: number;
  /** Bytes of the response body. */
  responseBytes: number;
}

// Diagnostics channels, like Node's own http.client.*: the metrics module listens without the transport knowing it.
/**
 * A node:diagnostics_channel on which the transport publishes a {@link RestRetryMessage} before each retry (the REST
 * client metrics subscribe).
 */
export const restRetryChannel = dc.channel('kubescaffold.rest.retry');
/**
 * A node:diagnostics_channel on which the transport publishes a {@link RestSizeMessage} for each completed
 * non-streaming exchange.
 */
export const restSizeChannel = dc.channel('kubescaffold.rest.size');

// The longest Retry-After we honour; a server asking for more gets its answer passed to the caller instead.
const MAX_RETRY_AFTER_S = 60;

// The size of each decompressed chunk of a gzip-compressed answer (see responseBody).
const GUNZIP_CHUNK_BYTES = 256 * 1024;

// Bytes of the request body each response answered, for restSizeChannel.
const requestSizes = new WeakMap<IncomingMessage, number>();

/** Raised when a watch or request receives no bytes for its idle bound. */
export class IdleTimeoutError extends TimeoutError {
  /** Node-style error code, so it can be told apart without instanceof. */
  readonly code = 'EIDLETIMEOUT';
  constructor(ms: number) {
    super(`no data from the server for ${ms} ms`);
    this.name = 'IdleTimeoutError';
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('the operation was aborted', 'AbortError');
}

/** True for the errors an aborted signal produces, so callers can stop quietly. */
export function isAbortError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'ABORT_ERR');
}

/**
 * HTTP(S) to one API server with the configuration's TLS material and credentials, over one keep-alive agent (through
 * the configuration's proxy when it names one). An Authenticator supplies the auth headers and TLS material and keeps
 * them current (token files, exec plugins); the agent is rebuilt when the TLS material changes. close() destroys every
 * socket.
 */
export class HttpTransport {
  /** The API server's URL, from the kubeconfig's cluster. */
  readonly server: URL;
  private readonly basePath: string;
  private readonly isHttps: boolean;
  private readonly opts: Required<Omit<TransportOptions, 'auth' | 'beforeWrite' | 'warningHandler'>>;
  private readonly warningHandler: WarningHandler;
  private readonly beforeWrite: ((method: HttpMethod) => void) | undefined;
  private readonly host: string;
  private readonly auth: Authenticator;
  private readonly proxyURL: string | undefined;
  private proxyAgent: ProxyAgentFactory | undefined;
  private agent: Agent | undefined;
  private tls: TlsMaterial | undefined;
  // With a proxy agent, the TLS options of the tunnelled connection travel with each request.
  private requestTls: https.RequestOptions = {};
  private closed = false;

  constructor(kc: KubeConfig, opts: TransportOptions = {}) {
    const source = kc.source ?? 'kubeconfig';
    if (!URL.canParse(kc.server)) throw new KubeConfigError(`${source}: server "${kc.server}" is not a URL`);
    this.server = new URL(kc.server);
    if (this.server.protocol !== 'https:' && this.server.protocol !== 'http:') {
      throw new KubeConfigError(`${source}: server "${kc.server}" is not an http:// or https:// URL`);
    }
    this.basePath = this.server.pathname.replace(/\/+$/, '');
    this.isHttps = this.server.protocol === 'https:';
    this.host = this.server.host || this.server.hostname;
    this.auth = new Authenticator(kc, opts.auth);
    this.proxyURL = kc.proxyURL || undefined;
    this.beforeWrite = opts.beforeWrite;
    this.warningHandler = opts.warningHandler ?? warningLogger(rootLog);
    this.opts = {
      userAgent: opts.userAgent ?? `kubescaffold/${process.version}`,
      requestIdleTimeoutMs: opts.requestIdleTimeoutMs ?? 60_000,
      maxRetries: opts.maxRetries ?? 10,
      disableCompression: opts.disableCompression ?? kc.disableCompression ?? false,
    };
  }

  /** Sends a request and returns the parsed JSON body; non-2xx answers throw ApiError. */
  async requestJson<R>(req: HttpRequest): Promise<R> {
    const text = await this.requestText(req);
    return (text === '' ? {} : JSON.parse(text)) as R;
  }

  /** Sends a request and returns its status and body, whatever the status (readiness probes want a 503 as such). */
  async requestRaw(req: HttpRequest): Promise<{ status: number; text: string }> {
    const res = await this.exchange(req);
    const body = await readBody(res, req);
    this.publishSize(req, res, body.length);
    return { status: res.statusCode ?? 0, text: body.toString('utf8') };
  }

  /** Sends a request and returns the body as text; non-2xx answers throw ApiError. */
  async requestText(req: HttpRequest): Promise<string> {
    const res = await this.exchange(req);
    const body = await readBody(res, req);
    this.publishSize(req, res, body.length);
    const text = body.toString('utf8');
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300)
      throw ApiError.fromResponse(
        code,
        text,
        req.method,
        req.path,
        req.query?.watch === true || req.query?.watch === 'true',
      );
    return text;
  }

  /**
   * Sends a request whose answer is a List and parses its items as they arrive (ListStreamDecoder), so a large list
   * is parsed while the server is still sending it; mapItem sees each item as it is parsed. Non-2xx answers throw
   * ApiError.
   */
  async requestList<R extends { items?: unknown[] }>(
    req: HttpRequest,
    mapItem?: (item: unknown) => unknown,
    decode: ListDecodeOptions = {},
  ): Promise<R> {
    const res = await this.exchangeOk(req);
    const decoder = new ListStreamDecoder(mapItem, decode);
    let bytes = 0;
    let decoded;
    try {
      for await (const chunk of responseBody(res)) {
        bytes += (chunk as Buffer).length;
        decoder.write(chunk as Buffer);
      }
      decoded = decoder.end();
    } catch (e) {
      res.destroy();
      if (e instanceof ListDecodeError || e instanceof SyntaxError) {
        throw new TransportError(`${req.method} ${req.path}: ${e.message}`, 'BadResponse', { cause: e });
      }
      throw corruptGzip(e, req);
    }
    this.publishSize(req, res, bytes);
    const list = decoded.envelope as R;
    if (Array.isArray(list.items)) list.items = decoded.items;
    return list;
  }

  /**
   * Opens a streaming request (a watch); the caller consumes and closes the response, reading its body through
   * {@link responseBody}, which decompresses it if it came compressed. Non-2xx throws ApiError.
   */
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
    const text = (await readBody(res, req)).toString('utf8');
    throw ApiError.fromResponse(
      code,
      text,
      req.method,
      req.path,
      req.query?.watch === true || req.query?.watch === 'true',
    );
  }

  private handleWarnings(res: IncomingMessage): void {
    const values = res.headersDistinct.warning;
    if (values === undefined) return;
    for (const w of parseWarningHeaders(values)) this.warningHandler(w);
  }

  private publishSize(req: HttpRequest, res: IncomingMessage, responseBytes: number): void {
    if (!restSizeChannel.hasSubscribers) return;
    const msg: RestSizeMessage = {
      method: req.method,
      host: this.host,
      requestBytes: requestSizes.get(res) ?? 0,
      responseBytes,
    };
    restSizeChannel.publish(msg);
  }

  // client-go's retry rule: a 429 or 5xx answer with Retry-After is sent again after that many seconds, whatever the
  // verb (the server did not act on it), up to maxRetries times. API Priority and Fairness answers 429 this way.
  private async exchange(req: HttpRequest): Promise<IncomingMessage> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.sendAuthenticated(req);
      const code = res.statusCode ?? 0;
      const wait = code === 429 || code >= 500 ? retryAfterSeconds(res) : undefined;
      if (wait === undefined || attempt >= this.opts.maxRetries) {
        this.handleWarnings(res);
        return res;
      }
      res.resume();
      if (restRetryChannel.hasSubscribers) {
        const msg: RestRetryMessage = { method: req.method, host: this.host, code };
        restRetryChannel.publish(msg);
      }
      if (!(await sleep(wait * 1000, req.signal))) throw abortError(req.signal!);
    }
  }

  // A rotated token (token file, exec plugin) gets one refresh and one retry per request: the 401 tells the
  // authenticator to re-read the file or run the plugin again, unless another request already did.
  private async sendAuthenticated(req: HttpRequest): Promise<IncomingMessage> {
    const [res, used] = await this.send(req);
    if (res.statusCode !== 401 || !this.auth.dynamic) return res;
    res.resume();
    await this.auth.unauthorized(used);
    return (await this.send(req))[0];
  }

  private async send(req: HttpRequest, retried = false): Promise<[IncomingMessage, AuthMaterial]> {
    if (this.closed) throw new LifecycleError('the API transport is closed', 'Stopped');
    if (req.signal?.aborted) throw abortError(req.signal);
    const creds = await this.currentCredentials();
    try {
      return [await this.sendOnce(req, creds), creds];
    } catch (e) {
      const code = (e as { code?: string }).code;
      const idempotent = req.method === 'GET' || req.method === 'PUT' || req.method === 'DELETE';
      // A keep-alive socket the server closed just before we wrote is the usual cause; Go retries these too.
      if (
        !retried &&
        idempotent &&
        (e as { reusedSocket?: boolean }).reusedSocket &&
        (code === 'ECONNRESET' || code === 'EPIPE')
      ) {
        return this.send(req, true);
      }
      throw e;
    }
  }

  private sendOnce(req: HttpRequest, creds: AuthMaterial): Promise<IncomingMessage> {
    // Checked here, with nothing awaited between the check and the request being written.
    if (req.method !== 'GET') this.beforeWrite?.(req.method);
    const headers: Record<string, string> = {
      ...creds.headers,
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.opts.userAgent,
    };
    if (!this.opts.disableCompression) headers['Accept-Encoding'] = 'gzip';
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
        ...this.requestTls,
      });
      const signal = req.signal;
      let response: IncomingMessage | undefined;
      // Once the body streams, the response must carry the error, or its reader only sees "aborted".
      const fail = (err: Error): void => void (response ?? r).destroy(err);
      const abortRequest = (): void => fail(abortError(signal!));
      // One listener on the signal for every request that shares it (a manager's informers share one).
      const cleanup = signal ? onAbort(signal, abortRequest) : (): void => undefined;
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
        reject(this.withServer(err));
      });
      r.end(body);
    });
  }

  /**
   * A connection-level error names the server it could not reach and, where the kubeconfig is the fix, which field:
   * "unable to verify the first certificate" alone says neither. The error keeps its class and code, which the
   * reflector's retry decisions read.
   */
  private withServer(err: Error): Error {
    const code = (err as { code?: string }).code ?? '';
    const hint = connectionHints[code];
    if (hint === undefined || err.message.includes(this.server.origin)) return err;
    err.message = `${this.server.origin}: ${err.message} (${code}): ${hint}`;
    return err;
  }

  // The authenticator's current material; the agent is rebuilt when its TLS material changed (an exec plugin or a
  // certificate file may rotate the client certificate), which also closes the connections made with the old one.
  private async currentCredentials(): Promise<AuthMaterial> {
    const creds = await this.auth.current();
    if (this.proxyURL && !this.proxyAgent) this.proxyAgent = await proxyAgentFactory(this.proxyURL, this.auth.source);
    if (this.closed) throw new LifecycleError('the API transport is closed', 'Stopped');
    if (!this.agent || creds.tls !== this.tls) {
      this.agent?.destroy();
      this.agent = this.makeAgent(creds.tls);
      this.tls = creds.tls;
    }
    return creds;
  }

  private makeAgent(tls: TlsMaterial): Agent {
    // Idle sockets are closed after 30 s, well before the API server's own idle timeout (90 s): reusing a socket the
    // server is closing at that moment fails a request we cannot safely retry (a POST).
    const common = { keepAlive: true, keepAliveMsecs: 30_000, timeout: 30_000, scheduling: 'lifo' as const };
    const opts: https.AgentOptions = { ...common };
    if (this.isHttps) {
      Object.assign(opts, { ca: tls.ca, cert: tls.cert, key: tls.key });
      if (tls.rejectUnauthorized !== undefined) opts.rejectUnauthorized = tls.rejectUnauthorized;
      if (tls.servername) opts.servername = tls.servername;
    }
    if (this.proxyAgent) {
      const { keepAlive: _k, keepAliveMsecs: _m, timeout: _t, scheduling: _s, ...requestTls } = opts;
      this.requestTls = requestTls;
      return this.proxyAgent(opts);
    }
    return this.isHttps ? new https.Agent(opts) : new http.Agent(common);
  }
}

/**
 * Encodes query parameters as `?k=v&...` (URI-encoded), leaving out undefined and empty values; '' when none remain.
 */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  let out = '';
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === '') continue;
    out += `${out ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return out;
}

async function readBody(res: IncomingMessage, req: HttpRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of responseBody(res)) chunks.push(chunk as Buffer);
  } catch (e) {
    throw corruptGzip(e, req);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** zlib's error for a gzip body that does not decompress, as a TransportError naming the request; others as they are. */
function corruptGzip(e: unknown, req: HttpRequest): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('Z_')) return e;
  return new TransportError(
    `${req.method} ${req.path}: the server's gzip-compressed answer does not decompress (${(e as Error).message})`,
    'BadResponse',
    { cause: e },
  );
}

/**
 * A response's body as the server wrote it before compressing: gunzipped as it arrives when Content-Encoding says
 * gzip. Destroying what this returns destroys the response too; an error of either reaches the reader.
 */
export function responseBody(res: IncomingMessage): Readable {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return res;
  if (encoding !== 'gzip') {
    res.destroy();
    throw new TransportError(
      `the server answered with Content-Encoding ${encoding}, which was not asked for`,
      'BadResponse',
    );
  }
  // node:zlib is loaded with the first compressed answer (the API server compresses only those over 128 KiB). A
  // compressed answer is a large list, so its output comes in 256 KiB chunks rather than zlib's 16 KiB: a sixteenth of
  // the callbacks and buffers, which at 25,000 ConfigMaps (22 MiB of JSON) cut decompression's CPU to about a third.
  const gunzip = process.getBuiltinModule('node:zlib').createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
  res.once('error', (err) => gunzip.destroy(err));
  gunzip.once('close', () => res.destroy());
  res.pipe(gunzip);
  return gunzip;
}

/** Retry-After as whole seconds (client-go reads only that form); undefined when absent, malformed or too long. */
function retryAfterSeconds(res: IncomingMessage): number | undefined {
  const v = res.headers['retry-after'];
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  const s = Number(v.trim());
  return s <= MAX_RETRY_AFTER_S ? s : undefined;
}
