import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Counter, Histogram } from './prom.js';
import { type RestRetryMessage, type RestSizeMessage, restRetryChannel, restSizeChannel } from '../rest/transport.js';
import { registry } from './registry.js';

// client-go's REST client metrics: rest_client_requests_total as controller-runtime registers it
// (pkg/metrics/client_go_adapter.go), and the latency, size and retry metrics client-go defines and Kubernetes'
// component-base registers (controller-runtime leaves those to the user). Requests and latency come from Node's own
// HTTP client diagnostics channels, so every request to the API server counts, whichever client sent it; sizes and
// retries from the transport's channels. There is no rest_client_rate_limiter_duration_seconds: like
// controller-runtime (QPS -1) we have no client-side rate limiter and leave fairness to API Priority and Fairness.
/**
 * rest_client_requests_total{code, method, host}: HTTP requests to the API server by status code, as controller-runtime
 * registers it.
 */
export const restClientRequests = new Counter({
  name: 'rest_client_requests_total',
  help: 'Number of HTTP requests, partitioned by status code, method, and host.',
  labelNames: ['code', 'method', 'host'] as const,
  registers: [registry],
});

/** rest_client_request_duration_seconds{verb, host}: request latency (client-go's metric). */
export const restClientRequestDuration = new Histogram({
  name: 'rest_client_request_duration_seconds',
  help: 'Request latency in seconds. Broken down by verb, and host.',
  labelNames: ['verb', 'host'] as const,
  buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0],
  registers: [registry],
});

// prometheus.ExponentialBuckets(64, 4, 8), as component-base's restclient metrics.
const sizeBuckets = [64, 256, 1024, 4096, 16384, 65536, 262144, 1048576];

/** rest_client_request_size_bytes{verb, host}: request body sizes (client-go's metric). */
export const restClientRequestSize = new Histogram({
  name: 'rest_client_request_size_bytes',
  help: 'Request size in bytes. Broken down by verb and host.',
  labelNames: ['verb', 'host'] as const,
  buckets: sizeBuckets,
  registers: [registry],
});

/** rest_client_response_size_bytes{verb, host}: response body sizes (client-go's metric). */
export const restClientResponseSize = new Histogram({
  name: 'rest_client_response_size_bytes',
  help: 'Response size in bytes. Broken down by verb and host.',
  labelNames: ['verb', 'host'] as const,
  buckets: sizeBuckets,
  registers: [registry],
});

/**
 * rest_client_request_retries_total{code, verb, host}: requests sent again after a 429 or 5xx with Retry-After
 * (client-go's metric).
 */
export const restClientRequestRetries = new Counter({
  name: 'rest_client_request_retries_total',
  help: 'Number of request retries, partitioned by status code, verb, and host.',
  labelNames: ['code', 'verb', 'host'] as const,
  registers: [registry],
});

const hosts = new Map<string, number>();
const started = new WeakMap<ClientRequest, number>();
let subscribed = false;

function hostOf(request: ClientRequest): string {
  const h = request.getHeader('host');
  return typeof h === 'string' ? h : `${request.host}`;
}

const onStart = (msg: unknown): void => {
  const { request } = msg as { request: ClientRequest };
  if (hosts.has(hostOf(request))) started.set(request, performance.now());
};

const onFinish = (msg: unknown): void => {
  const { request, response } = msg as { request: ClientRequest; response: IncomingMessage };
  const t = started.get(request);
  if (t === undefined) return;
  started.delete(request);
  const host = hostOf(request);
  restClientRequests.labels({ code: String(response.statusCode ?? 0), method: request.method, host }).inc();
  restClientRequestDuration.labels({ verb: request.method, host }).observe((performance.now() - t) / 1000);
};

const onSize = (msg: unknown): void => {
  const m = msg as RestSizeMessage;
  if (!hosts.has(m.host)) return;
  restClientRequestSize.labels({ verb: m.method, host: m.host }).observe(m.requestBytes);
  restClientResponseSize.labels({ verb: m.method, host: m.host }).observe(m.responseBytes);
};

const onRetry = (msg: unknown): void => {
  const m = msg as RestRetryMessage;
  if (hosts.has(m.host)) restClientRequestRetries.labels({ code: String(m.code), verb: m.method, host: m.host }).inc();
};

/**
 * Counts requests to the API server at `serverUrl` until the returned function is called; several managers may
 * track the same server (counted once).
 */
export function trackRestClientMetrics(serverUrl: string): () => void {
  const url = new URL(serverUrl);
  const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
  hosts.set(host, (hosts.get(host) ?? 0) + 1);
  if (!subscribed) {
    dc.subscribe('http.client.request.start', onStart);
    dc.subscribe('http.client.response.finish', onFinish);
    restSizeChannel.subscribe(onSize);
    restRetryChannel.subscribe(onRetry);
    subscribed = true;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (hosts.get(host) ?? 1) - 1;
    if (n > 0) hosts.set(host, n);
    else hosts.delete(host);
    if (hosts.size === 0 && subscribed) {
      dc.unsubscribe('http.client.request.start', onStart);
      dc.unsubscribe('http.client.response.finish', onFinish);
      restSizeChannel.unsubscribe(onSize);
      restRetryChannel.unsubscribe(onRetry);
      subscribed = false;
    }
  };
}
