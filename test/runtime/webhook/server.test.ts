import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { connect, type PeerCertificate } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AdmissionWebhook,
  WebhookServer,
  defaultingHandler,
  generateLocalServingCert,
  type WebhookHandler,
} from '../../../src/runtime/webhook/index.js';
import { newLogger } from '../../../src/runtime/index.js';
import type { Client } from '../../../src/runtime/client/index.js';
import { captureLog } from '../../support/logs.js';
import { CaptainCustomDefaulter, CaptainResource } from './captain.js';
import { eventually } from '../../support/eventually.js';
import { freePort } from '../../support/ports.js';

const quiet = newLogger({ level: 'error', sink: () => {} });

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function request(
  port: number,
  path: string,
  opts: { method?: string; body?: string | Buffer; contentType?: string; ca?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'POST',
        agent: false,
        ...(opts.ca ? { ca: opts.ca } : { rejectUnauthorized: false }),
        headers:
          opts.contentType === undefined
            ? { 'Content-Type': 'application/json' }
            : opts.contentType
              ? { 'Content-Type': opts.contentType }
              : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A POST whose body is sent in chunks without a Content-Length (chunked transfer encoding). */
function chunkedRequest(port: number, path: string, chunks: string[]): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

/**
 * A client in a process of its own (as the API server is) that POSTs `size` bytes, by Content-Length or chunked,
 * handing the whole body to its socket at once, and prints the status and body it read, or the write error it got
 * instead (EPIPE, ECONNRESET). In the test's own process the server's close would wait for the client's reads.
 */
const OVERSIZED_CLIENT = `
import https from 'node:https';
const [port, path, size, chunked, keepAlive] = process.argv.slice(1);
// agent: false sends Connection: close; the API server's client keeps its connections alive.
const agent = keepAlive === 'true' ? new https.Agent({ keepAlive: true }) : false;
const req = https.request({
  host: '127.0.0.1', port: Number(port), path, method: 'POST', agent, rejectUnauthorized: false,
  headers: { 'Content-Type': 'application/json', ...(chunked === 'true' ? {} : { 'Content-Length': size }) },
}, (res) => {
  let body = '';
  res.on('data', (d) => (body += d));
  res.on('end', () => { console.log(JSON.stringify({ status: res.statusCode, body })); process.exit(0); });
});
req.on('error', (err) => { console.log(JSON.stringify({ error: err.code ?? err.message })); process.exit(0); });
req.end(Buffer.alloc(Number(size), 'x'));
`;

async function postFromAnotherProcess(
  port: number,
  path: string,
  size: number,
  how: { chunked: boolean; keepAlive: boolean },
): Promise<unknown> {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      OVERSIZED_CLIENT,
      String(port),
      path,
      String(size),
      String(how.chunked),
      String(how.keepAlive),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await once(child, 'exit');
  return JSON.parse(out);
}

function peer(port: number, alpn: string[] = ['http/1.1']): Promise<{ cert: PeerCertificate; alpn: string | false }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: alpn }, () => {
      const out = { cert: s.getPeerCertificate(), alpn: s.alpnProtocol ?? false };
      s.end();
      resolve(out);
    });
    s.on('error', reject);
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

const review = (uid: string) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'crew.example.com', version: 'v1', kind: 'Captain' },
      resource: { group: 'crew.example.com', version: 'v1', resource: 'captains' },
      operation: 'CREATE',
      userInfo: {},
      object: { apiVersion: 'crew.example.com/v1', kind: 'Captain', metadata: { name: 'c' }, spec: {} },
    },
  });

const running: Array<{ ac: AbortController; done: Promise<void> }> = [];

function run(server: WebhookServer): { ac: AbortController; done: Promise<void> } {
  const ac = new AbortController();
  const r = { ac, done: server.start(ac.signal) };
  running.push(r);
  return r;
}

afterEach(async () => {
  for (const r of running.splice(0)) {
    r.ac.abort();
    await r.done.catch(() => {});
  }
});

