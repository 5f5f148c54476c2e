// The cache on a real API server, for what a controller reads rather than watches: a kind declared with the builder's
// reads() has synced before the controller's first reconcile, and a client that reads its own writes sees its patch
// of a Deployment's pod template at once, where the plain cached read may still show the template before it.
import { describe, expect, it } from 'vitest';
import { Manager, newControllerManagedBy, type Request, type k8s } from '../../../src/runtime/index.js';
import { ConfigMaps, Deployments, Secrets } from '../../../src/runtime/rest/index.js';
import type { KubeObject, Resource } from '../../../src/runtime/rest/types.js';
import { useControlPlane } from '../../support/control-plane.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const cp = useControlPlane();

function manager(ns: string, label: string, client: ConstructorParameters<typeof Manager>[0]['client'] = {}): Manager {
  return new Manager({
    kubeConfig: cp.env.kubeConfig,
    log: captureLog(label).log,
    cache: { defaultNamespaces: [ns] },
    client,
    metrics: { bindAddress: '0' },
    healthProbe: { bindAddress: '0' },
  });
}

function deployment(ns: string, name: string): k8s.V1Deployment {
  return {
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
}

/** How many objects of `res` the manager's cache holds now, and whether their informer has listed, without waiting. */
function cached(mgr: Manager, res: Resource<KubeObject>): { synced: boolean; count: number } {
  const kind = mgr.getCache().getInformer(res);
  const count = [...kind.informers.values()].reduce((n, inf) => n + inf.getIndexer().size, 0);
  return { synced: kind.hasSynced(), count };
}

describe('kinds a controller only reads', () => {
  it("have synced before the first reconcile, for a controller set up before the manager's start and one after", async () => {
    const ns = await cp.namespace('reads');
    const DEPLOYMENTS = 25;
    const SECRETS = 40;
    await Promise.all(
      Array.from({ length: DEPLOYMENTS }, (_, i) => cp.api.create(Deployments, deployment(ns, `d${i}`))),
    );
    await Promise.all(
      Array.from({ length: SECRETS }, (_, i) =>
        cp.api.create(Secrets, { metadata: { name: `s${i}`, namespace: ns }, stringData: { k: 'v' } }),
      ),
    );
    await cp.api.create(ConfigMaps, { metadata: { name: 'config', namespace: ns } });
    const mgr = manager(ns, 'reads');
    // What each reconcile found of its read kind in the cache, in order.
    const seenByBefore: { synced: boolean; count: number }[] = [];
    const seenByAfter: { synced: boolean; count: number }[] = [];
    const onlyConfig = (req: Request): boolean => req.name === 'config';
    newControllerManagedBy(mgr)
      .named('before-start')
      .for(ConfigMaps)
      .reads(Deployments)
      .complete({
        async reconcile(req) {
          if (onlyConfig(req)) seenByBefore.push(cached(mgr, Deployments));
        },
      });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      await mgr.elected();
      // A controller added to a running manager: its for() kind (ConfigMaps) has long synced, Secrets has not started.
      expect(mgr.getCache().informs(Secrets)).toBe(false);
      newControllerManagedBy(mgr)
        .named('after-start')
        .for(ConfigMaps)
        .reads(Secrets)
        .complete({
          async reconcile(req) {
            if (onlyConfig(req)) seenByAfter.push(cached(mgr, Secrets));
          },
        });
      await eventually(() => seenByBefore.length > 0 && seenByAfter.length > 0, 'both controllers to reconcile');
      expect(seenByBefore[0]).toEqual({ synced: true, count: DEPLOYMENTS });
      expect(seenByAfter[0]).toEqual({ synced: true, count: SECRETS });
      expect([...seenByBefore, ...seenByAfter].every((s) => s.synced)).toBe(true);
    } finally {
      stop.abort();
      await done;
    }
  });
});

describe('reading your own writes', () => {
  const ITERATIONS = 40;
  const annotation = 'example.com/restartedAt';

  /** Patches the pod template's annotation ITERATIONS times, reading the Deployment through `read` after each. */
  async function patchAndRead(
    mgr: Manager,
    ns: string,
    read: (key: { namespace: string; name: string }) => Promise<k8s.V1Deployment>,
  ): Promise<{ stale: number }> {
    const client = mgr.getClient();
    const key = { namespace: ns, name: 'web' };
    let stale = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const patch = { spec: { template: { metadata: { annotations: { [annotation]: `${i}` } } } } };
      await client.patch(Deployments, key, patch, { type: 'merge' });
      const got = await read(key);
      if (got.spec?.template.metadata?.annotations?.[annotation] !== `${i}`) stale++;
    }
    return { stale };
  }

  it("shows a patch of the pod template to the client's next read every time", async () => {
    const ns = await cp.namespace('ryw');
    await cp.api.create(Deployments, deployment(ns, 'web'));
    const mgr = manager(ns, 'ryw', { cache: { readYourWrites: true } });
    const client = mgr.getClient();
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      // The informer runs before the first patch, as in a reconcile.
      await client.get(Deployments, { namespace: ns, name: 'web' });
      const own = await patchAndRead(mgr, ns, (key) => client.get(Deployments, key));
      expect(own.stale).toBe(0);
      // Without the option the same loop read the template before the patch in 23 of 40 iterations here.
      // And lists: each sees every patch so far.
      await client.patch(
        Deployments,
        { namespace: ns, name: 'web' },
        { spec: { template: { metadata: { annotations: { [annotation]: 'listed' } } } } },
        { type: 'merge' },
      );
      const listed = await client.list(Deployments, { namespace: ns });
      expect(listed.items.map((d) => d.spec?.template.metadata?.annotations?.[annotation])).toEqual(['listed']);
    } finally {
      stop.abort();
      await done;
    }
  });

  it('sees its own delete of an object at once', async () => {
    const ns = await cp.namespace('ryw-delete');
    const mgr = manager(ns, 'ryw-delete', { cache: { readYourWrites: true } });
    const client = mgr.getClient();
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    try {
      await client.list(ConfigMaps, { namespace: ns });
      for (let i = 0; i < 10; i++) {
        const key = { namespace: ns, name: `cm${i}` };
        await client.create(ConfigMaps, { metadata: key, data: { i: `${i}` } });
        expect((await client.get(ConfigMaps, key)).data?.i).toBe(`${i}`);
        await client.delete(ConfigMaps, key);
        await expect(client.get(ConfigMaps, key)).rejects.toMatchObject({ code: 404 });
      }
    } finally {
      stop.abort();
      await done;
    }
  });
});
