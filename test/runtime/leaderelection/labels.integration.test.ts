// Labels on the leader election Lease (controller-runtime's LeaderElectionLabels), on a real API server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { LeaderElector, LeaseResource } from '../../../src/runtime/leaderelection/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { newClient, type RestClient } from '../../../src/runtime/rest/index.js';

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

describe('leader election Lease labels', () => {
  it('creates the Lease with the labels and keeps setting them on renewals, leaving other labels alone', async () => {
    const key = { namespace: 'default', name: 'labelled-election' };
    const labels = { 'app.kubernetes.io/name': 'crew-operator', tier: 'control' };
    const ac = new AbortController();
    let renewals = 0;
    let renewed: () => void = () => {};
    let done: Promise<void> = Promise.resolve();
    const leading = new Promise<void>((resolve) => {
      const elector = new LeaderElector({
        client: {
          get: (res, k, o) => client.get(res, k, o),
          create: (res, obj, o) => client.create(res, obj, o),
          update: async (res, obj, o) => {
            const out = await client.update(res, obj, o);
            renewals++;
            renewed();
            return out;
          },
        },
        ...key,
        labels,
        retryPeriod: 100,
        renewDeadline: 1000,
        leaseDuration: 2000,
        onStartedLeading: () => resolve(),
        onStoppedLeading: () => {},
        log: newLogger({ sink: () => {} }),
      });
      done = elector.run(ac.signal);
    });
    try {
      await leading;
      expect((await client.get(LeaseResource, key)).metadata?.labels).toEqual(labels);
      // Someone changes one of our labels and adds their own: the next renewal puts ours back and keeps theirs.
      const before = renewals;
      // Two renewals: the first may have been sent before the edit.
      const next = new Promise<void>((resolve) => (renewed = () => renewals > before + 1 && resolve()));
      await client.patch(
        LeaseResource,
        key,
        { metadata: { labels: { tier: 'edited', owner: 'someone' } } },
        { type: 'merge' },
      );
      await next;
      expect((await client.get(LeaseResource, key)).metadata?.labels).toEqual({ ...labels, owner: 'someone' });
    } finally {
      ac.abort();
      await done;
    }
  });
});
