// The events.k8s.io/v1 recorder (controller-runtime's GetEventRecorder) on a real API server, and its core/v1
// fallback for a server that does not serve events.k8s.io/v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ConfigMaps,
  CoreEvents,
  Events,
  Namespaces,
  newClient,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { EventBroadcaster } from '../../../src/runtime/manager/index.js';
import { Manager, newLogger } from '../../../src/runtime/index.js';
import { eventually } from '../../support/eventually.js';

let env: TestEnvironment;
let api: RestClient;
const quiet = newLogger({ sink: () => {} });

beforeAll(async () => {
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
});
afterAll(async () => {
  api?.close();
  await env?.stop();
});

async function objects(ns: string) {
  await api.create(Namespaces, { metadata: { name: ns } });
  const regarding = await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'settings' } });
  const related = await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'source' } });
  return {
    regarding: { ...regarding, apiVersion: 'v1', kind: 'ConfigMap' },
    related: { ...related, apiVersion: 'v1', kind: 'ConfigMap' },
  };
}

describe('the events.k8s.io/v1 recorder', () => {
  it("writes events.k8s.io/v1 Events with the action and related object, repeats counted in the Event's series", async () => {
    const ns = 'events-v1';
    const { regarding, related } = await objects(ns);
    const mgr = new Manager({ kubeConfig: env.kubeConfig, log: quiet });
    const recorder = mgr.getEventRecorder('settings-controller');
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      for (let i = 0; i < 3; i++) recorder.record(regarding, related, 'Normal', 'Synced', 'Sync', 'copied from source');
      await eventually(
        async () => (await api.list(Events, { namespace: ns })).items.some((e) => e.series?.count === 3),
        'the series to count 3',
      );
      const [event, ...others] = (await api.list(Events, { namespace: ns })).items;
      expect(others).toEqual([]);
      expect(event).toMatchObject({
        reportingController: 'settings-controller',
        action: 'Sync',
        reason: 'Synced',
        note: 'copied from source',
        type: 'Normal',
        regarding: { kind: 'ConfigMap', name: 'settings', namespace: ns, uid: regarding.metadata?.uid },
        related: { kind: 'ConfigMap', name: 'source', uid: related.metadata?.uid },
      });
      expect(event?.reportingInstance).toMatch(/^settings-controller-/);
    } finally {
      ac.abort();
      await done;
    }
  });

  it('falls back to core/v1 Events, without action and related, where events.k8s.io/v1 is not served', async () => {
    const ns = 'events-core';
    const { regarding, related } = await objects(ns);
    const broadcaster = new EventBroadcaster(api, quiet, { servesEventsV1: async () => false });
    const ac = new AbortController();
    const running = broadcaster.start(ac.signal);
    try {
      broadcaster
        .eventsRecorderFor('settings-controller')
        .record(regarding, related, 'Warning', 'SyncFailed', 'Sync', 'source unreadable');
      await eventually(
        async () => (await api.list(CoreEvents, { namespace: ns })).items.length === 1,
        'a core/v1 Event',
      );
      const [event] = (await api.list(CoreEvents, { namespace: ns })).items;
      expect(event).toMatchObject({
        type: 'Warning',
        reason: 'SyncFailed',
        message: 'source unreadable',
        involvedObject: { kind: 'ConfigMap', name: 'settings', uid: regarding.metadata?.uid },
        reportingComponent: 'settings-controller',
      });
      expect([event?.action, event?.related]).toEqual([undefined, undefined]);
    } finally {
      ac.abort();
      await running;
    }
  });
});
