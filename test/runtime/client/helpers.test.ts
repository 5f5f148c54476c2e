import { describe, expect, it } from 'vitest';
import {
  AlreadyOwnedError,
  addFinalizer,
  containsFinalizer,
  createMergePatch,
  createOrPatch,
  createOrUpdate,
  mergeFrom,
  removeFinalizer,
  retryOnConflict,
  setControllerReference,
  setOwnerReference,
} from '../../../src/runtime/client/index.js';
import { ApiError } from '../../../src/runtime/rest/errors.js';
import { defineResource } from '../../../src/runtime/rest/resource.js';
import type { Client } from '../../../src/runtime/client/index.js';
import type { KubeObject, ObjectKey, Resource } from '../../../src/runtime/rest/types.js';

describe('merge patches', () => {
  it('sets changed keys, nulls removed ones, recurses into objects and replaces arrays', () => {
    expect(
      createMergePatch(
        { a: 1, b: { c: 1, d: 2 }, e: [1, 2], gone: 'x', same: { k: 'v' } },
        { a: 2, b: { c: 1, d: 3 }, e: [1], added: true, same: { k: 'v' } },
      ),
    ).toEqual({ a: 2, b: { d: 3 }, e: [1], added: true, gone: null });
  });

  it('adds the original resourceVersion under an optimistic lock', () => {
    const orig = { metadata: { name: 'a', resourceVersion: '7' }, spec: { x: 1 } };
    expect(mergeFrom(orig, { ...orig, spec: { x: 2 } }, { optimisticLock: true })).toEqual({
      spec: { x: 2 },
      metadata: { resourceVersion: '7' },
    });
  });
});

describe('finalizer helpers', () => {
  it('adds once, reports presence, removes', () => {
    const o: KubeObject = { metadata: { name: 'a' } };
    expect(addFinalizer(o, 'x/y')).toBe(true);
    expect(addFinalizer(o, 'x/y')).toBe(false);
    expect(containsFinalizer(o, 'x/y')).toBe(true);
    expect(removeFinalizer(o, 'x/y')).toBe(true);
    expect(removeFinalizer(o, 'x/y')).toBe(false);
    expect(o.metadata?.finalizers).toEqual([]);
  });
});

describe('owner references', () => {
  const owner = {
    apiVersion: 'apps.example.com/v1',
    kind: 'AppService',
    metadata: { name: 'app', namespace: 'ns', uid: 'u1' },
  };

  it('sets a controller reference with blockOwnerDeletion', () => {
    const child: KubeObject = { metadata: { name: 'c', namespace: 'ns' } };
    setControllerReference(owner, child);
    setControllerReference(owner, child);
    expect(child.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps.example.com/v1',
        kind: 'AppService',
        name: 'app',
        uid: 'u1',
        blockOwnerDeletion: true,
        controller: true,
      },
    ]);
  });

  it('refuses a second controller, cross-namespace and cluster-scoped children', () => {
    const child: KubeObject = { metadata: { name: 'c', namespace: 'ns' } };
    setControllerReference(owner, child);
    const other = { ...owner, metadata: { ...owner.metadata, name: 'other', uid: 'u2' } };
    expect(() => setControllerReference(other, child)).toThrow(AlreadyOwnedError);
    setOwnerReference(other, child);
    expect(child.metadata?.ownerReferences).toHaveLength(2);
    expect(() => setControllerReference(owner, { metadata: { name: 'c', namespace: 'elsewhere' } })).toThrow(
      /cross-namespace/,
    );
    expect(() => setControllerReference(owner, { metadata: { name: 'c' } })).toThrow(/cluster-scoped/);
  });

  it('takes apiVersion and kind from ownerType when the owner lacks them', () => {
    const child: KubeObject = { metadata: { name: 'c', namespace: 'ns' } };
    const res = defineResource({
      group: 'apps.example.com',
      version: 'v1',
      kind: 'AppService',
      plural: 'appservices',
      namespaced: true,
    });
    setControllerReference({ metadata: owner.metadata }, child, { ownerType: res });
    expect(child.metadata?.ownerReferences?.[0]?.kind).toBe('AppService');
  });
});

const conflict = () =>
  new ApiError({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'conflict' });

