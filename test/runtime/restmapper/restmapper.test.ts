import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscoveryClient } from '../../../src/runtime/discovery/index.js';
import { HttpTransport } from '../../../src/runtime/rest/index.js';
import { RESTMapper, isNoMatch } from '../../../src/runtime/restmapper/index.js';
import { FakeServer, json, notFound } from '../rest/fake-server.js';

let server: FakeServer;
let transport: HttpTransport;
let crdInstalled: boolean;

beforeEach(async () => {
  crdInstalled = false;
  server = new FakeServer();
  server.handler = (req, res) => {
    switch (req.path) {
      case '/api':
        return json(res, 200, { versions: ['v1'] });
      case '/api/v1':
        return json(res, 200, {
          groupVersion: 'v1',
          resources: [
            { name: 'pods', namespaced: true, kind: 'Pod', verbs: ['get'] },
            { name: 'pods/status', namespaced: true, kind: 'Pod', verbs: ['get'] },
            { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['get'] },
          ],
        });
      case '/apis/example.com':
        if (!crdInstalled) return json(res, 404, notFound('example.com'));
        return json(res, 200, {
          name: 'example.com',
          versions: [
            { groupVersion: 'example.com/v2', version: 'v2' },
            { groupVersion: 'example.com/v1', version: 'v1' },
          ],
          preferredVersion: { groupVersion: 'example.com/v2', version: 'v2' },
        });
      case '/apis/example.com/v1':
        return json(res, 200, {
          groupVersion: 'example.com/v1',
          resources: [
            { name: 'widgets', namespaced: true, kind: 'Widget', verbs: ['get'] },
            { name: 'gadgets', namespaced: false, kind: 'Gadget', verbs: ['get'] },
          ],
        });
      case '/apis/example.com/v2':
        return json(res, 200, {
          groupVersion: 'example.com/v2',
          resources: [{ name: 'widgets', namespaced: true, kind: 'Widget', verbs: ['get'] }],
        });
      default:
        return json(res, 404, notFound(req.path));
    }
  };
  transport = new HttpTransport(await server.start());
});
afterEach(async () => {
  transport.close();
  await server.stop();
});

describe('RESTMapper', () => {
  it('maps core kinds to resources and back, skipping subresources', async () => {
    const m = new RESTMapper(new DiscoveryClient(transport));
    const pods = await m.resourceFor({ group: '', version: 'v1', kind: 'Pod' });
    expect(pods).toMatchObject({ plural: 'pods', namespaced: true, apiVersion: 'v1' });
    expect(await m.kindFor({ group: '', version: 'v1', resource: 'namespaces' })).toEqual({
      group: '',
      version: 'v1',
      kind: 'Namespace',
    });
    expect(await m.isNamespaced({ group: '', version: 'v1', kind: 'Namespace' })).toBe(false);
  });

  it('prefers the preferred version and falls back to others that serve the kind', async () => {
    crdInstalled = true;
    const m = new RESTMapper(new DiscoveryClient(transport));
    expect((await m.resourceFor({ group: 'example.com', kind: 'Widget' })).version).toBe('v2');
    expect((await m.resourceFor({ group: 'example.com', kind: 'Gadget' })).version).toBe('v1');
    expect((await m.resourceForObject({ apiVersion: 'example.com/v1', kind: 'Widget' })).version).toBe('v1');
  });

  it('rediscovers on a miss, so kinds installed later are found', async () => {
    const m = new RESTMapper(new DiscoveryClient(transport));
    const err = await m.resourceFor({ group: 'example.com', version: 'v1', kind: 'Widget' }).catch((e: unknown) => e);
    expect(isNoMatch(err)).toBe(true);
    crdInstalled = true;
    expect((await m.resourceFor({ group: 'example.com', version: 'v1', kind: 'Widget' })).plural).toBe('widgets');
    const before = server.requests.length;
    await m.resourceFor({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(server.requests.length).toBe(before);
  });
});
