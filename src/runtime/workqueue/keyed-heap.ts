/** A binary min-heap whose entries are also found by key, so they can be updated or removed in O(log n). */
export class KeyedHeap<K, V> {
  private readonly keys: K[] = [];
  private readonly values: V[] = [];
  private readonly index = new Map<K, number>();

  constructor(private readonly less: (a: V, b: V) => boolean) {}

  get size(): number {
    return this.keys.length;
  }

  has(key: K): boolean {
    return this.index.has(key);
  }

  get(key: K): V | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.values[i];
  }

  /** Inserts or replaces the value under key. */
  set(key: K, value: V): void {
    const i = this.index.get(key);
    if (i !== undefined) {
      this.values[i] = value;
      this.fix(i);
      return;
    }
    this.keys.push(key);
    this.values.push(value);
    this.index.set(key, this.keys.length - 1);
    this.up(this.keys.length - 1);
  }

  peek(): V | undefined {
    return this.values[0];
  }

  peekKey(): K | undefined {
    return this.keys[0];
  }

  pop(): { key: K; value: V } | undefined {
    if (this.keys.length === 0) return undefined;
    const key = this.keys[0] as K;
    const value = this.values[0] as V;
    this.removeAt(0);
    return { key, value };
  }

  delete(key: K): boolean {
    const i = this.index.get(key);
    if (i === undefined) return false;
    this.removeAt(i);
    return true;
  }

  clear(): void {
    this.keys.length = 0;
    this.values.length = 0;
    this.index.clear();
  }

  *entries(): IterableIterator<[K, V]> {
    for (let i = 0; i < this.keys.length; i++) yield [this.keys[i] as K, this.values[i] as V];
  }

  private removeAt(i: number): void {
    const last = this.keys.length - 1;
    this.index.delete(this.keys[i] as K);
    if (i !== last) {
      this.move(last, i);
      this.keys.length = last;
      this.values.length = last;
      this.fix(i);
    } else {
      this.keys.length = last;
      this.values.length = last;
    }
  }

  private fix(i: number): void {
    if (!this.down(i)) this.up(i);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.values[i] as V, this.values[parent] as V)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i0: number): boolean {
    let i = i0;
    const n = this.keys.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      const r = l + 1;
      if (r < n && this.less(this.values[r] as V, this.values[l] as V)) m = r;
      if (!this.less(this.values[m] as V, this.values[i] as V)) break;
      this.swap(i, m);
      i = m;
    }
    return i > i0;
  }

  private move(from: number, to: number): void {
    this.keys[to] = this.keys[from] as K;
    this.values[to] = this.values[from] as V;
    this.index.set(this.keys[to] as K, to);
  }

  private swap(a: number, b: number): void {
    const k = this.keys[a] as K;
    const v = this.values[a] as V;
    this.keys[a] = this.keys[b] as K;
    this.values[a] = this.values[b] as V;
    this.keys[b] = k;
    this.values[b] = v;
    this.index.set(this.keys[a] as K, a);
    this.index.set(k, b);
  }
}
