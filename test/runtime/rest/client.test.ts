import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  ConfigMaps,
  IdleTimeoutError,
  Namespaces,
  RestClient,
  defineResource,
  isAlreadyExists,
  isConflict,
  isGone,
  isInternalError,
  isNotFound,
  isTooManyRequests,
  newClient,
  restRetryChannel,
  restSizeChannel,
  type RestRetryMessage,
  type RestSizeMessage,
  type KubeConfig,
  type KubeObject,
  type WatchEvent,
} from '../../../src/runtime/rest/index.js';
import { FakeServer, json, notFound } from './fake-server.js';

interface Widget extends KubeObject {
  spec?: { size?: number };
}
const Widgets = defineResource<Widget>({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

let server: FakeServer;
let client: RestClient;
let kubeconfig: KubeConfig;

beforeEach(async () => {
  server = new FakeServer();
  kubeconfig = await server.start();
  client = newClient(kubeconfig);
});
afterEach(async () => {
  client.close();
  await server.stop();
});

describe('RestClient requests', () => {
  it('gets an object from its namespaced path with the bearer token', async () => {
    server.handler = (_req, res) =>
      json(res, 200, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a', namespace: 'ns' } });
    const w = await client.get(Widgets, { namespace: 'ns', name: 'a' });
    expect(w.metadata?.name).toBe('a');
    expect(server.requests[0]?.path).toBe('/apis/example.com/v1/namespaces/ns/widgets/a');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer secret-token');
  });

  it('uses /api/v1 for the core group and no namespace for cluster-scoped kinds', async () => {
    server.handler = (_req, res) => json(res, 200, { metadata: { name: 'kube-system' } });
    await client.get(Namespaces, { name: 'kube-system' });
    expect(server.requests[0]?.path).toBe('/api/v1/namespaces/kube-system');
  });

  it('throws an ApiError carrying the server Status on 404', async () => {
    server.handler = (_req, res) => json(res, 404, notFound('a'));
    const err = await client.get(Widgets, { namespace: 'ns', name: 'a' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).code).toBe(404);
    expect((err as ApiError).status.details?.name).toBe('a');
    expect(isConflict(err)).toBe(false);
  });

  it('turns a non-Status error body into an ApiError with a reason from the code', async () => {
    server.handler = (_req, res) => {
      res.writeHead(500);
      res.end('boom');
    };
    const err = await client.get(Widgets, { namespace: 'ns', name: 'a' }).catch((e: unknown) => e);
    expect(isInternalError(err)).toBe(true);
    expect((err as ApiError).message).toContain('boom');
  });

  it('tells AlreadyExists from Conflict although both are 409', async () => {
    server.handler = (_req, res) =>
      json(res, 409, { kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'exists' });
    const err = await client.create(Widgets, { metadata: { name: 'a', namespace: 'ns' } }).catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
  });

  it('lists with selectors and pagination, filling in apiVersion and kind', async () => {
    server.handler = (req, res) => {
      const cont = req.query.get('continue');
      json(res, 200, {
        metadata: { resourceVersion: '10', continue: cont ? undefined : 'page2' },
        items: [{ metadata: { name: cont ? 'b' : 'a', namespace: 'ns' } }],
      });
    };
    const all = await client.listAll(Widgets, {
      namespace: 'ns',
      labelSelector: 'app=x',
      fieldSelector: 'metadata.name!=c',
      limit: 1,
    });
    expect(all.items.map((i) => i.metadata?.name)).toEqual(['a', 'b']);
    expect(all.items[0]?.kind).toBe('Widget');
    expect(all.items[0]?.apiVersion).toBe('example.com/v1');
    expect(all.metadata.resourceVersion).toBe('10');
    const q = server.requests[0]!.query;
    expect([q.get('labelSelector'), q.get('fieldSelector'), q.get('limit')]).toEqual([
      'app=x',
      'metadata.name!=c',
      '1',
    ]);
    expect(server.requests[1]!.query.get('continue')).toBe('page2');
  });

  it('hands each listed item to transformItem as it is decoded, apiVersion and kind filled in, and keeps what it returns', async () => {
    server.handler = (_req, res) =>
      json(res, 200, {
        metadata: { resourceVersion: '7' },
        items: [{ metadata: { name: 'a', namespace: 'ns' } }, { metadata: { name: 'b', namespace: 'ns' } }],
      });
    const seen: string[] = [];
    const list = await client.list(Widgets, {
      transformItem: (w) => {
        seen.push(`${w.apiVersion} ${w.kind} ${w.metadata?.name}`);
        return { ...w, spec: { size: seen.length } };
      },
    });
    expect(seen).toEqual(['example.com/v1 Widget a', 'example.com/v1 Widget b']);
    expect(list.items.map((w) => [w.metadata?.name, w.spec?.size])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('creates with apiVersion and kind filled in, dryRun and fieldManager', async () => {
    server.handler = (req, res) => json(res, 201, JSON.parse(req.body));
    const created = await client.create(
      Widgets,
      { metadata: { name: 'a', namespace: 'ns' }, spec: { size: 1 } },
      { dryRun: true, fieldManager: 'me' },
    );
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/apis/example.com/v1/namespaces/ns/widgets');
    expect(req.query.get('dryRun')).toBe('All');
    expect(req.query.get('fieldManager')).toBe('me');
    expect(created).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { size: 1 } });
  });

  it('refuses to create a namespaced object without a namespace', async () => {
    await expect(client.create(Widgets, { metadata: { name: 'a' } })).rejects.toThrow(/namespace is required/);
  });

  it('updates with PUT and writes status through the subresource', async () => {
    server.handler = (req, res) => json(res, 200, JSON.parse(req.body));
    const w: Widget = { metadata: { name: 'a', namespace: 'ns', resourceVersion: '5' } };
    await client.update(Widgets, w);
    await client.status().update(Widgets, w);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /apis/example.com/v1/namespaces/ns/widgets/a',
      'PUT /apis/example.com/v1/namespaces/ns/widgets/a/status',
    ]);
  });

  it('sends each patch type with its content type; apply needs a fieldManager and may force', async () => {
    server.handler = (_req, res) => json(res, 200, {});
    const key = { namespace: 'ns', name: 'a' };
    await client.patch(Widgets, key, { spec: { size: 2 } }, { type: 'merge' });
    await client.patch(Widgets, key, [{ op: 'replace', path: '/spec/size', value: 3 }], { type: 'json' });
    await client.patch(
      Widgets,
      key,
      { metadata: { name: 'a' }, spec: { size: 4 } },
      { type: 'apply', fieldManager: 'me', force: true },
    );
    await client.status().patch(Widgets, key, { status: {} }, { type: 'merge' });
    await expect(client.patch(Widgets, key, {}, { type: 'apply' })).rejects.toThrow(/fieldManager/);
    const [merge, jsonPatch, apply, status] = server.requests;
    expect(merge!.headers['content-type']).toBe('application/merge-patch+json');
    expect(jsonPatch!.headers['content-type']).toBe('application/json-patch+json');
    expect(apply!.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(apply!.query.get('force')).toBe('true');
    expect(apply!.query.get('fieldManager')).toBe('me');
    expect(JSON.parse(apply!.body)).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(status!.path).toBe('/apis/example.com/v1/namespaces/ns/widgets/a/status');
  });

  it('deletes with preconditions and propagation policy; deleteCollection takes selectors', async () => {
    server.handler = (_req, res) => json(res, 200, { kind: 'Status', status: 'Success' });
    await client.delete(
      Widgets,
      { namespace: 'ns', name: 'a' },
      { propagationPolicy: 'Foreground', preconditions: { uid: 'u1', resourceVersion: '7' } },
    );
    await client.deleteCollection(ConfigMaps, {
      namespace: 'ns',
      labelSelector: 'app=x',
      propagationPolicy: 'Background',
    });
    const [one, many] = server.requests;
    expect(one!.method).toBe('DELETE');
    expect(JSON.parse(one!.body)).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1', resourceVersion: '7' },
    });
    expect(many!.path).toBe('/api/v1/namespaces/ns/configmaps');
    expect(many!.query.get('labelSelector')).toBe('app=x');
  });

  it('reads and sets the scale subresource', async () => {
    server.handler = (req, res) =>
      json(res, 200, { kind: 'Scale', spec: { replicas: req.method === 'PATCH' ? 3 : 1 } });
    const Deploys = defineResource({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      plural: 'deployments',
      namespaced: true,
    });
    expect((await client.getScale(Deploys, { namespace: 'ns', name: 'd' })).spec?.replicas).toBe(1);
    expect((await client.scale(Deploys, { namespace: 'ns', name: 'd' }, 3)).spec?.replicas).toBe(3);
    expect(server.requests[1]!.path).toBe('/apis/apps/v1/namespaces/ns/deployments/d/scale');
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ spec: { replicas: 3 } });
  });

  it('reuses one keep-alive connection for sequential requests', async () => {
    server.handler = (_req, res) => json(res, 200, {});
    for (let i = 0; i < 5; i++) await client.get(Widgets, { namespace: 'ns', name: 'a' });
    expect(server.connections).toBe(1);
  });
});

