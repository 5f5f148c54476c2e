// The priority queue on a real API server: a change made while a controller works through its initial list is
// reconciled next, not behind the list, as controller-runtime v0.23+ does; with usePriorityQueue: false (client-go's
// first-in first-out queue) it waits its turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { ConfigMaps, Namespaces, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { Manager, newControllerManagedBy } from '../../../src/runtime/index.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';

const OBJECTS = 60;
let env: TestEnvironment;
let api: RestClient;
let seq = 0;

beforeAll(async () => {
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

const nameOf = (i: number): string => `cm-${String(i).padStart(3, '0')}`;

/**
 * Starts a manager over OBJECTS ConfigMaps with one worker whose first reconcile waits until the last listed object
 * has been edited and the edit is in the cache; returns the order of reconciles once every object has been
 * reconciled.
 */
async function firstPassWithAnEdit(usePriorityQueue: boolean): Promise<{ order: string[] }> {
  const ns = `prio-${process.pid}-${++seq}`;
  await api.create(Namespaces, { metadata: { name: ns } });
  for (let i = 0; i < OBJECTS; i++)
    await api.create(ConfigMaps, { metadata: { namespace: ns, name: nameOf(i) }, data: { v: '0' } });
  const last = nameOf(OBJECTS - 1);
  const mgr = new Manager({
    kubeConfig: env.kubeConfig,
    log: captureLog('priority').log,
    cache: { defaultNamespaces: [ns] },
    metrics: { bindAddress: '0' },
    healthProbe: { bindAddress: '0' },
  });
  const order: string[] = [];
  let firstStarted = false;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  newControllerManagedBy(mgr)
    .named(`prio-${seq}`)
    .for(ConfigMaps)
    .withOptions({ maxConcurrentReconciles: 1, usePriorityQueue })
    .complete({
      async reconcile(req) {
        if (!firstStarted) {
          firstStarted = true;
          await released;
        }
        order.push(req.name);
      },
    });
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  try {
    await eventually(() => firstStarted, 'the first reconcile');
    // The edit, made while the first reconcile holds the only worker; released once the cache has seen it.
    await api.patch(ConfigMaps, { namespace: ns, name: last }, { data: { v: '1' } }, { type: 'merge' });
    await eventually(async () => {
      const cm = await mgr.getClient().get(ConfigMaps, { namespace: ns, name: last });
      return cm.data?.v === '1';
    }, 'the edit in the cache');
    release();
    await eventually(() => new Set(order).size === OBJECTS, `all ${OBJECTS} reconciled`);
    return { order };
  } finally {
    ac.abort();
    await done;
  }
}

describe('the priority queue, on a first pass', () => {
  it('reconciles an object edited during the first pass before the rest of the initial list', async () => {
    const { order } = await firstPassWithAnEdit(true);
    // The first reconcile was already running; the edited object, listed last, comes right after it.
    expect(order[1]).toBe(nameOf(OBJECTS - 1));
    expect(order.filter((n) => n === nameOf(OBJECTS - 1))).toHaveLength(1);
  });

  it('leaves the edited object at its place in the list with usePriorityQueue: false', async () => {
    const { order } = await firstPassWithAnEdit(false);
    expect(order.indexOf(nameOf(OBJECTS - 1))).toBe(OBJECTS - 1);
  });
});
