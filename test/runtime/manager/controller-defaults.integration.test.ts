// ManagerOptions.controller (controller-runtime's config.Controller) on a real API server: a kind's concurrency and the
// reconciliation timeout reach a controller the builder makes, which sets neither itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { Manager, newControllerManagedBy } from '../../../src/runtime/index.js';
import { ConfigMaps, Namespaces, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

let env: TestEnvironment;
let api: RestClient;

beforeAll(async () => {
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

describe("the manager's controller defaults", () => {
  it('run a kind with its groupKindConcurrency workers and abort each reconcile after reconciliationTimeout', async () => {
    const ns = `ctrl-defaults-${process.pid}`;
    await api.create(Namespaces, { metadata: { name: ns } });
    for (const name of ['a', 'b', 'c', 'd'])
      await api.create(ConfigMaps, { metadata: { namespace: ns, name }, data: { v: '1' } });
    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      log: captureLog('controller-defaults').log,
      cache: { defaultNamespaces: [ns] },
      metrics: { bindAddress: '0' },
      healthProbe: { bindAddress: '0' },
      controller: { maxConcurrentReconciles: 1, groupKindConcurrency: { ConfigMap: 3 }, reconciliationTimeout: 300 },
    });
    let running = 0;
    let mostAtOnce = 0;
    const reasons: unknown[] = [];
    newControllerManagedBy(mgr)
      .for(ConfigMaps)
      .complete({
        async reconcile(_req, ctx) {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          // Held until the reconcile's own signal aborts: only the timeout can end it.
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          reasons.push(ctx.signal.reason);
          running--;
        },
      });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await eventually(() => reasons.length >= 4, 'four reconciles ended by their timeout');
      expect(mostAtOnce).toBe(3);
      expect(reasons.every((r) => r instanceof Error && /timed out after 300 ms/.test(r.message))).toBe(true);
    } finally {
      ac.abort();
      await done;
    }
  });
});
