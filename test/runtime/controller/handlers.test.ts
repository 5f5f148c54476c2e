import { describe, expect, it } from 'vitest';
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type RequestQueue,
} from '../../../src/runtime/controller/index.js';
import type { Request } from '../../../src/runtime/reconcile/index.js';
import type { KubeObject } from '../../../src/runtime/rest/types.js';
import { settle } from '../../support/eventually.js';

function recorder(): RequestQueue & { reqs: Request[] } {
  const reqs: Request[] = [];
  return { reqs, add: (r) => reqs.push(r), addAfter: (r) => reqs.push(r) };
}

const owned = (
  refs: { apiVersion: string; kind: string; name: string; controller?: boolean }[],
  ns = 'ns',
): KubeObject => ({
  metadata: { name: 'child', namespace: ns, ownerReferences: refs.map((r) => ({ uid: `uid-${r.name}`, ...r })) },
});

describe('event handlers', () => {
  it('EnqueueRequestForObject enqueues the object itself', () => {
    const q = recorder();
    const h = enqueueRequestForObject();
    h.update({ objectOld: { metadata: { name: 'old' } }, objectNew: { metadata: { name: 'a', namespace: 'ns' } } }, q);
    h.delete({ object: { metadata: { name: 'c' } }, deleteStateUnknown: true }, q);
    expect(q.reqs).toEqual([
      { namespace: 'ns', name: 'a' },
      { namespace: '', name: 'c' },
    ]);
  });

  it('EnqueueRequestForOwner enqueues matching owners by group and kind, any version', () => {
    const q = recorder();
    const owner = { group: 'apps.example.com', kind: 'AppService', namespaced: true };
    enqueueRequestForOwner(owner).create(
      {
        object: owned([
          { apiVersion: 'apps.example.com/v1', kind: 'AppService', name: 'one', controller: true },
          { apiVersion: 'apps.example.com/v2', kind: 'AppService', name: 'two' },
          { apiVersion: 'other.example.com/v1', kind: 'AppService', name: 'three' },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'four' },
        ]),
      },
      q,
    );
    expect(q.reqs).toEqual([
      { namespace: 'ns', name: 'one' },
      { namespace: 'ns', name: 'two' },
    ]);
  });

  it('EnqueueRequestForOwner with onlyController ignores non-controller owners, and owners of both versions on update', () => {
    const q = recorder();
    const h = enqueueRequestForOwner({ group: '', kind: 'Node', namespaced: false }, { onlyController: true });
    h.update(
      {
        objectOld: owned([{ apiVersion: 'v1', kind: 'Node', name: 'old', controller: true }]),
        objectNew: owned([
          { apiVersion: 'v1', kind: 'Node', name: 'new', controller: true },
          { apiVersion: 'v1', kind: 'Node', name: 'plain' },
        ]),
      },
      q,
    );
    expect(q.reqs).toEqual([
      { namespace: '', name: 'old' },
      { namespace: '', name: 'new' },
    ]);
  });

  it('EnqueueRequestsFromMapFunc enqueues mapped requests once, also from async maps', async () => {
    const q = recorder();
    const h = enqueueRequestsFromMapFunc((o) => [{ namespace: 'x', name: o.metadata?.labels?.owner ?? 'none' }]);
    h.update(
      { objectOld: { metadata: { labels: { owner: 'a' } } }, objectNew: { metadata: { labels: { owner: 'a' } } } },
      q,
    );
    expect(q.reqs).toEqual([{ namespace: 'x', name: 'a' }]);
    const errors: unknown[] = [];
    const asyncH = enqueueRequestsFromMapFunc(
      async () => [{ namespace: '', name: 'later' }],
      (e) => errors.push(e),
    );
    asyncH.generic({ object: {} }, q);
    await settle();
    expect(q.reqs.at(-1)).toEqual({ namespace: '', name: 'later' });
    enqueueRequestsFromMapFunc(
      () => Promise.reject(new Error('map failed')),
      (e) => errors.push(e),
    ).generic({ object: {} }, q);
    await settle();
    expect(errors).toHaveLength(1);
  });
});
