import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Counter, Histogram } from 'prom-client';
import { registry } from './registry.js';

// client-go's REST client metrics as controller-runtime registers them (pkg/metrics/client_go_adapter.go), measured
// from Node's own HTTP client diagnostics channels, so every request to the API server counts, whichever client sent it.
export const restClientRequests = new Counter({
  name: 'rest_client_requests_total',
  help: 'Number of HTTP requests, partitioned by status code, method, and host.',
  labelNames: ['code', 'method', 'host'] as const,
  registers: [registry],
});

export const restClientRequestDuration = new Histogram({
  name: 'rest_client_request_duration_seconds',
  help: 'Request latency in seconds. Broken down by verb, and host.',
  labelNames: ['verb', 'host'] as const,
  buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0],
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
      subscribed = false;
    }
  };
}
