// docs/guides/reacting-to-changes.md's whole example, as the page prints it, on a real kube-apiserver: what its
// handler makes of the initial list, of an update (old against new) and of a delete (the last state) reaches its
// reconciler in the typed request, and the Deployments roll as the guide says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { Manager, type k8s } from '../../src/runtime/index.js';
import { ConfigMaps, Deployments, Namespaces, newClient, type RestClient } from '../../src/runtime/rest/index.js';
import { eventually } from '../support/eventually.js';
import { loadReloaderExample, type ConfigChange, type ReloaderExample } from './reacting-to-changes-example.js';

let env: TestEnvironment;
let api: RestClient;
let example: ReloaderExample;

beforeAll(async () => {
  example = await loadReloaderExample();
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

/** A Deployment that names `configMap` in the reloader's annotation, its pod template stamped with `hash` if given. */
function deployment(ns: string, name: string, configMap: string, hash?: string): k8s.V1Deployment {
  return {
    metadata: { namespace: ns, name, annotations: { [example.WATCH_ANNOTATION]: configMap } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(hash ? { annotations: { [example.HASH_ANNOTATION]: hash } } : {}) },
        spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
      },
    },
  };
}

const podAnnotations = async (ns: string, name: string): Promise<Record<string, string>> =>
  (await api.get(Deployments, { namespace: ns, name })).spec?.template.metadata?.annotations ?? {};

describe("the reacting-to-changes guide's reloader", () => {
  it('sees the initial list, old and new data, and the last state of a delete, and rolls Deployments by them', async () => {
    const ns = `reload-${process.pid}`;
    await api.create(Namespaces, { metadata: { name: ns } });
    // There before the manager starts: a ConfigMap, a Deployment the reloader stamped with another hash (its data
    // changed while the reloader was down) and one it never stamped.
    await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'at-start' }, data: { a: '1' } });
    await api.create(Deployments, deployment(ns, 'stale', 'at-start', '0000000000000000'));
    await api.create(Deployments, deployment(ns, 'unstamped', 'at-start'));
    await api.create(Deployments, deployment(ns, 'web', 'later'));

    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      cache: { defaultNamespaces: [ns] },
      metrics: { bindAddress: '0' },
      healthProbe: { bindAddress: '0' },
    });
    // The guide's reconciler, and a record of each request it finished.
    const reconciled: ConfigChange[] = [];
    const reloader = new example.Reloader(mgr.getClient());
    example.setupReloader(mgr, {
      async reconcile(req, ctx) {
        await reloader.reconcile(req, ctx);
        reconciled.push(req);
      },
    });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    const of = (name: string): ConfigChange[] => reconciled.filter((r) => r.name === name);
    try {
      await eventually(() => of('at-start').length === 1, 'the initial list reconciled');
      const [initial] = of('at-start');
      expect(initial).toMatchObject({ namespace: ns, change: 'created', keys: ['a'], initial: true });
      // Rolled where the stamp was another hash, left alone where there was none.
      expect(await podAnnotations(ns, 'stale')).toMatchObject({
        [example.HASH_ANNOTATION]: initial!.hash,
        [example.REASON_ANNOTATION]: 'created: a',
      });
      expect(await podAnnotations(ns, 'unstamped')).toEqual({});

      // Made after the start: not in the initial list.
      await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'later' }, data: { a: '1', b: '2' } });
      await eventually(() => of('later').length === 1, 'the create reconciled');
      expect(of('later')[0]).toMatchObject({ change: 'created', keys: ['a', 'b'], initial: false });
      expect(await podAnnotations(ns, 'web')).toMatchObject({ [example.REASON_ANNOTATION]: 'created: a,b' });

      // A label alone changes nothing a pod reads: no request. Then the data: the keys old and new differ in.
      const cm = await api.get(ConfigMaps, { namespace: ns, name: 'later' });
      await api.update(ConfigMaps, { ...cm, metadata: { ...cm.metadata, labels: { tier: 'web' } } });
      const labelled = await api.get(ConfigMaps, { namespace: ns, name: 'later' });
      await api.update(ConfigMaps, { ...labelled, data: { a: '1', b: '3', c: '4' } });
      await eventually(() => of('later').length >= 2, 'the update reconciled');
      const updated = of('later')[1]!;
      expect(updated).toMatchObject({ change: 'updated', keys: ['b', 'c'], initial: false });
      expect(updated.hash).not.toBe(of('later')[0]!.hash);
      expect(await podAnnotations(ns, 'web')).toEqual({
        [example.HASH_ANNOTATION]: updated.hash,
        [example.REASON_ANNOTATION]: 'updated: b,c',
      });

      // Deleted: the request carries the keys of the final state, the one the update made.
      await api.delete(ConfigMaps, { namespace: ns, name: 'later' });
      await eventually(() => of('later').length >= 3, 'the delete reconciled');
      expect(of('later')[2]).toEqual({
        namespace: ns,
        name: 'later',
        change: 'deleted',
        keys: ['a', 'b', 'c'],
        hash: '',
        initial: false,
        stateUnknown: false,
      });
      expect(await podAnnotations(ns, 'web')).toEqual({
        [example.HASH_ANNOTATION]: 'deleted',
        [example.REASON_ANNOTATION]: 'deleted: a,b,c',
      });
      // The label-only update queued nothing: the three requests are the create, the data update and the delete.
      expect(of('later').map((r) => r.change)).toEqual(['created', 'updated', 'deleted']);
    } finally {
      ac.abort();
      await done;
    }
  });
});
