/** A growable ring buffer: O(1) push and shift without Array#shift's copying. */
export class Deque<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private size = 0;
  private mask: number;
  private readonly initialCapacity: number;

  constructor(initialCapacity = 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.initialCapacity = cap;
    this.buf = new Array<T | undefined>(cap);
    this.mask = cap - 1;
  }

  get length(): number {
    return this.size;
  }

  push(v: T): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & this.mask] = v;
    this.size++;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const v = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    // A burst (an initial list of 50,000 keys) must not pin its buffer for the life of the queue.
    if (this.size === 0 && this.buf.length > 4096) this.reset();
    return v;
  }

  peek(): T | undefined {
    return this.size === 0 ? undefined : this.buf[this.head];
  }

  clear(): void {
    this.reset();
  }

  private reset(): void {
    this.buf = new Array<T | undefined>(this.initialCapacity);
    this.mask = this.initialCapacity - 1;
    this.head = 0;
    this.size = 0;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.size; i++) yield this.buf[(this.head + i) & this.mask] as T;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & this.mask];
    this.buf = next;
    this.head = 0;
    this.mask = next.length - 1;
  }
}
