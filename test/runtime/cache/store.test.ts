import { describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  NAMESPACE_INDEX,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  newIndexer,
  newStore,
  splitMetaNamespaceKey,
} from '../../../src/runtime/cache/index.js';
import type { KubeObject } from '../../../src/runtime/rest/index.js';

const obj = (name: string, namespace?: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace, labels },
});
const byApp = (o: KubeObject): string[] => (o.metadata?.labels?.app ? [o.metadata.labels.app] : []);

describe('keys', () => {
  it('keys namespaced objects as namespace/name and cluster-scoped ones as name', () => {
    expect(metaNamespaceKeyFunc(obj('a', 'ns'))).toBe('ns/a');
    expect(metaNamespaceKeyFunc(obj('node-1'))).toBe('node-1');
    expect(metaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/gone', obj('gone', 'ns')))).toBe('ns/gone');
    expect(splitMetaNamespaceKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitMetaNamespaceKey('a')).toEqual({ namespace: '', name: 'a' });
    expect(() => splitMetaNamespaceKey('a/b/c')).toThrow();
  });
});

describe('Store', () => {
  it('adds, updates, gets, lists and deletes by key', () => {
    const s = newStore();
    s.add(obj('a', 'ns'));
    s.add(obj('b', 'ns'));
    s.update({ ...obj('a', 'ns'), kind: 'X' });
    expect(s.getByKey('ns/a')?.kind).toBe('X');
    expect(s.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    s.delete(obj('a', 'ns'));
    expect(s.get(obj('a', 'ns'))).toBeUndefined();
    s.delete(new DeletedFinalStateUnknown('ns/b', obj('b', 'ns')));
    expect(s.list()).toEqual([]);
  });

  it('replace swaps the whole content', () => {
    const s = newStore();
    s.add(obj('old', 'ns'));
    s.replace([obj('x', 'ns'), obj('y', 'ns')], '5');
    expect(s.listKeys().sort()).toEqual(['ns/x', 'ns/y']);
  });
});

describe('Indexer', () => {
  it('finds objects by index value and follows label changes', () => {
    const ix = newIndexer({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc, app: byApp });
    ix.add(obj('a', 'ns1', { app: 'web' }));
    ix.add(obj('b', 'ns2', { app: 'web' }));
    ix.add(obj('c', 'ns1', { app: 'db' }));
    expect(
      ix
        .byIndex('app', 'web')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(
      ix
        .byIndex(NAMESPACE_INDEX, 'ns1')
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['a', 'c']);
    ix.update(obj('a', 'ns1', { app: 'db' }));
    expect(ix.indexKeys('app', 'web')).toEqual(['ns2/b']);
    expect(ix.indexKeys('app', 'db').sort()).toEqual(['ns1/a', 'ns1/c']);
    expect(ix.index('app', obj('q', 'x', { app: 'db' })).length).toBe(2);
    ix.delete(obj('b', 'ns2'));
    expect(ix.listIndexFuncValues('app')).toEqual(['db']);
  });

  it('indexes existing objects when indexers are added later', () => {
    const ix = newIndexer();
    ix.add(obj('a', 'ns', { app: 'web' }));
    ix.addIndexers({ app: byApp });
    expect(ix.byIndex('app', 'web')).toHaveLength(1);
    expect(() => ix.addIndexers({ app: byApp })).toThrow(/conflict/);
  });

  it('rebuilds indices on replace and rejects unknown index names', () => {
    const ix = newIndexer({ app: byApp });
    ix.add(obj('a', 'ns', { app: 'web' }));
    ix.replace([obj('b', 'ns', { app: 'db' })], '2');
    expect(ix.byIndex('app', 'web')).toEqual([]);
    expect(ix.byIndex('app', 'db')).toHaveLength(1);
    expect(() => ix.byIndex('nope', 'x')).toThrow(/does not exist/);
  });
});
