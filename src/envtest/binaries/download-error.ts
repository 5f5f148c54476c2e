import { EnvtestError } from '../errors.js';

/** The one error type of fetching the index and archives: a message that names the URL or file, and whether a retry may help. */
export class DownloadError extends EnvtestError {
  constructor(
    message: string,
    /** The URL (or file) the failure is about. */
    readonly url: string,
    /** True for failures another attempt may not repeat: timeouts, resets, truncated bodies, 5xx. */
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, { cause: options?.cause });
    this.name = 'DownloadError';
  }
}

/** Network error codes a new connection may well not hit again. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
/** Codes that mean the network (or the host) is not there at all. */
const UNREACHABLE_CODES = new Set(['ENOTFOUND', 'ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN']);

/** Wraps a socket/TLS error of a request to `url` in a DownloadError that says what happened. */
export function networkError(url: string, err: unknown, via?: string): DownloadError {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? '';
  const proxy = via ? ` through the proxy ${via}` : '';
  let hint = '';
  if (UNREACHABLE_CODES.has(code)) {
    hint = via
      ? ' (is the proxy running? check HTTPS_PROXY)'
      : ' (no network? Behind a proxy, set HTTPS_PROXY; for a mirror, use --index or KUBESCAFFOLD_ENVTEST_INDEX)';
  } else if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    hint = ' (for a private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file)';
  }
  return new DownloadError(
    `could not fetch ${url}${proxy}: ${e?.message ?? String(err)}${hint}`,
    url,
    TRANSIENT_CODES.has(code),
    { cause: err },
  );
}
