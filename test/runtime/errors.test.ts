import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConfigurationError,
  InvalidObjectError,
  LeaderElectionLostError,
  LifecycleError,
  Manager,
  ShutdownError,
  TimeoutError,
  TransportError,
  isConfigurationError,
  isInvalidObjectError,
  isLeaderElectionLost,
  isLifecycleError,
  isNotFound,
  isShutdownError,
  isTimeoutError,
  isTransportError,
  newControllerManagedBy,
  newLogger,
} from '../../src/runtime/index.js';
import { CacheNotStartedError } from '../../src/runtime/cache/index.js';
import { setControllerReference } from '../../src/runtime/client/index.js';
import { Controller } from '../../src/runtime/controller/index.js';
import { IdleTimeoutError, objectPath } from '../../src/runtime/rest/index.js';
import { defineResource } from '../../src/runtime/rest/resource.js';
import { unreachableKubeConfig } from './kubeconfig.js';

const predicates = {
  ConfigurationError: isConfigurationError,
  InvalidObjectError: isInvalidObjectError,
  LifecycleError: isLifecycleError,
  TimeoutError: isTimeoutError,
  TransportError: isTransportError,
  ShutdownError: isShutdownError,
  LeaderElectionLostError: isLeaderElectionLost,
} as const;

type Name = keyof typeof predicates;

const cause = new Error('the underlying failure');
const instances: Record<Name, Error> = {
  ConfigurationError: new ConfigurationError('a controller needs a name', { cause }),
  InvalidObjectError: new InvalidObjectError('object has no metadata.name', { cause }),
  LifecycleError: new LifecycleError('the manager was already started', 'AlreadyStarted', { cause }),
  TimeoutError: new TimeoutError('timed out after 5 ms', { cause }),
  TransportError: new TransportError('GET /api: the response body is not JSON', 'BadResponse', { cause }),
  ShutdownError: new ShutdownError('received SIGTERM', { cause }),
  LeaderElectionLostError: new LeaderElectionLostError({ cause }),
};

function mgr(): Manager {
  return new Manager({ kubeConfig: unreachableKubeConfig(), log: newLogger({ sink: () => {} }) });
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('the runtime typed errors', () => {
  for (const name of Object.keys(predicates) as Name[]) {
    it(`${name} is an Error, keeps its message, name and cause, and only is${name.replace(/Error$/, '')} recognises it`, () => {
      const e = instances[name];
      expect(e).toBeInstanceOf(Error);
      expect(e.name).toBe(name);
      expect(e.message).not.toBe('');
      expect(e.cause).toBe(cause);
      expect(e.stack).toContain(name);
      for (const [other, is] of Object.entries(predicates)) expect(is(e), `${other} predicate`).toBe(other === name);
      expect(isNotFound(e)).toBe(false);
    });
  }

  it('recognises a typed error wrapped as the cause of another error, and nothing in plain values', () => {
    const wrapped = new Error('reconcile failed', { cause: new Error('inner', { cause: instances.TimeoutError }) });
    expect(isTimeoutError(wrapped)).toBe(true);
    expect(isConfigurationError(wrapped)).toBe(false);
    for (const is of Object.values(predicates)) {
      expect(is(undefined)).toBe(false);
      expect(is('a string')).toBe(false);
      expect(is(new Error('plain'))).toBe(false);
      expect(is(new ApiError({ reason: 'NotFound', code: 404 }))).toBe(false);
    }
    // A cause cycle does not hang the predicates.
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isShutdownError(a)).toBe(false);
  });

  it('LifecycleError and TransportError carry a reason the predicates can narrow on', () => {
    const e = new LifecycleError('the cache was already started', 'AlreadyStarted');
    expect(e.reason).toBe('AlreadyStarted');
    expect(isLifecycleError(e, 'AlreadyStarted')).toBe(true);
    expect(isLifecycleError(e, 'Stopped')).toBe(false);
    const t = new TransportError('webhook server is not reachable: ECONNREFUSED', 'Unreachable');
    expect(isTransportError(t, 'Unreachable')).toBe(true);
    expect(isTransportError(t, 'BadResponse')).toBe(false);
  });

  it('the existing specific errors are kinds of the general ones', () => {
    const notStarted = new CacheNotStartedError();
    expect(isLifecycleError(notStarted, 'NotStarted')).toBe(true);
    expect(notStarted.name).toBe('CacheNotStartedError');
    expect(notStarted.message).toBe('the cache is not started, can not read objects');
    const idle = new IdleTimeoutError(50);
    expect(isTimeoutError(idle)).toBe(true);
    expect(idle).toBeInstanceOf(TimeoutError);
    expect(idle.code).toBe('EIDLETIMEOUT');
    expect(new LeaderElectionLostError().message).toBe('leader election lost');
  });
});

describe('call sites throw the typed errors with their messages', () => {
  const Captains = defineResource({
    group: 'crew.example.com',
    version: 'v1',
    kind: 'Captain',
    plural: 'captains',
    namespaced: true,
  });
  const reconciler = { reconcile: async () => ({}) };

  it('the builder without for() or named() is a ConfigurationError', () => {
    const e = thrown(() => newControllerManagedBy(mgr()).complete(reconciler));
    expect(isConfigurationError(e)).toBe(true);
    expect((e as Error).message).toBe('one of for() or named() must be called');
  });

  it('a controller without a name is a ConfigurationError', () => {
    const e = thrown(() => new Controller({ name: '', reconciler, log: newLogger({ sink: () => {} }) }));
    expect(isConfigurationError(e)).toBe(true);
    expect((e as Error).message).toBe('a controller needs a name');
  });

  it('ManagerOptions without a kubeConfig is a ConfigurationError', () => {
    const e = thrown(() => new Manager({} as never));
    expect(isConfigurationError(e)).toBe(true);
    expect((e as Error).message).toBe('ManagerOptions.kubeConfig is required');
  });

  it('an object path without a namespace for a namespaced kind is an InvalidObjectError', () => {
    const e = thrown(() => objectPath(Captains, undefined, 'kirk'));
    expect(isInvalidObjectError(e)).toBe(true);
    expect((e as Error).message).toBe('Captain kirk: a namespace is required for a namespaced resource');
  });

  it('a cross-namespace owner reference is an InvalidObjectError', () => {
    const owner = {
      apiVersion: 'crew.example.com/v1',
      kind: 'Captain',
      metadata: { name: 'kirk', namespace: 'a', uid: 'u1' },
    };
    const e = thrown(() => setControllerReference(owner, { metadata: { name: 'c', namespace: 'b' } }));
    expect(isInvalidObjectError(e)).toBe(true);
  });

  it('starting a controller twice is a LifecycleError with reason AlreadyStarted', async () => {
    const ctrl = new Controller({ name: 'errors-test-twice', reconciler, log: newLogger({ sink: () => {} }) });
    const ac = new AbortController();
    const first = ctrl.start(ac.signal);
    await expect(ctrl.start(ac.signal)).rejects.toSatisfy((e) => isLifecycleError(e, 'AlreadyStarted'));
    ac.abort();
    await first;
  });
});
