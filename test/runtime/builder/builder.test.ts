import { describe, expect, it } from 'vitest';
import { newControllerManagedBy } from '../../../src/runtime/builder/index.js';
import {
  GenericSource,
  enqueueRequestForObject,
  generationChangedPredicate,
} from '../../../src/runtime/controller/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { Manager } from '../../../src/runtime/manager/index.js';
import { defineResource } from '../../../src/runtime/rest/resource.js';
import { ConfigMaps, Deployments } from '../../../src/runtime/rest/index.js';
import { unreachableKubeConfig } from '../kubeconfig.js';

function mgr(): Manager {
  return new Manager({ kubeConfig: unreachableKubeConfig(), log: newLogger({ sink: () => {} }) });
}

const Captains = defineResource({
  group: 'crew.example.com',
  version: 'v1',
  kind: 'Captain',
  plural: 'captains',
  namespaced: true,
});
const reconciler = { reconcile: async () => ({}) };

describe('Builder', () => {
  it('names the controller after the for() kind and registers informers for every watched kind', () => {
    const m = mgr();
    const ctrl = newControllerManagedBy(m)
      .for(Captains, { predicates: [generationChangedPredicate] })
      .owns(Deployments)
      .complete(reconciler);
    expect(ctrl.name).toBe('captain');
    expect(ctrl.needLeaderElection()).toBe(true);
    const cache = m.getCache();
    expect(cache.getInformer(Captains).informers.size).toBe(1);
    expect(cache.getInformer(Deployments).informers.size).toBe(1);
  });

  it('uses named() and withOptions()', () => {
    const ctrl = newControllerManagedBy(mgr())
      .watches(ConfigMaps, enqueueRequestForObject())
      .withOptions({ maxConcurrentReconciles: 4, needLeaderElection: false })
      .named('cm')
      .complete(reconciler);
    expect(ctrl.name).toBe('cm');
    expect(ctrl.needLeaderElection()).toBe(false);
  });

  it("takes the manager's controller defaults, a kind's concurrency over the default, and its own options over both", () => {
    const m = new Manager({
      kubeConfig: unreachableKubeConfig(),
      log: newLogger({ sink: () => {} }),
      controller: {
        maxConcurrentReconciles: 3,
        groupKindConcurrency: { 'Captain.crew.example.com': 5, ConfigMap: 2 },
        needLeaderElection: false,
        usePriorityQueue: false,
      },
    });
    const captains = newControllerManagedBy(m).for(Captains).complete(reconciler);
    expect([captains.maxConcurrentReconciles, captains.needLeaderElection(), captains.usePriorityQueue]).toEqual([
      5,
      false,
      false,
    ]);
    expect(newControllerManagedBy(m).for(ConfigMaps).complete(reconciler).maxConcurrentReconciles).toBe(2);
    expect(newControllerManagedBy(m).for(Deployments).complete(reconciler).maxConcurrentReconciles).toBe(3);
    const own = newControllerManagedBy(m)
      .named('own')
      .watches(Deployments, enqueueRequestForObject())
      .withOptions({ maxConcurrentReconciles: 7, usePriorityQueue: true })
      .complete(reconciler);
    expect([own.maxConcurrentReconciles, own.usePriorityQueue]).toEqual([7, true]);
  });

  it('rejects invalid wiring', () => {
    expect(() => newControllerManagedBy(mgr()).complete(reconciler)).toThrow(/for\(\) or named\(\)/);
    expect(() => newControllerManagedBy(mgr()).named('x').complete(reconciler)).toThrow(/no watches/);
    expect(() => newControllerManagedBy(mgr()).owns(Deployments).named('x').complete(reconciler)).toThrow(
      /together with for/,
    );
    expect(() => newControllerManagedBy(mgr()).for(Captains).for(Captains)).toThrow(/only be called once/);
    const m = mgr();
    newControllerManagedBy(m).for(Captains).complete(reconciler);
    expect(() => newControllerManagedBy(m).for(Captains).complete(reconciler)).toThrow(/must be unique/);
    expect(() =>
      newControllerManagedBy(m)
        .watchesRawSource(new GenericSource(enqueueRequestForObject()))
        .named('raw')
        .complete(reconciler),
    ).not.toThrow();
  });

  it('reads() caches a kind without watching it, and the controller waits for its informer before reconciling', async () => {
    const m = mgr();
    const cache = m.getCache();
    expect(cache.informs(Deployments)).toBe(false);
    const reconciled: string[] = [];
    const trigger = new GenericSource(enqueueRequestForObject());
    const ctrl = newControllerManagedBy(m)
      .named('reader')
      .watchesRawSource(trigger)
      .reads(Deployments)
      .reads(Captains, { onlyMetadata: true })
      .withOptions({ cacheSyncTimeout: 50 })
      .complete({
        reconcile: async (req) => {
          reconciled.push(req.name);
          return {};
        },
      });
    // Both informers exist before the manager starts, so its start lists them before any controller runs.
    expect(cache.informs(Deployments)).toBe(true);
    expect(cache.informs(Captains, true)).toBe(true);
    expect(cache.informs(Captains)).toBe(false);
    expect(cache.informedKinds()).toEqual(['deployments.apps/v1', 'captains.crew.example.com/v1 (metadata)']);
    // The cache never runs here, so the read kind never syncs: the controller gives up on it by name, and the
    // request triggered meanwhile is never reconciled.
    const stop = new AbortController();
    const run = ctrl.start(stop.signal);
    trigger.trigger({ metadata: { name: 'queued', namespace: 'default' } });
    await expect(run).rejects.toThrow(/waiting for read kind: apps\/v1, Kind=Deployment to sync/);
    expect(reconciled).toEqual([]);
    stop.abort();
  });

  it('reads() alone does not make a controller that anything triggers', () => {
    expect(() => newControllerManagedBy(mgr()).named('idle').reads(Deployments).complete(reconciler)).toThrow(
      /no watches/,
    );
  });
});
