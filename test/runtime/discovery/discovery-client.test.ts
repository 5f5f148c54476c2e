import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscoveryClient } from '../../../src/runtime/discovery/index.js';
import { HttpTransport } from '../../../src/runtime/rest/index.js';
import { FakeServer, json, notFound } from '../rest/fake-server.js';

let server: FakeServer;
let transport: HttpTransport;

beforeEach(async () => {
  server = new FakeServer();
  server.handler = (req, res) => {
    switch (req.path) {
      case '/version':
        return json(res, 200, { major: '1', minor: '33', gitVersion: 'v1.33.0' });
      case '/api':
        return json(res, 200, { versions: ['v1'] });
      case '/apis':
        return json(res, 200, {
          groups: [
            {
              name: 'apps',
              versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
              preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
            },
          ],
        });
      case '/apis/apps/v1':
        return json(res, 200, {
          groupVersion: 'apps/v1',
          resources: [{ name: 'deployments', namespaced: true, kind: 'Deployment', verbs: ['get'] }],
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

describe('DiscoveryClient', () => {
  it('reads the server version', async () => {
    expect((await new DiscoveryClient(transport).serverVersion()).gitVersion).toBe('v1.33.0');
  });

  it('lists the core group first, built from /api, then the groups of /apis', async () => {
    const groups = await new DiscoveryClient(transport).serverGroups();
    expect(groups.map((g) => g.name)).toEqual(['', 'apps']);
    expect(groups[0]!.preferredVersion).toEqual({ groupVersion: 'v1', version: 'v1' });
  });

  it('answers undefined for a group the server does not serve, and reads a group version under /apis', async () => {
    const discovery = new DiscoveryClient(transport);
    expect(await discovery.serverGroup('example.com')).toBeUndefined();
    expect((await discovery.serverResourcesForGroupVersion('apps/v1')).resources.map((r) => r.kind)).toEqual([
      'Deployment',
    ]);
  });

  it('falls back to the legacy documents when the server answers them to the aggregated Accept, and asks once', async () => {
    const discovery = new DiscoveryClient(transport);
    const first = await discovery.serverGroupsAndResources();
    expect(first.groups.map((g) => g.name)).toEqual(['', 'apps']);
    expect(first.resources.map((l) => l.groupVersion)).toEqual(['apps/v1']);
    // /api/v1 is not served here: it fails alone.
    expect(first.failed).toEqual(['v1']);
    const aggregatedAsks = server.requests.filter((r) => String(r.headers.accept).includes('apidiscovery.k8s.io'));
    expect(aggregatedAsks.map((r) => r.path).sort()).toEqual(['/api', '/apis']);
    await discovery.serverGroupsAndResources();
    expect(server.requests.filter((r) => String(r.headers.accept).includes('apidiscovery.k8s.io'))).toHaveLength(2);
  });

  it('reads an aggregated answer: stale group versions are named, subresources listed as resource/subresource', async () => {
    server.handler = (req, res) =>
      json(res, 200, {
        kind: 'APIGroupDiscoveryList',
        apiVersion: 'apidiscovery.k8s.io/v2',
        items:
          req.path === '/api'
            ? [{ metadata: {}, versions: [{ version: 'v1', resources: [] }] }]
            : [
                {
                  metadata: { name: 'apps' },
                  versions: [
                    {
                      version: 'v1',
                      resources: [
                        {
                          resource: 'deployments',
                          responseKind: { group: '', version: '', kind: 'Deployment' },
                          scope: 'Namespaced',
                          verbs: ['get'],
                          subresources: [
                            {
                              subresource: 'scale',
                              responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
                              verbs: ['get'],
                            },
                          ],
                        },
                      ],
                    },
                    { version: 'v1beta1', freshness: 'Stale' },
                  ],
                },
              ],
      });
    const { groups, resources, failed } = await new DiscoveryClient(transport).serverGroupsAndResources();
    expect(groups.map((g) => [g.name, g.preferredVersion?.groupVersion])).toEqual([
      ['', 'v1'],
      ['apps', 'apps/v1'],
    ]);
    expect(failed).toEqual(['apps/v1beta1']);
    expect(resources.find((l) => l.groupVersion === 'apps/v1')?.resources).toEqual([
      { name: 'deployments', singularName: undefined, namespaced: true, kind: 'Deployment', verbs: ['get'] },
      { name: 'deployments/scale', namespaced: true, kind: 'Scale', verbs: ['get'], group: 'autoscaling' },
    ]);
    expect(server.requests).toHaveLength(2);
  });
});
