import { describe, expect, it } from 'vitest';
import { TerminalError, isTerminalError, requestKey } from '../../../src/runtime/reconcile/index.js';

describe('reconcile', () => {
  it('keys namespaced requests as ns/name and cluster-scoped ones as name', () => {
    expect(requestKey({ namespace: 'a', name: 'b' })).toBe('a/b');
    expect(requestKey({ namespace: '', name: 'b' })).toBe('b');
  });

  it('recognises a TerminalError anywhere in the cause chain', () => {
    expect(isTerminalError(new TerminalError('bad spec'))).toBe(true);
    expect(isTerminalError(new Error('wrapped', { cause: TerminalError.wrap(new Error('x')) }))).toBe(true);
    expect(isTerminalError(new Error('plain'))).toBe(false);
    expect(isTerminalError('string')).toBe(false);
  });
});
