// The typed errors kept beside their modules each have an isX predicate that follows the cause chain, as the ones in
// src/runtime/errors.ts do: a caller tests for a kind of failure, never for a message.
import { describe, expect, it } from 'vitest';
import { AlreadyOwnedError, isAlreadyOwned } from '../../src/runtime/client/index.js';
import { KubeConfigError, isKubeConfigError } from '../../src/runtime/clientcmd/index.js';
import { SelectorParseError, isSelectorParseError, parseSelector } from '../../src/runtime/rest/index.js';
import { NoKindMatchError, isNoMatch } from '../../src/runtime/restmapper/index.js';
import { ConversionError, isConversionError } from '../../src/runtime/webhook/index.js';

const wrapped = (err: Error): Error => new Error('while doing something', { cause: err });

describe('the predicates of the typed errors beside their modules', () => {
  it('recognise their error, itself or as a cause, and nothing else', () => {
    const cases: Array<[Error, (e: unknown) => boolean]> = [
      [new KubeConfigError('kubeconfig x: no cluster'), isKubeConfigError],
      [new SelectorParseError('bad'), isSelectorParseError],
      [
        new AlreadyOwnedError(
          { metadata: { name: 'a' } },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' },
        ),
        isAlreadyOwned,
      ],
      [new NoKindMatchError('kind g/v1, Kind=K'), isNoMatch],
      [new ConversionError('no spoke'), isConversionError],
    ];
    for (const [err, is] of cases) {
      expect(is(err), err.name).toBe(true);
      expect(is(wrapped(err)), `${err.name} as a cause`).toBe(true);
      expect(is(new Error(err.message)), `a plain Error with ${err.name}'s message`).toBe(false);
      for (const [other] of cases.filter(([o]) => o !== err))
        expect(is(other), `${other.name} is not a ${err.name}`).toBe(false);
    }
  });

  it("tell a KubeConfigError's reason apart", () => {
    const none = new KubeConfigError('no configuration', 'NoConfiguration');
    expect(isKubeConfigError(none, 'NoConfiguration')).toBe(true);
    expect(isKubeConfigError(none, 'Invalid')).toBe(false);
  });

  it('are what parsing a bad selector throws', () => {
    let caught: unknown;
    try {
      parseSelector('a in (b');
    } catch (err) {
      caught = err;
    }
    expect(isSelectorParseError(caught)).toBe(true);
  });
});
