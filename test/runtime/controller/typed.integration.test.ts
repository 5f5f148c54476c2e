// A controller whose requests are of the user's own type (controller-runtime's TypedReconciler), on a real API
// server: handlers map events to `{ cluster, namespace, name }`, requests are deduplicated by their key, the
// reconciler receives them as made, and its log lines carry the request's members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { enqueueRequestsFromMapFunc, type Builder } from '../../../src/runtime/controller/index.js';
import { Manager, newTypedControllerManagedBy } from '../../../src/runtime/index.js';
import { ConfigMaps, Namespaces, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { typedRequestKey } from '../../../src/runtime/reconcile/index.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

interface ClusterRequest {
  cluster: string;
  namespace: string;
  name: string;
}

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

describe('a typed controller', () => {
  it('reconciles requests of its own type, mapped from events, deduplicated by key, logged with their members', async () => {
    const ns = `typed-${process.pid}`;
    await api.create(Namespaces, { metadata: { name: ns } });
    await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'a' }, data: { v: '1' } });
    const logs = captureLog('typed');
    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      log: logs.log,
      cache: { defaultNamespaces: [ns] },
      metrics: { bindAddress: '0' },
      healthProbe: { bindAddress: '0' },
    });
    const seen: ClusterRequest[] = [];
    newTypedControllerManagedBy<ClusterRequest>(mgr)
      .named('typed')
      .watches(
        ConfigMaps,
        // Two requests per object, one of them twice: the queue keeps each key once.
        enqueueRequestsFromMapFunc((cm) => {
          const key = { namespace: cm.metadata?.namespace ?? '', name: cm.metadata?.name ?? '' };
          return [
            { cluster: 'east', ...key },
            { cluster: 'west', ...key },
            { cluster: 'east', ...key },
          ];
        }),
      )
      .complete({
        async reconcile(req, ctx) {
          seen.push(req);
          ctx.log.info('reconciled a typed request');
        },
      });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await eventually(() => seen.length >= 2, 'two reconciles');
      expect(seen.map((r) => r.cluster).sort()).toEqual(['east', 'west']);
      expect(seen[0]).toEqual({ cluster: seen[0]!.cluster, namespace: ns, name: 'a' });
      expect(Object.isFrozen(seen[0])).toBe(true);
      const lines = logs.lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'reconciled a typed request');
      expect(lines.map((l) => l.cluster).sort()).toEqual(['east', 'west']);
      expect(lines[0]).toMatchObject({ namespace: ns, name: 'a', controller: 'typed' });
      expect(typeof lines[0]!.reconcileID).toBe('string');
    } finally {
      ac.abort();
      await done;
    }
  });

  it('keys a Request by namespace/name and any other request by its JSON', () => {
    expect(typedRequestKey({ namespace: 'ns', name: 'a' })).toBe('ns/a');
    expect(typedRequestKey({ namespace: '', name: 'a' })).toBe('a');
    expect(typedRequestKey({ cluster: 'east', namespace: 'ns', name: 'a' })).toBe(
      '{"cluster":"east","namespace":"ns","name":"a"}',
    );
  });

  it('offers for() and owns() only on a builder of Requests: on another, calling them does not compile', () => {
    const mgr = new Manager({ kubeConfig: env.kubeConfig, log: captureLog('typed-types').log });
    const typed: Builder<ClusterRequest> = newTypedControllerManagedBy<ClusterRequest>(mgr);
    // The checks are the type checker's (the test files are type-checked): each line below must fail to compile.
    const calls = [
      // @ts-expect-error for() enqueues Requests, which a Builder<ClusterRequest> cannot take.
      () => typed.for(ConfigMaps),
      // @ts-expect-error owns() enqueues Requests too.
      () => typed.owns(ConfigMaps),
    ];
    expect(calls).toHaveLength(2);
  });
});
