import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/runtime/rest/index.js';

describe('transforms', () => {
  it('compactObjects strips managedFields and makes equal strings across objects share one copy', async () => {
    const { compactObjects } = await import('../../../src/runtime/cache/index.js');
    const compact = compactObjects<KubeObject & { spec?: { image: string } }>();
    const parse = (): KubeObject & { spec?: { image: string } } =>
      JSON.parse(
        '{"metadata":{"name":"a","uid":"u-1","managedFields":[{"manager":"m"}],"labels":{"app":"web"}},"spec":{"image":"nginx:1"}}',
      );
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
            {
              manager: 'm',
              operation: 'Update',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { '.': {}, [field]: {} } },
            },
            {
              manager: 'm',
              operation: 'Update',
              subresource: 'status',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:status': { 'f:phase': {} } },
            },
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
    const served =
      '{"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{"f:x":{}}}}]},"spec":{"x":"v"}}';
    const a = compact(JSON.parse(served));
    const b = compact(JSON.parse(served));
    expect(JSON.stringify(a)).toBe(served);
    expect(b.metadata!.managedFields![0]!.fieldsV1).toBe(a.metadata!.managedFields![0]!.fieldsV1);
  });
});
