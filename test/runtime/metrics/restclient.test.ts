import { afterEach, beforeEach, expect, it } from 'vitest';
import { registry, trackRestClientMetrics } from '../../../src/runtime/metrics/index.js';
import { defineResource, newClient, type KubeObject, type RestClient } from '../../../src/runtime/rest/index.js';
import { FakeServer, json } from '../rest/fake-server.js';

const Widgets = defineResource<KubeObject>({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

let server: FakeServer;
let client: RestClient;
let untrack: () => void;
let host: string;

beforeEach(async () => {
  server = new FakeServer();
  const kc = await server.start();
  client = newClient(kc);
  const url = kc.server;
  host = new URL(url).host;
  untrack = trackRestClientMetrics(url);
});
afterEach(async () => {
  untrack();
  client.close();
  await server.stop();
});

/** The value of one series in the registry's text exposition, 0 when absent. */
async function value(series: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

it('counts requests, retries after Retry-After, and request and response sizes for the tracked server', async () => {
  const before = {
    retries: await value(`rest_client_request_retries_total{code="429",verb="POST",host="${host}"}`),
    requests429: await value(`rest_client_requests_total{code="429",method="POST",host="${host}"}`),
    requests201: await value(`rest_client_requests_total{code="201",method="POST",host="${host}"}`),
    sent: await value(`rest_client_request_size_bytes_sum{verb="POST",host="${host}"}`),
    received: await value(`rest_client_response_size_bytes_sum{verb="POST",host="${host}"}`),
  };
  let n = 0;
  const answer = { metadata: { name: 'a', namespace: 'ns' } };
  server.handler = (_req, res) => {
    if (n++ === 0) {
      res.setHeader('Retry-After', '0');
      json(res, 429, { kind: 'Status', code: 429 });
    } else {
      json(res, 201, answer);
    }
  };
  await client.create(Widgets, { metadata: { name: 'a', namespace: 'ns' } });

  expect(await value(`rest_client_request_retries_total{code="429",verb="POST",host="${host}"}`)).toBe(
    before.retries + 1,
  );
  expect(await value(`rest_client_requests_total{code="429",method="POST",host="${host}"}`)).toBe(
    before.requests429 + 1,
  );
  expect(await value(`rest_client_requests_total{code="201",method="POST",host="${host}"}`)).toBe(
    before.requests201 + 1,
  );
  // Sizes are observed once per completed exchange: the retried attempt is not counted twice.
  expect(await value(`rest_client_request_size_bytes_sum{verb="POST",host="${host}"}`)).toBe(
    before.sent + Buffer.byteLength(server.requests[1]!.body),
  );
  expect(await value(`rest_client_response_size_bytes_sum{verb="POST",host="${host}"}`)).toBe(
    before.received + JSON.stringify(answer).length,
  );
});

it('ignores servers nobody tracks', async () => {
  untrack();
  const before = await value(`rest_client_requests_total{code="201",method="POST",host="${host}"}`);
  server.handler = (_req, res) => json(res, 201, { metadata: { name: 'b', namespace: 'ns' } });
  await client.create(Widgets, { metadata: { name: 'b', namespace: 'ns' } });
  expect(await value(`rest_client_requests_total{code="201",method="POST",host="${host}"}`)).toBe(before);
});
