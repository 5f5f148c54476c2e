/**
 * Streams a URL into a file while computing its sha512, the way setup-envtest reads an archive, with a
 * bounded number of attempts. The caller owns `dest` (a file in a temp dir): on failure it may hold
 * part of the body, and nothing else has been touched.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DownloadError } from './download-error.js';
import { openUrl } from './open-url.js';

/** Bytes so far and the expected total (undefined when the server does not say). */
export interface DownloadProgress {
  received: number;
  total: number | undefined;
}

export interface DownloadNetworkOptions {
  /** Milliseconds without a response or a byte before an attempt fails. Default 30000. */
  timeoutMs?: number;
  /** Attempts in all, for failures a retry may fix (timeouts, resets, truncated bodies, 5xx). Default 3. */
  attempts?: number;
  /** Wait before retry n (1-based). Default 1 s, 2 s, 4 s, … */
  retryDelayMs?: (retry: number) => number;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface DownloadFileOptions extends DownloadNetworkOptions {
  /** Lower-case hex sha512 the body must have; checked before the caller uses the file. */
  sha512: string;
  onProgress?: (p: DownloadProgress) => void;
  /** Told about a failed attempt that will be retried. */
  onRetry?: (err: DownloadError, retry: number) => void;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_ATTEMPTS = 3;

/** Downloads `url` into `dest` and verifies its sha512; throws a DownloadError that names the URL or file. */
export async function downloadFile(url: string, dest: string, opts: DownloadFileOptions): Promise<void> {
  await withRetries(opts, () => downloadOnce(url, dest, opts));
}

/** Fetches a small text (the index) whole, with the same timeouts and retries. */
export async function fetchText(url: string, opts: DownloadNetworkOptions = {}): Promise<string> {
  return withRetries(opts, async () => {
    const res = await openUrl(url, {
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: opts.signal,
      env: opts.env ?? process.env,
    });
    if (res.status !== 200) {
      res.body.resume();
      throw statusError(url, res.status, res.statusText);
    }
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
    } catch (err) {
      throw asDownloadError(url, err, opts.signal);
    }
    return Buffer.concat(chunks).toString('utf8');
  });
}

async function withRetries<T>(
  opts: DownloadNetworkOptions & { onRetry?: (err: DownloadError, retry: number) => void },
  attempt: () => Promise<T>,
): Promise<T> {
  const attempts = Math.max(1, opts.attempts ?? DEFAULT_ATTEMPTS);
  const delay = opts.retryDelayMs ?? ((n: number) => 1000 * 2 ** (n - 1));
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof DownloadError) || !err.retryable || n >= attempts || opts.signal?.aborted) {
        if (err instanceof DownloadError && err.retryable && n > 1) {
          throw new DownloadError(`${err.message} (gave up after ${n} attempts)`, err.url, false, { cause: err });
        }
        throw err;
      }
      opts.onRetry?.(err, n);
      await sleep(delay(n), undefined, { signal: opts.signal });
    }
  }
}

async function downloadOnce(url: string, dest: string, opts: DownloadFileOptions): Promise<void> {
  const res = await openUrl(url, {
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: opts.signal,
    env: opts.env ?? process.env,
  });
  if (res.status !== 200) {
    res.body.resume();
    throw statusError(url, res.status, res.statusText);
  }
  const total = res.contentLength;
  const hash = createHash('sha512');
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      hash.update(chunk);
      opts.onProgress?.({ received, total });
      done(null, chunk);
    },
  });
  const file = createWriteStream(dest);
  try {
    await pipeline(res.body, meter, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') {
      throw new DownloadError(
        `no space left on the device while writing ${dest} (downloading ${url}); free some space and try again`,
        url,
        false,
        { cause: err },
      );
    }
    if (err && (err as NodeJS.ErrnoException).syscall && (err as NodeJS.ErrnoException).path === dest) {
      throw new DownloadError(`could not write ${dest} (downloading ${url}): ${(err as Error).message}`, url, false, {
        cause: err,
      });
    }
    const e = asDownloadError(url, err, opts.signal);
    if (e === err || opts.signal?.aborted) throw e;
    throw new DownloadError(
      `${e.message} after ${received}${total !== undefined ? ` of ${total}` : ''} bytes`,
      url,
      true,
      { cause: err },
    );
  }
  if (total !== undefined && received !== total) {
    throw new DownloadError(`the download of ${url} ended after ${received} of ${total} bytes`, url, true);
  }
  const sum = hash.digest('hex');
  if (sum !== opts.sha512.toLowerCase()) {
    throw new DownloadError(
      `checksum mismatch for ${url}: its sha512 is ${sum}, but the index says ${opts.sha512}. Nothing was unpacked; ` +
        'the archive or the index was changed after publishing (or a proxy altered it)',
      url,
      false,
    );
  }
}

function statusError(url: string, status: number, statusText: string): DownloadError {
  const retryable = status >= 500 || status === 429 || status === 408;
  const hint = status === 404 ? ' (is the URL right? the index may name an archive the mirror does not have)' : '';
  return new DownloadError(`${url} answered ${status}${statusText ? ` ${statusText}` : ''}${hint}`, url, retryable);
}

function asDownloadError(url: string, err: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
  if (err instanceof DownloadError) return err;
  return new DownloadError(`the download of ${url} broke off: ${(err as Error)?.message ?? String(err)}`, url, true, {
    cause: err,
  });
}
