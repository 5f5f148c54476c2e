import { describe, expect, it } from 'vitest';
import { newLogger } from '../../../src/runtime/log/index.js';
import { Manager, runnableFunc, type ManagerOptions } from '../../../src/runtime/manager/index.js';
import { parseBindAddress } from '../../../src/runtime/internal/serve.js';
import { eventually, settle } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';
import { deferred } from '../controller/fakes.js';
import { unreachableKubeConfig } from '../kubeconfig.js';

/** These tests never reach the API. */
const mk = (o: Partial<ManagerOptions> = {}) =>
  new Manager({ kubeConfig: unreachableKubeConfig(), log: newLogger({ sink: () => {} }), ...o });

describe('Manager lifecycle', () => {
  it('requires a leader election ID with leader election', () => {
    expect(() => mk({ leaderElection: { enabled: true } })).toThrow(
      'leaderElection.id must be configured when leader election is enabled',
    );
  });

  it('starts runnables, stops them on abort and waits for them', async () => {
    const mgr = mk();
    const events: string[] = [];
    const stopping = deferred();
    mgr.add(
      runnableFunc(async (signal) => {
        events.push('start');
        await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
        // Still cleaning up when the manager is asked to stop: the manager must wait for it.
        await stopping.promise;
        events.push('stopped');
      }),
    );
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    await eventually(() => events.includes('start'), 'the runnable to start');
    ac.abort();
    let stopped = false;
    void done.then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    stopping.resolve();
    await done;
    expect(events).toEqual(['start', 'stopped']);
  });

  it('stops and rejects with the error of a failing runnable', async () => {
    const mgr = mk();
    let otherStopped = false;
    mgr.add(
      runnableFunc(
        async (s) => new Promise<void>((r) => s.addEventListener('abort', () => ((otherStopped = true), r()))),
      ),
    );
    mgr.add(runnableFunc(async () => Promise.reject(new Error('boom'))));
    await expect(mgr.start(new AbortController().signal)).rejects.toThrow('boom');
    expect(otherStopped).toBe(true);
  });

  it('gives up on runnables that outlive the graceful shutdown timeout', async () => {
    const logs = captureLog('manager');
    const mgr = new Manager({ kubeConfig: unreachableKubeConfig(), log: logs.log, gracefulShutdownTimeout: 20 });
    const never = deferred();
    mgr.add(runnableFunc(() => never.promise));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    ac.abort();
    // start() settles although the runnable never finished, and says it gave up.
    await expect(done).resolves.toBeUndefined();
    expect(logs.lines.some((l) => l.includes('graceful shutdown timed out; some runnables did not finish'))).toBe(true);
    never.resolve();
  });

  it('leads from start to stop when leader election is off', async () => {
    const mgr = mk();
    expect(mgr.isLeader()).toBe(false);
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    expect(mgr.isLeader()).toBe(true);
    ac.abort();
    await done;
    expect(mgr.isLeader()).toBe(false);
  });

  it('takes the leader election identity it is given, else a unique hostname_UUID', () => {
    expect(mk({ leaderElection: { enabled: true, id: 'x', identity: 'me' } }).identity).toBe('me');
    const [a, b] = [mk(), mk()];
    expect(a.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
    expect(a.identity).not.toBe(b.identity);
  });

  it('adds runnables after start to the running group', async () => {
    const mgr = mk();
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    let started = false;
    mgr.add(runnableFunc(async () => void (started = true)));
    await eventually(() => started);
    ac.abort();
    await done;
  });

  it('refuses a second start and duplicate checks', async () => {
    const mgr = mk();
    mgr.addHealthzCheck('a', () => {});
    expect(() => mgr.addHealthzCheck('a', () => {})).toThrow(/already exists/);
    const ac = new AbortController();
    ac.abort();
    await mgr.start(ac.signal);
    await expect(mgr.start(ac.signal)).rejects.toThrow(/already started/);
  });

  it('parses bind addresses', () => {
    expect(parseBindAddress(':8080')).toEqual({ host: undefined, port: 8080 });
    expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
    expect(() => parseBindAddress('8080')).toThrow(/invalid bind address/);
  });
});