const ev = (type: string, name: string, rv: string): string =>
  JSON.stringify({ type, object: { kind: 'Widget', metadata: { name, namespace: 'ns', resourceVersion: rv } } }) + '\n';

describe('RestClient watch', () => {
  it('streams events split across chunks and passes the watch parameters', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const all = ev('ADDED', 'a', '1') + ev('MODIFIED', 'a', '2') + ev('DELETED', 'a', '3');
      res.write(all.slice(0, 10));
      setTimeout(() => res.write(all.slice(10, 90)), 5);
      setTimeout(() => res.end(all.slice(90)), 10);
    };
    const events: WatchEvent<Widget>[] = [];
    for await (const e of client.watch(Widgets, {
      namespace: 'ns',
      resourceVersion: '0',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      sendInitialEvents: false,
    })) {
      events.push(e);
    }
    expect(events.map((e) => `${e.type} ${e.object.metadata?.resourceVersion}`)).toEqual([
      'ADDED 1',
      'MODIFIED 2',
      'DELETED 3',
    ]);
    const q = server.requests[0]!.query;
    expect([
      q.get('watch'),
      q.get('resourceVersion'),
      q.get('allowWatchBookmarks'),
      q.get('timeoutSeconds'),
      q.get('sendInitialEvents'),
    ]).toEqual(['true', '0', 'true', '300', 'false']);
  });

  it('yields ERROR events so the caller can see a 410', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200);
      res.end(
        JSON.stringify({
          type: 'ERROR',
          object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' },
        }) + '\n',
      );
    };
    const events = [];
    for await (const e of client.watch(Widgets, { resourceVersion: '1' })) events.push(e);
    expect(events[0]?.type).toBe('ERROR');
    if (events[0]?.type === 'ERROR') expect(isGone(new ApiError(events[0].object))).toBe(true);
  });

  it('returns quietly when its signal aborts mid-stream', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200);
      res.write(ev('ADDED', 'a', '1'));
    };
    const ac = new AbortController();
    const events = [];
    for await (const e of client.watch(Widgets, { signal: ac.signal })) {
      events.push(e);
      ac.abort();
    }
    expect(events).toHaveLength(1);
  });

  it('fails with IdleTimeoutError when the stream goes silent', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200);
      res.write(ev('ADDED', 'a', '1'));
    };
    const events: WatchEvent<Widget>[] = [];
    const err = await (async () => {
      for await (const e of client.watch(Widgets, { idleTimeoutMs: 100 })) events.push(e);
    })().catch((e: unknown) => e);
    expect(events).toHaveLength(1);
    expect(err).toBeInstanceOf(IdleTimeoutError);
  });

  it('throws an ApiError when the watch request itself is refused', async () => {
    server.handler = (_req, res) => json(res, 403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' });
    const it = client.watch(Widgets, {});
    await expect(it.next()).rejects.toBeInstanceOf(ApiError);
  });
});

