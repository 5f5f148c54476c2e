import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown, DeltaFIFO, newStore, type Deltas } from '../../../src/runtime/cache/index.js';
import type { KubeObject } from '../../../src/runtime/rest/index.js';

const obj = (name: string, rv = '1'): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });

function popAll(f: DeltaFIFO<KubeObject>): { deltas: Deltas<KubeObject>; initial: boolean }[] {
  const out: { deltas: Deltas<KubeObject>; initial: boolean }[] = [];
  while (f.tryPop((deltas, initial) => out.push({ deltas, initial })));
  return out;
}
const types = (d: Deltas<KubeObject>): string[] => d.map((x) => x.type);

describe('DeltaFIFO', () => {
  it('accumulates the deltas of one key and pops keys in FIFO order', () => {
    const f = new DeltaFIFO<KubeObject>();
    f.add(obj('a'));
    f.add(obj('b'));
    f.update(obj('a', '2'));
    const popped = popAll(f);
    expect(popped.map((p) => types(p.deltas))).toEqual([['Added', 'Updated'], ['Added']]);
    expect(popped[0]!.deltas[1]!.object).toEqual(obj('a', '2'));
  });

  it('collapses consecutive deletes, keeping the one that is not a tombstone', () => {
    const known = newStore();
    known.add(obj('a'));
    const f = new DeltaFIFO<KubeObject>({ knownObjects: known });
    f.delete(obj('a', '3'));
    f.delete(new DeletedFinalStateUnknown('ns/a', obj('a')));
    const [p] = popAll(f);
    expect(types(p!.deltas)).toEqual(['Deleted']);
    expect(p!.deltas[0]!.object).toEqual(obj('a', '3'));
  });

  it('ignores the delete of an object it has never heard of', () => {
    const f = new DeltaFIFO<KubeObject>({ knownObjects: newStore() });
    f.delete(obj('ghost'));
    expect(f.length).toBe(0);
  });

  it('replace emits Replaced for listed items and tombstoned deletes for known keys that are gone', () => {
    const known = newStore();
    known.add(obj('kept'));
    known.add(obj('gone', '4'));
    const f = new DeltaFIFO<KubeObject>({ knownObjects: known });
    f.add(obj('queued-only'));
    popAll(f);
    f.add(obj('queued-gone'));
    f.replace([obj('kept', '5')], '5');
    const byKey = new Map(
      popAll(f).map((p) => [
        (p.deltas[0]!.object as KubeObject).metadata?.name ??
          (p.deltas.at(-1)!.object as DeletedFinalStateUnknown<KubeObject>).key,
        p.deltas,
      ]),
    );
    expect(types(byKey.get('kept')!)).toEqual(['Replaced']);
    const gone = [...byKey.values()].find((d) =>
      d.some((x) => x.object instanceof DeletedFinalStateUnknown && x.object.key === 'ns/gone'),
    )!;
    const tomb = gone.at(-1)!.object as DeletedFinalStateUnknown<KubeObject>;
    expect(tomb.obj).toEqual(obj('gone', '4'));
    const queuedGone = byKey.get('queued-gone')!;
    expect(types(queuedGone)).toEqual(['Added', 'Deleted']);
    expect(queuedGone[1]!.object).toBeInstanceOf(DeletedFinalStateUnknown);
  });

  it('has synced once the first replace is popped, flagging those deltas as initial', () => {
    const f = new DeltaFIFO<KubeObject>({ knownObjects: newStore() });
    expect(f.hasSynced()).toBe(false);
    f.replace([obj('a'), obj('b')], '1');
    expect(f.hasSynced()).toBe(false);
    const first: boolean[] = [];
    f.tryPop((_d, initial) => first.push(initial));
    expect(f.hasSynced()).toBe(false);
    f.add(obj('c'));
    f.tryPop((_d, initial) => first.push(initial));
    expect(f.hasSynced()).toBe(true);
    f.tryPop((_d, initial) => first.push(initial));
    expect(first).toEqual([true, true, false]);
  });

  it('resync re-emits known objects as Sync, except those with queued changes', () => {
    const known = newStore();
    known.add(obj('a'));
    known.add(obj('b'));
    const f = new DeltaFIFO<KubeObject>({ knownObjects: known });
    f.update(obj('b', '9'));
    f.resync();
    const popped = popAll(f).map((p) => types(p.deltas));
    expect(popped).toEqual([['Updated'], ['Sync']]);
  });

  it('applies the transformer to incoming objects, not to resyncs or tombstones', () => {
    let calls = 0;
    const known = newStore();
    known.add(obj('k'));
    const f = new DeltaFIFO<KubeObject>({
      knownObjects: known,
      transformer: (o) => {
        calls++;
        return { ...o, kind: 'T' };
      },
    });
    f.add(obj('a'));
    f.resync();
    f.replace([obj('a')], '2');
    const popped = popAll(f);
    expect(calls).toBe(2);
    expect((popped[0]!.deltas[0]!.object as KubeObject).kind).toBe('T');
  });

  it('wakes a waiting consumer on add and returns false once closed', async () => {
    const f = new DeltaFIFO<KubeObject>();
    const waiting = f.waitForItems();
    f.add(obj('a'));
    expect(await waiting).toBe(true);
    popAll(f);
    const closed = f.waitForItems();
    f.close();
    expect(await closed).toBe(false);
  });
});
