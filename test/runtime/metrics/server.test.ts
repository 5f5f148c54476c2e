import https from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { newLogger } from '../../../src/runtime/log/index.js';
import { MetricsServer, registry } from '../../../src/runtime/metrics/index.js';
import type { Client } from '../../../src/runtime/client/index.js';
import type { KubeObject, Resource } from '../../../src/runtime/rest/types.js';
import { eventually } from '../../support/eventually.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

const quiet = newLogger({ sink: () => {} });

/** Answers TokenReviews (token "good" or "viewer" authenticates) and SubjectAccessReviews (only "good" may get /metrics). */
function reviewClient(calls: string[]): Client {
  const create = async <T extends KubeObject>(res: Resource<T>, obj: T): Promise<T> => {
    calls.push(res.kind);
    const o = obj as unknown as { spec: Record<string, unknown> };
    if (res.kind === 'TokenReview') {
      const token = o.spec.token as string;
      const ok = token === 'good' || token === 'viewer';
      return { ...obj, status: { authenticated: ok, user: ok ? { username: token, groups: ['g'] } : undefined } } as T;
    }
    const attrs = o.spec.nonResourceAttributes as { path: string; verb: string };
    const allowed = o.spec.user === 'good' && attrs.path === '/metrics' && attrs.verb === 'get';
    return { ...obj, status: { allowed } } as T;
  };
  return { create } as unknown as Client;
}

function httpsGet(port: number, path: string, token?: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port,
          path,
          rejectUnauthorized: false,
          headers: token ? { Authorization: `Bearer ${token}` } : {},
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
        },
      )
      .on('error', reject);
  });
}

async function start(server: MetricsServer) {
  const ac = new AbortController();
  stops.push(ac);
  const done = server.start(ac.signal);
  await eventually(() => server.address() !== undefined, 'metrics server listening');
  return { port: server.address()!.port, ac, done };
}

describe('metrics server', () => {
  it('serves the registry over plain HTTP when not secure', async () => {
    const s = await start(new MetricsServer({ bindAddress: '127.0.0.1:0', secureServing: false, log: quiet }));
    const r = await fetch(`http://127.0.0.1:${s.port}/metrics`);
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${s.port}/other`)).status).toBe(404);
    s.ac.abort();
    await s.done;
  });

  it('serves HTTPS with a self-signed cert and requires an authenticated, authorized token', async () => {
    const calls: string[] = [];
    const s = await start(
      new MetricsServer({ bindAddress: '127.0.0.1:0', authClient: reviewClient(calls), log: quiet }),
    );
    expect((await httpsGet(s.port, '/metrics')).code).toBe(401);
    expect((await httpsGet(s.port, '/metrics', 'bad')).code).toBe(401);
    const denied = await httpsGet(s.port, '/metrics', 'viewer');
    expect(denied).toEqual({ code: 403, body: 'Authorization denied for user viewer\n' });
    const ok = await httpsGet(s.port, '/metrics', 'good');
    expect(ok.code).toBe(200);
    expect(ok.body).toContain('# TYPE controller_runtime_reconcile_total counter');
    const before = calls.length;
    await httpsGet(s.port, '/metrics', 'good');
    expect(calls.length).toBe(before);
  });

  it('refuses to build a secure server without a client for reviews', () => {
    expect(() => new MetricsServer({ bindAddress: ':0', log: quiet })).toThrow(/TokenReview/);
    expect(registry).toBeDefined();
  });
});