describe('RestClient transport', () => {
  it('retries a GET once when a reused keep-alive socket was closed by the server', async () => {
    let n = 0;
    server.handler = (_req, res) => {
      n++;
      // The second request arrives on the kept-alive socket: drop it unanswered, as a server closing an idle
      // connection at that moment would.
      if (n === 2) res.socket?.destroy();
      else json(res, 200, { n });
    };
    const before = server.connections;
    await client.get(Widgets, { namespace: 'ns', name: 'a' });
    await expect(client.get(Widgets, { namespace: 'ns', name: 'a' })).resolves.toEqual({ n: 3 });
    expect(n).toBe(3);
    expect(server.connections - before).toBe(2);
  });

  it('aborts an in-flight request with its signal', async () => {
    server.handler = () => {};
    const ac = new AbortController();
    const p = client.get(Widgets, { namespace: 'ns', name: 'a' }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('sends a request again after Retry-After on 429 and 5xx, whatever the verb, and reports each retry', async () => {
    const answers = [
      [429, '0'],
      [503, '0'],
      [201, undefined],
    ] as const;
    let n = 0;
    server.handler = (_req, res) => {
      const [code, after] = answers[n++]!;
      if (after !== undefined) res.setHeader('Retry-After', after);
      json(res, code, code === 201 ? { metadata: { name: 'a' } } : { kind: 'Status', code });
    };
    const retries: RestRetryMessage[] = [];
    const onRetry = (m: unknown): void => void retries.push(m as RestRetryMessage);
    restRetryChannel.subscribe(onRetry);
    try {
      const created = await client.create(Widgets, { metadata: { name: 'a', namespace: 'ns' } });
      expect(created.metadata?.name).toBe('a');
    } finally {
      restRetryChannel.unsubscribe(onRetry);
    }
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    expect(retries.map((r) => [r.method, r.code])).toEqual([
      ['POST', 429],
      ['POST', 503],
    ]);
    expect(retries[0]!.host).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('passes a 429 without Retry-After straight to the caller', async () => {
    server.handler = (_req, res) =>
      json(res, 429, { kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down' });
    await expect(client.get(Widgets, { namespace: 'ns', name: 'a' })).rejects.toSatisfy(isTooManyRequests);
    expect(server.requests).toHaveLength(1);
  });

  it('stops after maxRetries and returns the last answer', async () => {
    client.close();
    client = newClient(kubeconfig, { maxRetries: 2 });
    server.handler = (_req, res) => {
      res.setHeader('Retry-After', '0');
      json(res, 500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'boom' });
    };
    await expect(client.get(Widgets, { namespace: 'ns', name: 'a' })).rejects.toSatisfy(isInternalError);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up waiting for Retry-After when its signal aborts', async () => {
    server.handler = (_req, res) => {
      res.setHeader('Retry-After', '30');
      json(res, 429, { kind: 'Status', code: 429 });
    };
    const ac = new AbortController();
    const p = client.get(Widgets, { namespace: 'ns', name: 'a' }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
  });

  it('reports request and response sizes of completed exchanges', async () => {
    server.handler = (_req, res) => json(res, 201, { metadata: { name: 'a' }, spec: { size: 3 } });
    const sizes: RestSizeMessage[] = [];
    const onSize = (m: unknown): void => void sizes.push(m as RestSizeMessage);
    restSizeChannel.subscribe(onSize);
    try {
      await client.create(Widgets, { metadata: { name: 'a', namespace: 'ns' }, spec: { size: 3 } });
    } finally {
      restSizeChannel.unsubscribe(onSize);
    }
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toMatchObject({ method: 'POST', requestBytes: Buffer.byteLength(server.requests[0]!.body) });
    expect(sizes[0]!.responseBytes).toBe(JSON.stringify({ metadata: { name: 'a' }, spec: { size: 3 } }).length);
  });
});

describe('RestClient compression', () => {
  const items = Array.from({ length: 50 }, (_, i) => ({ metadata: { name: `w${i}` }, spec: { size: i } }));
  const gzipped = (res: ServerResponse, code: number, text: string): void => {
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    res.end(gzipSync(text));
  };

  it('asks for gzip and reads a gzipped list, object, watch and error', async () => {
    server.handler = (req, res) => {
      if (req.query.get('watch') === 'true') {
        return gzipped(res, 200, ev('ADDED', 'a', '1') + ev('MODIFIED', 'a', '2'));
      }
      if (req.path.endsWith('/widgets/missing')) return gzipped(res, 404, JSON.stringify(notFound('missing')));
      if (req.path.endsWith('/widgets/w1')) return gzipped(res, 200, JSON.stringify(items[1]));
      gzipped(res, 200, JSON.stringify({ metadata: { resourceVersion: '9' }, items }));
    };
    const list = await client.list(Widgets, { namespace: 'ns' });
    expect(list.items.map((w) => w.metadata?.name)).toEqual(items.map((w) => w.metadata.name));
    expect((await client.get(Widgets, { namespace: 'ns', name: 'w1' })).spec?.size).toBe(1);
    await expect(client.get(Widgets, { namespace: 'ns', name: 'missing' })).rejects.toSatisfy(isNotFound);
    const events: string[] = [];
    for await (const e of client.watch(Widgets, { namespace: 'ns' })) events.push(e.type);
    expect(events).toEqual(['ADDED', 'MODIFIED']);
    expect(server.requests.map((r) => r.headers['accept-encoding'])).toEqual(['gzip', 'gzip', 'gzip', 'gzip']);
  });

  it('works with a server that does not compress, and asks for none with disableCompression or the kubeconfig', async () => {
    server.handler = (_req, res) => json(res, 200, { metadata: {}, items });
    expect((await client.list(Widgets)).items).toHaveLength(50);
    const plain = newClient(kubeconfig, { disableCompression: true });
    const fromKubeconfig = newClient({ ...kubeconfig, disableCompression: true });
    try {
      expect((await plain.list(Widgets)).items).toHaveLength(50);
      expect((await fromKubeconfig.list(Widgets)).items).toHaveLength(50);
    } finally {
      plain.close();
      fromKubeconfig.close();
    }
    expect(server.requests.map((r) => r.headers['accept-encoding'])).toEqual(['gzip', undefined, undefined]);
  });

  it('fails a response whose gzip is corrupt, naming it, instead of decoding garbage', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ metadata: {}, items })).subarray(0, 40));
    };
    await expect(client.list(Widgets)).rejects.toThrow(
      /GET .*widgets: the server's gzip-compressed answer does not decompress/,
    );
  });
});
