import { describe, expect, it } from 'vitest';
import { ExpirationCache, FIFO, Heap, UndeltaStore, ttlPolicy } from '../../../src/runtime/cache/index.js';
import type { KubeObject } from '../../../src/runtime/rest/index.js';

const obj = (name: string, v = 0): KubeObject & { v: number } => ({ metadata: { name, namespace: 'ns' }, v });

describe('FIFO', () => {
  it('keeps one entry per key with the latest object, in first-added order, skipping deleted keys', () => {
    const f = new FIFO<KubeObject & { v: number }>();
    f.add(obj('a', 1));
    f.add(obj('b', 1));
    f.add(obj('a', 2));
    f.add(obj('c', 1));
    f.delete(obj('b'));
    expect([f.tryPop(), f.tryPop(), f.tryPop()].map((o) => o && `${o.metadata?.name}${o.v}`)).toEqual(['a2', 'c1', undefined]);
  });

  it('addIfNotPresent leaves a queued object alone', () => {
    const f = new FIFO<KubeObject & { v: number }>();
    f.add(obj('a', 1));
    f.addIfNotPresent(obj('a', 2));
    expect(f.tryPop()?.v).toBe(1);
  });

  it('replace sets content and order; hasSynced after the replaced items are popped; resync re-queues', async () => {
    const f = new FIFO<KubeObject & { v: number }>();
    f.replace([obj('x'), obj('y')], '1');
    expect(f.hasSynced()).toBe(false);
    expect((await f.pop())?.metadata?.name).toBe('x');
    expect((await f.pop())?.metadata?.name).toBe('y');
    expect(f.hasSynced()).toBe(true);
    const waiting = f.pop();
    f.close();
    expect(await waiting).toBeUndefined();
  });
});

describe('Heap', () => {
  it('pops the smallest first and updates entries in place', async () => {
    const h = new Heap<{ k: string; p: number }>((o) => o.k, (a, b) => a.p < b.p);
    h.add({ k: 'a', p: 5 });
    h.add({ k: 'b', p: 3 });
    h.add({ k: 'c', p: 4 });
    h.update({ k: 'a', p: 1 });
    h.addIfNotPresent({ k: 'b', p: 0 });
    h.delete({ k: 'c', p: 0 });
    expect(h.length).toBe(2);
    expect((await h.pop())?.k).toBe('a');
    expect(h.tryPop()?.k).toBe('b');
    expect(h.tryPop()).toBeUndefined();
  });
});

describe('UndeltaStore', () => {
  it('pushes the whole content after every change', () => {
    const pushed: string[][] = [];
    const s = new UndeltaStore<KubeObject>((all) => pushed.push(all.map((o) => o.metadata!.name!).sort()));
    s.add(obj('a'));
    s.add(obj('b'));
    s.delete(obj('a'));
    s.replace([obj('z')], '2');
    expect(pushed).toEqual([['a'], ['a', 'b'], ['b'], ['z']]);
  });
});

describe('ExpirationCache', () => {
  it('hides and removes entries older than the TTL, and renews them on write', () => {
    let now = 0;
    const c = new ExpirationCache<KubeObject>(ttlPolicy(100), undefined, () => now);
    c.add(obj('a'));
    now = 50;
    c.add(obj('b'));
    now = 120;
    expect(c.getByKey('ns/a')).toBeUndefined();
    expect(c.list().map((o) => o.metadata?.name)).toEqual(['b']);
    c.update(obj('b'));
    now = 200;
    expect(c.get(obj('b'))).toBeDefined();
    expect(c.listKeys()).toEqual(['ns/b']);
  });
});

describe('transforms', () => {
  it('compactObjects strips managedFields and makes equal strings across objects share one copy', async () => {
    const { compactObjects } = await import('../../../src/runtime/cache/index.js');
    const compact = compactObjects<KubeObject & { spec?: { image: string } }>();
    const parse = (): KubeObject & { spec?: { image: string } } =>
      JSON.parse('{"metadata":{"name":"a","uid":"u-1","managedFields":[{"manager":"m"}],"labels":{"app":"web"}},"spec":{"image":"nginx:1"}}');
    const a = compact(parse());
    const b = compact(parse());
    expect(a.metadata?.managedFields).toBeUndefined();
    expect(a).toEqual({ metadata: { name: 'a', uid: 'u-1', labels: { app: 'web' } }, spec: { image: 'nginx:1' } });
    expect(b.spec?.image).toBe(a.spec?.image);
  });

  it('newManagedFieldsSharer makes equal field sets one frozen tree and leaves the object as served', async () => {
    const { newManagedFieldsSharer } = await import('../../../src/runtime/cache/index.js');
    const share = newManagedFieldsSharer<KubeObject>({ maxEntries: 3 });
    const text = (name: string, field: string): string =>
      JSON.stringify({
        metadata: {
          name,
          managedFields: [
            { manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {}, [field]: {} } } },
            { manager: 'm', operation: 'Update', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {} } } },
          ],
        },
        spec: { x: 1 },
      });
    const tree = (o: KubeObject, i: number): object => o.metadata!.managedFields![i]!.fieldsV1 as object;
    const a = share(JSON.parse(text('a', 'f:x')));
    const b = share(JSON.parse(text('b', 'f:x')));
    const c = share(JSON.parse(text('c', 'f:y')));
    expect(JSON.stringify(a)).toBe(text('a', 'f:x'));
    expect(JSON.stringify(c)).toBe(text('c', 'f:y'));
    expect(tree(b, 0)).toBe(tree(a, 0));
    expect(tree(b, 1)).toBe(tree(a, 1));
    expect(tree(c, 0)).not.toBe(tree(a, 0));
    expect(tree(c, 1)).toBe(tree(a, 1));
    // A write into a shared tree throws (ESM is strict) instead of changing every object that shares it.
    expect(() => {
      (tree(a, 0) as Record<string, object>)['f:spec'] = {};
    }).toThrow(TypeError);
    expect(() => {
      ((tree(a, 0) as Record<string, Record<string, object>>)['f:spec'] as Record<string, object>)['f:z'] = {};
    }).toThrow(TypeError);
    // The table is bounded: past maxEntries it starts over, so a new object no longer finds a's tree.
    share(JSON.parse(text('d', 'f:z')));
    const e = share(JSON.parse(text('e', 'f:x')));
    expect(tree(e, 0)).not.toBe(tree(a, 0));
    expect(tree(e, 0)).toEqual(tree(a, 0));
  });

  it('compactObjects with stripManagedFields false keeps managedFields and shares their field sets', async () => {
    const { compactObjects } = await import('../../../src/runtime/cache/index.js');
    const compact = compactObjects<KubeObject>({ stripManagedFields: false });
    const served = '{"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{"f:x":{}}}}]},"spec":{"x":"v"}}';
    const a = compact(JSON.parse(served));
    const b = compact(JSON.parse(served));
    expect(JSON.stringify(a)).toBe(served);
    expect(b.metadata!.managedFields![0]!.fieldsV1).toBe(a.metadata!.managedFields![0]!.fieldsV1);
  });
});
