// What the manager caches, and how reads see it, on a real API server: per-kind selectors and namespaces (byObject),
// a default label selector, kinds read live (disableFor), metadata-only watches, and reads without deep copies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { Manager, newClient, newControllerManagedBy, type ManagerOptions } from '../../../src/runtime/index.js';
import { ConfigMaps, Namespaces, Secrets, isNotFound, type RestClient } from '../../../src/runtime/rest/index.js';
import { setControllerReference } from '../../../src/runtime/client/index.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

let env: TestEnvironment;
let api: RestClient;
const OURS = 'app.kubernetes.io/managed-by=scoping-test';

beforeAll(async () => {
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
  for (const name of ['scope-a', 'scope-b'])
    await api.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const ns of ['scope-a', 'scope-b']) {
    await api.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ours', namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'scoping-test' } },
      stringData: { k: 'v' },
    });
    await api.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'theirs', namespace: ns },
      stringData: { k: 'v' },
    });
    await api.create(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: ns, labels: { tier: 'web' } },
    });
    await api.create(ConfigMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: ns } });
  }
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

/** Runs a manager with `opts` while `body` runs, then stops it. */
async function withManager(
  opts: Partial<ManagerOptions>,
  body: (mgr: Manager) => Promise<void>,
  setup: (mgr: Manager) => void = () => {},
): Promise<void> {
  const logs = captureLog('manager');
  const mgr = new Manager({ kubeConfig: env.kubeConfig, log: logs.log, ...opts });
  setup(mgr);
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  try {
    await mgr.elected();
    await body(mgr);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${logs.tail()}`, { cause: err });
  } finally {
    ac.abort();
    await done;
  }
}

const names = (list: { items: Array<{ metadata?: { namespace?: string; name?: string } }> }): string[] =>
  list.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

describe('the manager cache', () => {
  it('caches a kind with its own label selector and namespaces (byObject); reads see only what is cached', async () => {
    await withManager(
      { cache: { byObject: [{ resource: Secrets, labelSelector: OURS, namespaces: ['scope-a'] }] } },
      async (mgr) => {
        const client = mgr.getClient();
        expect(names(await client.list(Secrets, { namespace: 'scope-a' }))).toEqual(['scope-a/ours']);
        await expect(client.get(Secrets, { namespace: 'scope-a', name: 'theirs' })).rejects.toSatisfy(isNotFound);
        await expect(client.list(Secrets, { namespace: 'scope-b' })).rejects.toThrow(
          /namespace scope-b is not covered by the cache/,
        );
        // Other kinds keep the defaults: every namespace, every object.
        expect(names(await client.list(ConfigMaps, { labelSelector: 'tier' }))).toEqual(['scope-a/cm', 'scope-b/cm']);
      },
    );
  });

  it('applies the default label selector to every kind without a byObject entry', async () => {
    await withManager(
      { cache: { defaultLabelSelector: 'tier=web', byObject: [{ resource: Secrets, labelSelector: OURS }] } },
      async (mgr) => {
        const client = mgr.getClient();
        expect(names(await client.list(ConfigMaps))).toEqual(['scope-a/cm', 'scope-b/cm']);
        expect(names(await client.list(Secrets))).toEqual(['scope-a/ours', 'scope-b/ours']);
      },
    );
  });

  it('reads the kinds of disableFor from the API server, with no informer for them', async () => {
    await withManager(
      { cache: { defaultLabelSelector: 'tier=web' }, client: { cache: { disableFor: [ConfigMaps] } } },
      async (mgr) => {
        const client = mgr.getClient();
        // The API server has every ConfigMap: the cache's selector does not apply to a live read.
        expect(
          names(await client.list(ConfigMaps, { namespace: 'scope-a' })).filter((n) => !n.endsWith('kube-root-ca.crt')),
        ).toEqual(['scope-a/cm', 'scope-a/other']);
        expect((await client.get(ConfigMaps, { namespace: 'scope-b', name: 'other' })).metadata?.name).toBe('other');
        expect(mgr.getCache().informedKinds()).toEqual([]);
      },
    );
  });

  it('hands out the cached objects themselves when deep copies are turned off, and copies otherwise', async () => {
    await withManager({ cache: { unsafeDisableDeepCopy: true } }, async (mgr) => {
      const key = { namespace: 'scope-a', name: 'cm' };
      expect(await mgr.getClient().get(ConfigMaps, key)).toBe(await mgr.getClient().get(ConfigMaps, key));
    });
    await withManager({}, async (mgr) => {
      const key = { namespace: 'scope-a', name: 'cm' };
      const a = await mgr.getClient().get(ConfigMaps, key);
      expect(await mgr.getClient().get(ConfigMaps, key)).not.toBe(a);
    });
  });
});

describe('metadata-only watches', () => {
  it('owns() a kind by its metadata only: owner changes reconcile, reads give PartialObjectMetadata, no full informer', async () => {
    const owner = await api.get(ConfigMaps, { namespace: 'scope-b', name: 'cm' });
    const owned = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'owned', namespace: 'scope-b' },
      stringData: { password: 'hunter2' },
    };
    setControllerReference(owner, owned);
    await api.create(Secrets, owned);
    const reconciled: string[] = [];
    await withManager(
      {},
      async (mgr) => {
        await eventually(() => reconciled.includes('scope-b/cm'), 'the owner to be reconciled');
        reconciled.length = 0;
        await api.patch(
          Secrets,
          { namespace: 'scope-b', name: 'owned' },
          { metadata: { labels: { touched: 'yes' } } },
          { type: 'merge' },
        );
        await eventually(
          () => reconciled.includes('scope-b/cm'),
          'a change of the owned Secret to reconcile its owner',
        );
        const meta = await mgr.getClient().getMetadata(Secrets, { namespace: 'scope-b', name: 'owned' });
        expect(meta.kind).toBe('PartialObjectMetadata');
        expect(meta.metadata.ownerReferences?.[0]?.name).toBe('cm');
        expect((meta as unknown as { data?: unknown }).data).toBeUndefined();
        expect(mgr.getCache().informedKinds().sort()).toEqual(['configmaps./v1', 'secrets./v1 (metadata)']);
      },
      (mgr) => {
        newControllerManagedBy(mgr)
          .for(ConfigMaps)
          .owns(Secrets, { onlyMetadata: true })
          .complete({
            reconcile: async (req) => {
              reconciled.push(`${req.namespace}/${req.name}`);
              return {};
            },
          });
      },
    );
  });
});
