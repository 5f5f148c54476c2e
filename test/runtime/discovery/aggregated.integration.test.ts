// Aggregated discovery on a real API server: every group and resource in two requests, a RESTMapper's lookups in one,
// and the same answers the legacy documents give.
import dc from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { DiscoveryClient } from '../../../src/runtime/discovery/index.js';
import { RESTMapper } from '../../../src/runtime/restmapper/index.js';
import { newClient, restSizeChannel, type RestClient } from '../../../src/runtime/rest/index.js';

let env: TestEnvironment;
let client: RestClient;

beforeAll(async () => {
  env = await TestEnvironment.start();
  client = newClient(env.kubeConfig);
});
afterAll(async () => {
  client?.close();
  await env?.stop();
});

// The requests `run` sends, counted on the transport's diagnostics channel.
async function requests<T>(run: () => Promise<T>): Promise<{ result: T; count: number }> {
  let count = 0;
  const count1 = (): void => void count++;
  dc.subscribe(restSizeChannel.name, count1);
  try {
    const result = await run();
    return { result, count };
  } finally {
    dc.unsubscribe(restSizeChannel.name, count1);
  }
}

describe('aggregated discovery', () => {
  it('reads every group with its resources in two requests, as the legacy documents list them', async () => {
    const discovery = new DiscoveryClient(client.transport);
    const { result, count } = await requests(() => discovery.serverGroupsAndResources());
    expect(count).toBe(2);
    expect(result.failed).toEqual([]);
    const apps = result.resources.find((l) => l.groupVersion === 'apps/v1')!;
    const legacy = await discovery.serverResourcesForGroupVersion('apps/v1');
    const shape = (rs: typeof apps.resources) =>
      rs
        .map((r) => [r.name, r.kind, r.namespaced, [...r.verbs].sort()])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(shape(apps.resources)).toEqual(shape(legacy.resources));
    expect(apps.resources.find((r) => r.name === 'deployments/scale')?.kind).toBe('Scale');
    const groups = await discovery.serverGroups();
    expect(result.groups.map((g) => [g.name, g.preferredVersion?.version])).toEqual(
      groups.map((g) => [g.name, g.preferredVersion?.version]),
    );
  });

  it('lets a RESTMapper map a group in one request, and another group with no more', async () => {
    const mapper = new RESTMapper(new DiscoveryClient(client.transport));
    const first = await requests(() => mapper.resourceFor({ group: 'apps', kind: 'Deployment' }));
    expect(first.result).toMatchObject({ group: 'apps', version: 'v1', plural: 'deployments', namespaced: true });
    expect(first.count).toBe(1);
    const second = await requests(() => mapper.resourceFor({ group: 'batch', version: 'v1', kind: 'CronJob' }));
    expect(second.result.plural).toBe('cronjobs');
    expect(second.count).toBe(0);
    const core = await requests(() => mapper.resourceFor({ group: '', kind: 'Namespace' }));
    expect([core.result.plural, core.result.namespaced, core.count]).toEqual(['namespaces', false, 1]);
  });
});