describe('retryOnConflict', () => {
  it('retries conflicts until success and rethrows other errors at once', async () => {
    let n = 0;
    await expect(
      retryOnConflict(async () => {
        n++;
        if (n < 3) throw conflict();
        return n;
      }),
    ).resolves.toBe(3);
    let m = 0;
    await expect(
      retryOnConflict(async () => {
        m++;
        throw new Error('other');
      }),
    ).rejects.toThrow('other');
    expect(m).toBe(1);
  });

  it('gives up after the backoff steps', async () => {
    let n = 0;
    await expect(
      retryOnConflict(
        async () => {
          n++;
          throw conflict();
        },
        { backoff: { steps: 3, duration: 1, factor: 1, jitter: 0 } },
      ),
    ).rejects.toThrow('conflict');
    expect(n).toBe(3);
  });
});

/** Just enough of a client for the create-or-update flows: an in-memory map and a call log. */
class MemoryClient implements Client {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: string[] = [];
  private rv = 1;
  private k(key: ObjectKey): string {
    return `${key.namespace ?? ''}/${key.name}`;
  }
  async get<T extends KubeObject>(_res: Resource<T>, key: ObjectKey): Promise<T> {
    this.calls.push('get');
    const o = this.objects.get(this.k(key));
    if (!o) throw new ApiError({ kind: 'Status', reason: 'NotFound', code: 404, message: 'not found' });
    return structuredClone(o) as T;
  }
  async list(): Promise<never> {
    throw new Error('unused');
  }
  async create<T extends KubeObject>(_res: Resource<T>, obj: T): Promise<T> {
    this.calls.push('create');
    const stored = {
      ...structuredClone(obj),
      metadata: { ...obj.metadata, resourceVersion: String(this.rv++), uid: 'uid' },
    };
    this.objects.set(this.k({ namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' }), stored);
    return structuredClone(stored) as T;
  }
  async update<T extends KubeObject>(_res: Resource<T>, obj: T): Promise<T> {
    this.calls.push('update');
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(this.rv++) } };
    this.objects.set(this.k({ namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' }), stored);
    return structuredClone(stored) as T;
  }
  async patch<T extends KubeObject>(_res: Resource<T>, key: ObjectKey, patch: unknown): Promise<T> {
    this.calls.push(`patch ${JSON.stringify(patch)}`);
    const cur = this.objects.get(this.k(key)) as Record<string, unknown>;
    const merged = { ...cur, ...(patch as Record<string, unknown>) };
    this.objects.set(this.k(key), merged);
    return structuredClone(merged) as unknown as T;
  }
  async apply(): Promise<never> {
    throw new Error('unused');
  }
  async delete(): Promise<void> {}
  status() {
    return {
      apply: (): Promise<never> => this.apply(),
      update: <T extends KubeObject>(res: Resource<T>, obj: T) => this.update(res, obj),
      patch: <T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown) => {
        this.calls.push('status');
        return this.patch(res, key, patch);
      },
    };
  }
}

const ConfigMaps = defineResource<KubeObject & { data?: Record<string, string>; status?: unknown }>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
});

describe('createOrUpdate / createOrPatch', () => {
  it('creates when missing, updates when changed, does nothing when unchanged', async () => {
    const c = new MemoryClient();
    const obj = { metadata: { name: 'cm', namespace: 'ns' } } as KubeObject & { data?: Record<string, string> };
    expect(await createOrUpdate(c, ConfigMaps, obj, (o) => void (o.data = { a: '1' }))).toBe('created');
    expect(obj.metadata?.resourceVersion).toBe('1');
    expect(await createOrUpdate(c, ConfigMaps, obj, (o) => void (o.data = { a: '1' }))).toBe('unchanged');
    expect(await createOrUpdate(c, ConfigMaps, obj, (o) => void (o.data = { a: '2' }))).toBe('updated');
    await expect(createOrUpdate(c, ConfigMaps, obj, (o) => void (o.metadata!.name = 'other'))).rejects.toThrow(
      /cannot mutate/,
    );
  });

  it('patches the object and its status separately', async () => {
    const c = new MemoryClient();
    const obj = { metadata: { name: 'cm', namespace: 'ns' } } as KubeObject & {
      data?: Record<string, string>;
      status?: unknown;
    };
    await createOrPatch(c, ConfigMaps, obj, () => {});
    c.calls.length = 0;
    expect(await createOrPatch(c, ConfigMaps, obj, (o) => void (o.status = { ready: true }))).toBe('updatedStatusOnly');
    expect(c.calls).toEqual(['get', 'status', 'patch {"status":{"ready":true}}']);
    expect(await createOrPatch(c, ConfigMaps, obj, (o) => void (o.data = { x: 'y' }))).toBe('updated');
  });
});
