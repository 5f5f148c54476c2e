/**
 * GET for the index and the archives: http(s) with HTTPS_PROXY / NO_PROXY (a CONNECT tunnel, hpagent)
 * and Node's CA store (which holds NODE_EXTRA_CA_CERTS), or a file:// URL. One timeout bounds both the
 * wait for the response and each silence while the body streams, so a hung server cannot hang us.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Agent } from 'node:http';
import { PassThrough, pipeline, Transform, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DownloadError, networkError } from './download-error.js';
import { proxyForUrl } from './proxy-env.js';

export interface OpenUrlOptions {
  /** Milliseconds without progress (no response, or no bytes) before giving up. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read from. */
  env: NodeJS.ProcessEnv;
}

export interface OpenedUrl {
  status: number;
  statusText: string;
  /** From Content-Length (or the file size); undefined when the server does not say. */
  contentLength: number | undefined;
  body: Readable;
  /** The proxy used, for messages. */
  via: string | undefined;
}

/** Opens `url` for reading; resolves once the status is known. Errors are DownloadErrors naming the URL. */
export async function openUrl(url: string, opts: OpenUrlOptions): Promise<OpenedUrl> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DownloadError(`"${url}" is not a URL (expected https://..., http://... or file://...)`, url, false);
  }
  if (parsed.protocol === 'file:') return openFile(parsed, url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DownloadError(`${url}: only https://, http:// and file:// URLs are supported`, url, false);
  }
  return openHttp(parsed, url, opts);
}

async function openFile(parsed: URL, url: string): Promise<OpenedUrl> {
  const path = fileURLToPath(parsed);
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new DownloadError(`${url} is not a file`, url, false);
    return { status: 200, statusText: 'OK', contentLength: s.size, body: createReadStream(path), via: undefined };
  } catch (err) {
    if (err instanceof DownloadError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return {
        status: 404,
        statusText: 'Not Found (no such file)',
        contentLength: undefined,
        body: emptyBody(),
        via: undefined,
      };
    throw new DownloadError(`could not read ${url}: ${(err as Error).message}`, url, false, { cause: err });
  }
}

function emptyBody(): Readable {
  const body = new PassThrough();
  body.end();
  return body;
}

async function openHttp(parsed: URL, url: string, opts: OpenUrlOptions): Promise<OpenedUrl> {
  opts.signal?.throwIfAborted();
  const via = proxyForUrl(parsed, opts.env);
  const agent = via ? await proxyAgent(parsed, via) : undefined;
  const { request } = parsed.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<OpenedUrl>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let body: Transform | undefined;
    const stop = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error) => {
      stop();
      req.destroy();
      body?.destroy(err); // the reader of the body sees `err`
      if (!settled) {
        settled = true;
        reject(err);
      }
    };
    // One timer for "nothing arrived for timeoutMs": restarted on the response and on every chunk.
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const what = body
          ? `no data for ${opts.timeoutMs} ms while reading the body`
          : `no response within ${opts.timeoutMs} ms`;
        fail(
          new DownloadError(`timed out fetching ${url}${via ? ` through the proxy ${via}` : ''}: ${what}`, url, true),
        );
      }, opts.timeoutMs);
    };
    const onAbort = () => fail(opts.signal!.reason instanceof Error ? opts.signal!.reason : new Error('aborted'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const req = request(parsed, {
      method: 'GET',
      agent,
      headers: { 'user-agent': 'kubescaffold-envtest', accept: '*/*' },
    });
    req.on('error', (err) => fail(err instanceof DownloadError ? err : networkError(url, err, via)));
    req.on('response', (response) => {
      // The body is read through a pass-through that restarts the timer; a connection cut before
      // Content-Length bytes reaches the reader as an error through pipeline().
      const tap = new Transform({
        transform(chunk: Buffer, _enc, done) {
          arm();
          done(null, chunk);
        },
      });
      body = tap;
      arm();
      pipeline(response, tap, stop);
      const length = Number(response.headers['content-length']);
      settled = true;
      resolve({
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        contentLength: response.headers['content-length'] !== undefined && Number.isFinite(length) ? length : undefined,
        body: tap,
        via,
      });
    });
    arm();
    req.end();
  });
}

/** A CONNECT-tunnelling agent (hpagent) for `target` through `proxy`; loaded only when a proxy is configured. */
async function proxyAgent(target: URL, proxy: string): Promise<Agent> {
  const { HttpProxyAgent, HttpsProxyAgent } = await import('hpagent');
  const options = { proxy, keepAlive: false };
  return target.protocol === 'https:' ? new HttpsProxyAgent(options) : new HttpProxyAgent(options);
}
