import type { KubeObject } from '../rest/types.js';
import { metaNamespaceKeyFunc, type DeletedFinalStateUnknown, type KeyFunc } from './keys.js';
import type { Store } from './store.js';

interface TimestampedEntry<T> {
  obj: T;
  timestamp: number;
}

/** Decides whether an entry stored at `timestamp` has expired. */
export interface ExpirationPolicy {
  /** True when an entry written at `timestamp` has expired at `now` (both ms since the epoch). */
  isExpired(timestamp: number, now: number): boolean;
}

/** Entries expire ttlMs after they were last written; a ttl of 0 never expires (client-go's TTLPolicy). */
export function ttlPolicy(ttlMs: number): ExpirationPolicy {
  return { isExpired: (timestamp, now) => ttlMs > 0 && now - timestamp > ttlMs };
}

/** client-go's ExpirationCache: a Store whose entries vanish once the policy says they expired (checked on read). */
export class ExpirationCache<T extends KubeObject> implements Store<T> {
  private readonly items = new Map<string, TimestampedEntry<T>>();

  constructor(
    private readonly policy: ExpirationPolicy,
    private readonly keyOf: KeyFunc<T | DeletedFinalStateUnknown<T>> = metaNamespaceKeyFunc,
    private readonly now: () => number = () => Date.now(),
  ) {}

  add(obj: T): void {
    this.items.set(this.keyOf(obj), { obj, timestamp: this.now() });
  }
  update(obj: T): void {
    this.add(obj);
  }
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.items.delete(this.keyOf(obj));
  }
  replace(items: T[], _resourceVersion: string): void {
    const ts = this.now();
    this.items.clear();
    for (const obj of items) this.items.set(this.keyOf(obj), { obj, timestamp: ts });
  }
  resync(): void {}

  /** Live objects; expired ones are removed on the way. */
  list(): T[] {
    const out: T[] = [];
    for (const key of [...this.items.keys()]) {
      const obj = this.getByKey(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }
  /** Every stored key, expired or not (as client-go). */
  listKeys(): string[] {
    return [...this.items.keys()];
  }
  get(obj: T): T | undefined {
    return this.getByKey(this.keyOf(obj));
  }
  getByKey(key: string): T | undefined {
    const e = this.items.get(key);
    if (!e) return undefined;
    if (this.policy.isExpired(e.timestamp, this.now())) {
      this.items.delete(key);
      return undefined;
    }
    return e.obj;
  }
}
