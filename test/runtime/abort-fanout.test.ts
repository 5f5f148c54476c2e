import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/runtime/internal/abort-fanout.js';
import { sleep } from '../../src/runtime/sleep.js';

describe('onAbort', () => {
  it('puts one abort listener on a signal however many callbacks share it', () => {
    const ac = new AbortController();
    const unregister = Array.from({ length: 50 }, () => onAbort(ac.signal, () => undefined));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    for (const u of unregister) u();
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
  });

  it('calls each registered callback once on abort, and none that was unregistered', () => {
    const ac = new AbortController();
    const calls: string[] = [];
    onAbort(ac.signal, () => calls.push('a'));
    const unregisterB = onAbort(ac.signal, () => calls.push('b'));
    onAbort(ac.signal, () => calls.push('c'));
    unregisterB();
    ac.abort();
    ac.abort();
    expect(calls).toEqual(['a', 'c']);
  });

  it('calls a callback registered twice twice, and a callback may unregister another during the abort', () => {
    const ac = new AbortController();
    const calls: string[] = [];
    const twice = (): number => calls.push('twice');
    onAbort(ac.signal, twice);
    onAbort(ac.signal, twice);
    let unregisterLast = (): void => undefined;
    onAbort(ac.signal, () => unregisterLast());
    unregisterLast = onAbort(ac.signal, () => calls.push('last'));
    ac.abort();
    expect(calls).toEqual(['twice', 'twice']);
  });

  it('lets fifty sleeps wait on one signal with a single listener, and ends them all on abort', async () => {
    const ac = new AbortController();
    const sleeps = Array.from({ length: 50 }, () => sleep(60_000, ac.signal));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort();
    expect(await Promise.all(sleeps)).toEqual(Array.from({ length: 50 }, () => false));
  });
});
