// The handler of docs/guides/reacting-to-changes.md's example, driven through a kind source as the informer drives
// it, without a cluster: a tombstone from a relist, updates compared old against new, and the initial list.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
} from '../../src/runtime/cache/index.js';
import { KindSource, type InformerProvider, type RequestQueue } from '../../src/runtime/controller/index.js';
import type { k8s } from '../../src/runtime/index.js';
import { ConfigMaps } from '../../src/runtime/rest/index.js';
import { LOW_PRIORITY } from '../../src/runtime/workqueue/index.js';
import { loadReloaderExample, type ConfigChange, type ReloaderExample } from './reacting-to-changes-example.js';

let example: ReloaderExample;
beforeAll(async () => {
  example = await loadReloaderExample();
});

/** An informer of one handler that the test calls by hand, as a SharedIndexInformer's listener would. */
function fakeInformer(): { provider: InformerProvider; handler: () => ResourceEventHandler<k8s.V1ConfigMap> } {
  let registered: ResourceEventHandler<k8s.V1ConfigMap> | undefined;
  const registration: ResourceEventHandlerRegistration = { hasSynced: () => true, remove: () => {} };
  const provider = {
    getInformer: () => ({
      addEventHandler(h: ResourceEventHandler<k8s.V1ConfigMap>) {
        registered = h;
        return registration;
      },
    }),
  } as unknown as InformerProvider;
  return {
    provider,
    handler: () => {
      if (!registered) throw new Error('the source registered no handler');
      return registered;
    },
  };
}

/** A kind source for ConfigMaps with the example's handler, started on a queue that records what it is given. */
async function started(): Promise<{
  informer: ResourceEventHandler<k8s.V1ConfigMap>;
  queued: { req: ConfigChange; priority: number | undefined }[];
}> {
  const fake = fakeInformer();
  const source = new KindSource(fake.provider, ConfigMaps, example.configChanges);
  const queued: { req: ConfigChange; priority: number | undefined }[] = [];
  const queue: RequestQueue<ConfigChange> = {
    add: (req, priority) => void queued.push({ req, priority }),
    addAfter: () => {
      throw new Error('the handler queues nothing later');
    },
  };
  await source.start(new AbortController().signal, queue);
  return { informer: fake.handler(), queued };
}

const configMap = (data: Record<string, string>, labels: Record<string, string> = {}): k8s.V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'team', name: 'app-config', labels },
  data,
});

describe("the reacting-to-changes guide's handler", () => {
  it('turns a DeletedFinalStateUnknown into a delete of the last known state, flagged stateUnknown', async () => {
    const { informer, queued } = await started();
    // What a relist delivers for an object whose DELETED event the broken watch never brought.
    const last = configMap({ a: '1', b: '2' });
    await informer.onDelete!(new DeletedFinalStateUnknown('team/app-config', last));
    // A delete the watch did see, for comparison.
    await informer.onDelete!(configMap({ c: '3' }));
    expect(queued.map((q) => q.req)).toEqual([
      {
        namespace: 'team',
        name: 'app-config',
        change: 'deleted',
        keys: ['a', 'b'],
        hash: '',
        initial: false,
        stateUnknown: true,
      },
      {
        namespace: 'team',
        name: 'app-config',
        change: 'deleted',
        keys: ['c'],
        hash: '',
        initial: false,
        stateUnknown: false,
      },
    ]);
  });

  it('queues an update only when a key of data or binaryData differs between old and new, naming those keys', async () => {
    const { informer, queued } = await started();
    const before = configMap({ a: '1', b: '2' });
    await informer.onUpdate!(before, configMap({ a: '1', b: '2' }, { team: 'blue' }));
    await informer.onUpdate!(before, before);
    expect(queued).toEqual([]);
    await informer.onUpdate!(before, configMap({ a: '1', b: '3', c: '4' }));
    await informer.onUpdate!(before, { ...configMap({ a: '1', b: '2' }), binaryData: { d: 'AA==' } });
    await informer.onUpdate!(before, configMap({ b: '2' }));
    expect(queued.map((q) => [q.req.change, q.req.keys])).toEqual([
      ['updated', ['b', 'c']],
      ['updated', ['d']],
      ['updated', ['a']],
    ]);
    // The hash is of the new data: equal data, equal hash.
    const [changed, withBinary] = queued.map((q) => q.req.hash);
    expect(changed).toMatch(/^[0-9a-f]{16}$/);
    expect(withBinary).not.toBe(changed);
  });

  it('marks the initial list creates initial, queued at low priority, and later creates not', async () => {
    const { informer, queued } = await started();
    await informer.onAdd!(configMap({ b: '2', a: '1' }), true);
    await informer.onAdd!(configMap({ a: '1', b: '2' }), false);
    expect(queued.map((q) => [q.req.change, q.req.keys, q.req.initial, q.priority])).toEqual([
      ['created', ['a', 'b'], true, LOW_PRIORITY],
      ['created', ['a', 'b'], false, undefined],
    ]);
    expect(queued[0]!.req.hash).toBe(queued[1]!.req.hash);
  });
});
