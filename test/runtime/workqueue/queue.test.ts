import { describe, expect, it } from 'vitest';
import { Queue } from '../../../src/runtime/workqueue/index.js';
import { settle } from '../../support/eventually.js';

async function getItem<T>(q: Queue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.item;
}

describe('Queue', () => {
  it('hands items out in FIFO order and dedupes items not yet handed out', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await getItem(q)).toBe('a');
    expect(await getItem(q)).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('never hands out an item that is processing; one added meanwhile is re-queued once at done', async () => {
    const q = new Queue<string>();
    q.add('a');
    expect(await getItem(q)).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    const pending = q.get().then((r) => (second = r.item));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done('a');
    await pending;
    expect(second).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('resolves a waiting get when an item is added', async () => {
    const q = new Queue<number>();
    const waiting = q.get();
    q.add(7);
    expect(await waiting).toEqual({ item: 7, shutdown: false });
  });

  it('resolves waiting gets with shutdown, hands out what is left, and ignores later adds', async () => {
    const q = new Queue<string>();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toEqual({ item: undefined, shutdown: true });

    const q2 = new Queue<string>();
    q2.add('left');
    q2.shutDown();
    q2.add('ignored');
    expect(q2.shuttingDown()).toBe(true);
    expect(await q2.get()).toEqual({ item: 'left', shutdown: false });
    expect((await q2.get()).shutdown).toBe(true);
  });

  it('shutDownWithDrain resolves only after every handed-out item is done', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    await getItem(q);
    await getItem(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.done('a');
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done('b');
    await drain;
    expect(drained).toBe(true);
  });

  it('shutDown releases a pending drain', async () => {
    const q = new Queue<string>();
    q.add('a');
    await getItem(q);
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    q.shutDown();
    await drain;
    expect(drained).toBe(true);
  });

  it('dedupes by keyOf when items are objects', async () => {
    const q = new Queue<{ namespace: string; name: string }>({ keyOf: (r) => `${r.namespace}/${r.name}` });
    q.add({ namespace: 'ns', name: 'a' });
    q.add({ namespace: 'ns', name: 'a' });
    const item = await getItem(q);
    q.add({ namespace: 'ns', name: 'a' });
    expect(q.len()).toBe(0);
    q.done({ namespace: 'ns', name: 'a' });
    expect(q.len()).toBe(1);
    expect(await getItem(q)).toEqual(item);
  });

  // client-go's TestAddWhileProcessing: producers add, concurrent workers re-add every item while processing it.
  it('processes an item added while processing exactly once more, never concurrently', async () => {
    const q = new Queue<number>();
    const inFlight = new Set<number>();
    const processed = new Map<number, number>();
    const reAdded = new Set<number>();
    const worker = async (): Promise<void> => {
      for (;;) {
        const r = await q.get();
        if (r.shutdown) return;
        const item = r.item;
        expect(inFlight.has(item)).toBe(false);
        inFlight.add(item);
        processed.set(item, (processed.get(item) ?? 0) + 1);
        if (!reAdded.has(item)) {
          reAdded.add(item);
          q.add(item);
          q.add(item);
        }
        await new Promise((r) => setImmediate(r));
        inFlight.delete(item);
        q.done(item);
      }
    };
    const workers = Array.from({ length: 10 }, () => worker());
    for (let i = 0; i < 50; i++) q.add(i);
    while (reAdded.size < 50 || q.len() > 0 || inFlight.size > 0) await new Promise((r) => setImmediate(r));
    await q.shutDownWithDrain();
    q.shutDown();
    await Promise.all(workers);
    for (let i = 0; i < 50; i++) expect(processed.get(i)).toBe(2);
  });

  it('keeps FIFO order across many adds (ring buffer growth)', async () => {
    const q = new Queue<number>();
    for (let i = 0; i < 1000; i++) q.add(i);
    for (let i = 0; i < 500; i++) {
      expect(await getItem(q)).toBe(i);
      q.done(i);
    }
    for (let i = 1000; i < 1500; i++) q.add(i);
    for (let i = 500; i < 1500; i++) expect(await getItem(q)).toBe(i);
  });
});
