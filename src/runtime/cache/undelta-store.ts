import type { KubeObject } from '../rest/types.js';
import { metaNamespaceKeyFunc, type DeletedFinalStateUnknown, type KeyFunc } from './keys.js';
import { Cache, type Store } from './store.js';

/** client-go's UndeltaStore: a Store that hands the complete new content to push after every change. */
export class UndeltaStore<T extends KubeObject> implements Store<T> {
  private readonly store: Cache<T>;

  constructor(
    private readonly push: (all: T[]) => void,
    keyFunc: KeyFunc<T | DeletedFinalStateUnknown<T>> = metaNamespaceKeyFunc,
  ) {
    this.store = new Cache<T>(keyFunc);
  }

  add(obj: T): void {
    this.store.add(obj);
    this.push(this.store.list());
  }
  update(obj: T): void {
    this.store.update(obj);
    this.push(this.store.list());
  }
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.store.delete(obj);
    this.push(this.store.list());
  }
  replace(items: T[], resourceVersion: string): void {
    this.store.replace(items, resourceVersion);
    this.push(this.store.list());
  }
  resync(): void {}
  list(): T[] {
    return this.store.list();
  }
  listKeys(): string[] {
    return this.store.listKeys();
  }
  get(obj: T): T | undefined {
    return this.store.get(obj);
  }
  getByKey(key: string): T | undefined {
    return this.store.getByKey(key);
  }
}
