import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthzHandler, ping, type Checker } from '../../../src/runtime/healthz/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { serveUntil } from '../../../src/runtime/internal/serve.js';
import { eventually } from '../../support/eventually.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

async function serve(checks: Record<string, Checker>) {
  const handler = new HealthzHandler('/healthz', new Map(Object.entries(checks)));
  const server = http.createServer((req, res) => {
    void handler.handle(req, res, new URL(req.url ?? '/', 'http://x')).then((ok) => {
      if (!ok) res.writeHead(404).end();
    });
  });
  const ac = new AbortController();
  stops.push(ac);
  let addr: AddressInfo | undefined;
  const done = serveUntil(server, {
    bindAddress: '127.0.0.1:0',
    signal: ac.signal,
    log: newLogger({ sink: () => {} }),
    onListening: (a) => (addr = a),
  });
  await eventually(() => addr !== undefined);
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${addr!.port}${path}`);
    return { code: r.status, body: await r.text() };
  };
  return { get, ac, done };
}

describe('healthz handler', () => {
  it('answers ok when every check passes, and ping when there are none', async () => {
    expect(await (await serve({ ping })).get('/healthz')).toEqual({ code: 200, body: 'ok' });
    expect(await (await serve({})).get('/healthz?verbose')).toEqual({
      code: 200,
      body: '[+]ping ok\nhealthz check passed\n',
    });
  });

  it('answers 500 with a per-check list when one fails, and withholds the reason', async () => {
    const s = await serve({ ping, db: () => Promise.reject(new Error('secret detail')) });
    const r = await s.get('/healthz');
    expect(r.code).toBe(500);
    expect(r.body).toBe('[-]db failed: reason withheld\n[+]ping ok\nhealthz check failed\n');
    expect((await s.get('/healthz?exclude=db')).code).toBe(200);
  });

  it('serves single checks under /healthz/<name>', async () => {
    const s = await serve({
      ping,
      bad: () => {
        throw new Error('nope');
      },
    });
    expect(await s.get('/healthz/ping')).toEqual({ code: 200, body: 'ok' });
    expect((await s.get('/healthz/bad')).code).toBe(500);
    expect((await s.get('/healthz/missing')).code).toBe(404);
  });

  it('stops serving and releases the port when the signal aborts', async () => {
    const s = await serve({ ping });
    s.ac.abort();
    await s.done;
    await expect(s.get('/healthz')).rejects.toThrow();
  });
});