describe('webhook server', () => {
  it('serves admission reviews over TLS with a generated certificate its CA verifies, HTTP/1.1 only', async () => {
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    server.register(
      '/mutate-crew-example-com-v1-captain',
      new AdmissionWebhook(defaultingHandler(CaptainResource, new CaptainCustomDefaulter())),
    );
    run(server);
    await server.ready();
    const port = server.address()!.port;
    const ca = server.generatedCABundle();
    expect(ca).toContain('BEGIN CERTIFICATE');
    const res = await request(port, '/mutate-crew-example-com-v1-captain', { body: review('u-1'), ca });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true, patchType: 'JSONPatch' },
    });
    expect((await peer(port, ['h2', 'http/1.1'])).alpn).toBe('http/1.1');
  });

  it('answers unknown paths, other methods and bad bodies with HTTP errors', async () => {
    const small: WebhookHandler = { maxRequestBytes: 64, handle: async () => ({ ok: true }) };
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    server.register('/small', small);
    run(server);
    await server.ready();
    const port = server.address()!.port;
    expect((await request(port, '/nope', { body: '{}' })).status).toBe(404);
    const get = await request(port, '/small', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(await request(port, '/small', { body: '{}', contentType: 'text/plain' })).toMatchObject({
      status: 400,
      body: 'contentType=text/plain, expected application/json\n',
    });
    expect(await request(port, '/small', { body: '' })).toMatchObject({ status: 400, body: 'request body is empty\n' });
    expect((await request(port, '/small', { body: '{not json' })).status).toBe(400);
    expect((await request(port, '/small', { body: JSON.stringify({ pad: 'x'.repeat(100) }) })).status).toBe(413);
    expect((await chunkedRequest(port, '/small', ['{"pad":"', 'x'.repeat(50), 'x'.repeat(50), '"}'])).status).toBe(413);
    expect((await chunkedRequest(port, '/small', ['{"pad":', '"x"}'])).status).toBe(200);
    expect(await request(port, '/small', { body: '{}', contentType: 'application/json; charset=utf-8' })).toMatchObject(
      { status: 200, body: '{"ok":true}' },
    );
  });

  it('answers an oversized review (8 MiB) with a 413 its client reads while still writing, by Content-Length or chunked', async () => {
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    server.register('/mutate', new AdmissionWebhook(defaultingHandler(CaptainResource, new CaptainCustomDefaulter())));
    run(server);
    await server.ready();
    const port = server.address()!.port;
    const size = 8 * 1024 * 1024;
    // A close under the answer loses it only some of the time: each way is tried a few times.
    for (const chunked of [false, true])
      for (const keepAlive of [false, true])
        for (let i = 0; i < 3; i++)
          expect(
            await postFromAnotherProcess(port, '/mutate', size, { chunked, keepAlive }),
            `chunked=${chunked} keepAlive=${keepAlive} #${i}`,
          ).toEqual({ status: 413, body: `request body is larger than ${7 * 1024 * 1024} bytes\n` });
    // The server serves on.
    expect((await request(port, '/mutate', { body: review('u-2') })).status).toBe(200);
  });

  it('answers 429 with Retry-After beyond its in-flight body budget, having read the body, and serves a request alone', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    const slow: WebhookHandler = {
      handle: async () => {
        entered++;
        await held;
        return { ok: true };
      },
    };
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet, maxInFlightBodyBytes: 3000 });
    server.register('/slow', slow);
    run(server);
    await server.ready();
    const port = server.address()!.port;
    const body = (n: number) => JSON.stringify({ pad: 'x'.repeat(n - 10) });
    const first = request(port, '/slow', { body: body(2000) });
    await eventually(() => entered === 1, 'the first request in its handler');
    // 2000 + 2000 bytes would pass the budget of 3000: refused, the handler never sees it.
    const over = await request(port, '/slow', { body: body(2000) });
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.body).toContain('budget is 3000');
    // Small enough to fit beside the first.
    const small = request(port, '/slow', { body: body(500) });
    await eventually(() => entered === 2, 'the small request admitted beside the first');
    release();
    expect((await first).status).toBe(200);
    expect((await small).status).toBe(200);
    // Alone, even a request over the whole budget is served: one review always fits.
    expect((await request(port, '/slow', { body: body(5000) })).status).toBe(200);
  });

  it('answers a handler that throws with 500 and keeps serving', async () => {
    let calls = 0;
    const flaky: WebhookHandler = {
      handle: async () => {
        calls++;
        if (calls === 1) throw new TypeError('boom');
        return { ok: calls };
      },
    };
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    server.register('/flaky', flaky);
    run(server);
    await server.ready();
    const port = server.address()!.port;
    expect((await request(port, '/flaky', { body: '{}' })).status).toBe(500);
    expect(await request(port, '/flaky', { body: '{}' })).toMatchObject({ status: 200, body: '{"ok":2}' });
  });

  it('refuses a duplicate path and serves paths registered while running', async () => {
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    const h: WebhookHandler = { handle: async () => ({ late: true }) };
    server.register('/a', h);
    expect(() => server.register('/a', h)).toThrow("can't register duplicate path: /a");
    expect(() => server.register('b', h)).toThrow('must start with "/"');
    run(server);
    await server.ready();
    server.register('/late', h);
    expect((await request(server.address()!.port, '/late', { body: '{}' })).body).toBe('{"late":true}');
  });

  it('aborts the handler signal when the caller hangs up', async () => {
    let aborted!: () => void;
    const sawAbort = new Promise<void>((r) => (aborted = r));
    const slow: WebhookHandler = {
      handle: (_body, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted();
            resolve({});
          });
        }),
    };
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    server.register('/slow', slow);
    run(server);
    await server.ready();
    const req = https.request({
      host: '127.0.0.1',
      port: server.address()!.port,
      path: '/slow',
      method: 'POST',
      agent: false,
      rejectUnauthorized: false,
      headers: { 'Content-Type': 'application/json' },
    });
    req.on('error', () => {});
    req.end('{}');
    setTimeout(() => req.destroy(), 200);
    await sawAbort;
  });

  it('reports readiness through startedChecker only while serving', async () => {
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: quiet });
    server.register('/a', { handle: async () => ({}) });
    const check = server.startedChecker();
    await expect(async () => check()).rejects.toThrow('webhook server has not been started yet');
    const r = run(server);
    await server.ready();
    await expect(Promise.resolve(check())).resolves.toBeUndefined();
    const port = server.address()!.port;
    r.ac.abort();
    await r.done;
    await expect(async () => check()).rejects.toThrow('webhook server has not been started yet');
    expect(await canListen(port)).toBe(true);
  });

  it('passes startedChecker and ready() only once a generated CA is in the webhook configurations that point at it', async () => {
    // A client whose patch of the configuration waits until released: a slow API server, made deterministic.
    let releasePatch!: () => void;
    const patchReleased = new Promise<void>((resolve) => (releasePatch = resolve));
    let patchStarted!: () => void;
    const patchCalled = new Promise<void>((resolve) => (patchStarted = resolve));
    const patches: unknown[] = [];
    const configs = (port: number) => [
      { metadata: { name: 'local' }, webhooks: [{ name: 'w', clientConfig: { url: `https://127.0.0.1:${port}/a` } }] },
    ];
    let boundPort = 0;
    const client = {
      list: async (res: { kind: string }) => ({
        items: res.kind === 'MutatingWebhookConfiguration' ? configs(boundPort) : [],
      }),
      patch: async (_res: unknown, _key: unknown, ops: unknown) => {
        patchStarted();
        await patchReleased;
        patches.push(ops);
        return {};
      },
      get: async () => {
        throw new Error('not used');
      },
    } as unknown as Client;
    const port = await freePort();
    boundPort = port;
    const server = new WebhookServer({ host: '127.0.0.1', port, log: quiet, client });
    server.register('/a', { handle: async () => ({}) });
    const check = server.startedChecker();
    let ready = false;
    void server.ready().then(() => (ready = true));
    run(server);
    await patchCalled;
    try {
      // Listening, but the API server cannot verify us yet: not started, not ready.
      await expect(async () => check()).rejects.toThrow('webhook server has not been started yet');
      expect(ready).toBe(false);
    } finally {
      releasePatch();
    }
    await server.ready();
    await expect(Promise.resolve(check())).resolves.toBeUndefined();
    expect(patches).toHaveLength(1);
  });

  it('refuses to start when the certificate directory it was given holds no certificate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ks-empty-certs-'));
    try {
      const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, log: quiet });
      server.register('/a', { handle: async () => ({}) });
      await expect(server.start(new AbortController().signal)).rejects.toThrow(
        `the certificate directory ${dir} has no tls.crt`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('drops a request whose headers do not arrive within the read-header timeout, and says so', async () => {
    const logs = captureLog('webhook');
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: logs.log, readHeaderTimeout: 300 });
    server.register('/a', { handle: async () => ({}) });
    run(server);
    await server.ready();
    const socket = connect({ host: '127.0.0.1', port: server.address()!.port, rejectUnauthorized: false });
    await once(socket, 'secureConnect');
    socket.write('POST /a HTTP/1.1\r\nHost: x\r\n'); // and never the rest
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(logs.lines.some((l) => l.includes('Dropped a request that did not arrive in time'))).toBe(true);
  });

  it('refuses connections beyond its connection limit, and says so', async () => {
    const logs = captureLog('webhook');
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, log: logs.log, maxConnections: 1 });
    server.register('/a', { handle: async () => ({}) });
    run(server);
    await server.ready();
    const port = server.address()!.port;
    const first = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    await once(first, 'secureConnect');
    const second = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    const outcome = await new Promise<string>((resolve) => {
      second.once('secureConnect', () => resolve('connected'));
      second.once('error', () => resolve('refused'));
      second.once('close', () => resolve('refused'));
    });
    expect(outcome).toBe('refused');
    expect(
      logs.lines.some((l) => l.includes('Refused a connection: the webhook server is at its connection limit')),
    ).toBe(true);
    first.destroy();
    second.destroy();
  });

  it('serves the certificate in certDir and switches to a new one when the files change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webhook-certs-test-'));
    try {
      const first = generateLocalServingCert(['localhost', '127.0.0.1']);
      await writeFile(join(dir, 'tls.crt'), first.certPem);
      await writeFile(join(dir, 'tls.key'), first.keyPem);
      const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, log: quiet });
      server.register('/a', { handle: async () => ({ ok: true }) });
      run(server);
      await server.ready();
      expect(server.generatedCABundle()).toBeUndefined();
      const port = server.address()!.port;
      expect((await request(port, '/a', { body: '{}', ca: first.caPem })).status).toBe(200);
      const before = (await peer(port)).cert.fingerprint256;

      const second = generateLocalServingCert(['localhost', '127.0.0.1']);
      // As a Secret volume does it: new files appear whole, by rename.
      await writeFile(join(dir, 'tls.key.new'), second.keyPem);
      await writeFile(join(dir, 'tls.crt.new'), second.certPem);
      await rename(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
      await rename(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
      await eventually(
        async () => (await peer(port)).cert.fingerprint256 !== before,
        'the new certificate to be served',
      );
      expect((await request(port, '/a', { body: '{}', ca: second.caPem })).status).toBe(200);
      await expect(request(port, '/a', { body: '{}', ca: first.caPem })).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('removes the generated certificate directory when it stops', async () => {
    const logs: string[] = [];
    const server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      log: newLogger({ level: 'info', sink: (l) => logs.push(l) }),
    });
    server.register('/a', { handle: async () => ({}) });
    const r = run(server);
    await server.ready();
    const line = logs.map((l) => JSON.parse(l) as { generatedDir?: string }).find((l) => l.generatedDir);
    const dir = line!.generatedDir!;
    expect(existsSync(join(dir, 'tls.crt'))).toBe(true);
    r.ac.abort();
    await r.done;
    expect(existsSync(dir)).toBe(false);
  });
});
