import { afterEach, describe, expect, it } from 'vitest';
import { Controller, type ControllerOptions } from '../../../src/runtime/controller/index.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { ApiError } from '../../../src/runtime/rest/errors.js';
import { registry } from '../../../src/runtime/metrics/registry.js';
import {
  TerminalError,
  type ReconcileContext,
  type Request,
  type Result,
} from '../../../src/runtime/reconcile/index.js';
import { FakeSource, RecordingRateLimiter, deferred } from './fakes.js';
import { FixedDelayRateLimiter } from '../../../src/runtime/workqueue/index.js';
import { eventually, settle } from '../../support/eventually.js';

type ReconcileFn = (req: Request, ctx: ReconcileContext) => Promise<Result | void>;

const running: AbortController[] = [];
afterEach(() => {
  for (const ac of running.splice(0)) ac.abort();
});

let seq = 0;
function setup(fn: ReconcileFn, opts: Partial<ControllerOptions> = {}) {
  const source = new FakeSource();
  const limiter = new RecordingRateLimiter();
  const lines: Record<string, unknown>[] = [];
  const log = newLogger({ level: 'debug', sink: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  const ctrl = new Controller({
    name: `test-${++seq}`,
    reconciler: { reconcile: fn },
    rateLimiter: limiter,
    log,
    ...opts,
  });
  void ctrl.watch(source);
  const ac = new AbortController();
  running.push(ac);
  const done = ctrl.start(ac.signal);
  return { ctrl, source, limiter, lines, ac, done };
}

const req = (name: string, namespace = 'ns'): Request => ({ namespace, name });

describe('Controller', () => {
  it('reconciles each request pushed by a source', async () => {
    const seen: string[] = [];
    const { source } = setup(async (r) => {
      seen.push(`${r.namespace}/${r.name}`);
    });
    await eventually(() => source.queue !== undefined, 'source started');
    source.push(req('a'), req('b', ''));
    await eventually(() => seen.length === 2, 'two reconciles');
    expect(seen.sort()).toEqual(['/b', 'ns/a']);
  });

  it('queues the request itself: the reconciler gets a frozen copy, and pushes while it runs fold into one more reconcile', async () => {
    const seen: Request[] = [];
    const gate = deferred();
    const { source } = setup(async (r) => {
      seen.push(r);
      if (seen.length === 1) await gate.promise;
    });
    await eventually(() => source.queue !== undefined, 'source started');
    // Only namespace and name are the request; anything else a source's request object carries stays behind.
    source.push({ ...req('a'), extra: 'dropped' } as Request);
    await eventually(() => seen.length === 1, 'first reconcile');
    source.push(req('a'), req('a'));
    gate.resolve();
    await eventually(() => seen.length === 2, 'one more reconcile for the two pushes');
    await settle();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({ namespace: 'ns', name: 'a' });
    expect(Object.isFrozen(seen[0])).toBe(true);
  });

  it('never reconciles one key twice at once but runs different keys in parallel', async () => {
    const active = new Map<string, number>();
    let overlapSameKey = false;
    let maxParallel = 0;
    let current = 0;
    let calls = 0;
    const gate = deferred();
    const { source } = setup(
      async (r) => {
        calls++;
        const n = (active.get(r.name) ?? 0) + 1;
        active.set(r.name, n);
        if (n > 1) overlapSameKey = true;
        current++;
        maxParallel = Math.max(maxParallel, current);
        await gate.promise;
        current--;
        active.set(r.name, n - 1);
      },
      { maxConcurrentReconciles: 3 },
    );
    await eventually(() => source.queue !== undefined);
    source.push(req('a'), req('b'), req('c'));
    await eventually(() => maxParallel === 3, 'three keys in parallel');
    source.push(req('a'), req('a'));
    gate.resolve();
    await eventually(() => calls === 4, 'a reconciled again after it finished');
    expect(overlapSameKey).toBe(false);
  });

  it('requeues with the rate limiter on error and forgets on success', async () => {
    let attempts = 0;
    const { source, limiter } = setup(async () => {
      attempts++;
      if (attempts < 3) throw new Error('transient');
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('x'));
    await eventually(() => attempts === 3 && limiter.forgets.length === 1, 'retried to success');
    expect(limiter.whens).toEqual(['ns/x', 'ns/x']);
    expect(limiter.forgets).toEqual(['ns/x']);
  });

  it('treats a synchronous throw and a rejected promise alike, and keeps running', async () => {
    let calls = 0;
    const reconcile = ((r: Request) => {
      calls++;
      if (r.name === 'sync' && calls < 3) throw new Error('sync throw');
      if (r.name === 'reject' && calls < 3) return Promise.reject(new Error('rejected'));
      return Promise.resolve({});
    }) as ReconcileFn;
    const { source, limiter } = setup(reconcile);
    await eventually(() => source.queue !== undefined);
    source.push(req('sync'));
    await eventually(() => limiter.forgets.includes('ns/sync'), 'sync throw recovered');
    calls = 0;
    source.push(req('reject'));
    await eventually(() => limiter.forgets.includes('ns/reject'), 'rejection recovered');
    expect(limiter.whens.filter((k) => k === 'ns/sync')).toHaveLength(2);
    expect(limiter.whens.filter((k) => k === 'ns/reject')).toHaveLength(2);
  });

  it('logs a TerminalError and does not retry it', async () => {
    let calls = 0;
    const { source, limiter, lines } = setup(async () => {
      calls++;
      throw new TerminalError('invalid spec');
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('t'));
    await eventually(() => lines.some((l) => l.msg === 'Reconciler error'), 'error logged');
    // The requeue decision is made before the error is logged: a retry would already be in the rate limiter.
    expect(calls).toBe(1);
    expect(limiter.whens).toEqual([]);
    expect(limiter.forgets).toContain('ns/t');
    expect(lines.find((l) => l.msg === 'Reconciler error')).toMatchObject({
      error: 'invalid spec',
      name: 't',
      level: 'error',
    });
  });

  it('logs a missing RBAC permission once, with what is missing, and its retries only at debug level', async () => {
    let calls = 0;
    const forbidden = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message:
        'configmaps is forbidden: User "sa" cannot create resource "configmaps" in API group "" in the namespace "ns"',
    });
    const { source, lines } = setup(async () => {
      calls++;
      throw ApiError.fromResponse(403, forbidden, 'POST', '/api/v1/namespaces/ns/configmaps');
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('a'));
    source.push(req('b'));
    await eventually(() => calls >= 4, 'retried');
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      msg: 'Reconciler error',
      permission: { verb: 'create', group: '', resource: 'configmaps', namespace: 'ns' },
    });
    expect(
      lines.filter((l) => l.msg === 'Reconciler error (missing permission, logged before)').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('requeues after the requested delay without the rate limiter', async () => {
    let calls = 0;
    const { source, limiter } = setup(async () => {
      calls++;
      return calls === 1 ? { requeueAfter: 5 } : {};
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('later'));
    await eventually(() => calls === 2, 'reconciled again');
    expect(limiter.whens).toEqual([]);
  });

  it('requeues through the rate limiter when asked to requeue', async () => {
    let calls = 0;
    const { source, limiter } = setup(async () => {
      calls++;
      return calls === 1 ? { requeue: true } : {};
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('again'));
    await eventually(() => calls === 2, 'reconciled again');
    expect(limiter.whens).toEqual(['ns/again']);
  });

  it('gives each reconcile a logger naming the controller, object and reconcile ID', async () => {
    const ids: string[] = [];
    const { ctrl, source, lines } = setup(async (_r, ctx) => {
      ids.push(ctx.reconcileID);
      ctx.log.info('hello');
      expect(ctx.controller).toBe(ctrl.name);
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('logged'));
    await eventually(() => lines.some((l) => l.msg === 'hello'));
    expect(lines.find((l) => l.msg === 'hello')).toMatchObject({
      controller: ctrl.name,
      namespace: 'ns',
      name: 'logged',
      reconcileID: ids[0],
    });
  });

  it('gives every reconcile its own ID and signal, the ID the same in its log lines as in its context', async () => {
    const seen: { id: string; again: string; signal: AbortSignal }[] = [];
    const { source, lines } = setup(async (_r, ctx) => {
      ctx.log.info('mine');
      seen.push({ id: ctx.reconcileID, again: ctx.reconcileID, signal: ctx.signal });
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('one'));
    source.push(req('two'));
    await eventually(() => seen.length === 2, 'two reconciles');
    expect(seen[0]!.id).toBe(seen[0]!.again);
    expect(seen[0]!.id).not.toBe(seen[1]!.id);
    expect(seen[0]!.signal).not.toBe(seen[1]!.signal);
    expect(lines.filter((l) => l.msg === 'mine').map((l) => l.reconcileID)).toEqual(seen.map((x) => x.id));
  });

  it('hands a reconcile that first reads its signal after the graceful timeout an aborted one', async () => {
    const gate = deferred();
    let aborted: boolean | undefined;
    let started = false;
    const { source, ac, done, lines } = setup(
      async (_r, ctx) => {
        started = true;
        await gate.promise;
        aborted = ctx.signal.aborted;
      },
      { gracefulShutdownTimeout: 10 },
    );
    await eventually(() => source.queue !== undefined);
    source.push(req('late'));
    await eventually(() => started, 'the reconcile to start');
    ac.abort();
    await eventually(() => lines.some((l) => String(l.msg).startsWith('Graceful shutdown timed out')), 'the hard stop');
    gate.resolve();
    await done;
    expect(aborted).toBe(true);
  });

  it('aborts the reconcile signal when the reconcile timeout passes', async () => {
    let reason: unknown;
    const { source } = setup(
      (_r, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            resolve({});
          });
        }),
      { reconcileTimeout: 10 },
    );
    await eventually(() => source.queue !== undefined);
    source.push(req('slow'));
    await eventually(() => reason !== undefined, 'signal aborted');
    expect(String(reason)).toMatch(/timed out/);
  });

  it('fails to start when a source never syncs within the cache sync timeout', async () => {
    const ctrl = new Controller({
      name: `nosync-${++seq}`,
      reconciler: { reconcile: async () => {} },
      cacheSyncTimeout: 10,
      log: newLogger({ sink: () => {} }),
    });
    const source = new FakeSource(false);
    await ctrl.watch(source);
    const ac = new AbortController();
    running.push(ac);
    await expect(ctrl.start(ac.signal)).rejects.toThrow(/timed out .* fake source to sync/);
    expect(source.startedWith?.aborted).toBe(true);
  });

  it('on stop lets the in-flight reconcile finish, starts no new one, then resolves', async () => {
    const gate = deferred();
    const started: string[] = [];
    let inflightSignalAborted: boolean | undefined;
    const { source, ac, done } = setup(async (r, ctx) => {
      started.push(r.name);
      if (r.name === 'first') {
        await gate.promise;
        inflightSignalAborted = ctx.signal.aborted;
      }
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('first'));
    await eventually(() => started.length === 1);
    source.push(req('second'));
    ac.abort();
    let resolved = false;
    void done.then(() => (resolved = true));
    await settle();
    expect(resolved).toBe(false);
    gate.resolve();
    await done;
    expect(started).toEqual(['first']);
    expect(inflightSignalAborted).toBe(false);
    expect(source.startedWith?.aborted).toBe(true);
  });

  it('aborts in-flight reconciles once the graceful shutdown timeout passes', async () => {
    let aborted = false;
    let started = false;
    const { source, ac, done } = setup(
      (_r, ctx) =>
        new Promise((resolve) => {
          started = true;
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve({});
          });
        }),
      { gracefulShutdownTimeout: 10 },
    );
    await eventually(() => source.queue !== undefined);
    source.push(req('stuck'));
    await eventually(() => started, 'the reconcile to start');
    ac.abort();
    await done;
    expect(aborted).toBe(true);
  });

  it('counts programming errors as panics and still retries them', async () => {
    let calls = 0;
    const { ctrl, source } = setup(async () => {
      calls++;
      if (calls === 1) (undefined as unknown as { x: { y: number } }).x.y = 1;
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('p'));
    await eventually(() => calls === 2, 'retried after the TypeError');
    const text = await registry.metrics();
    expect(text).toContain(`controller_runtime_reconcile_panics_total{controller="${ctrl.name}"} 1`);
  });

  it('records controller-runtime reconcile metrics', async () => {
    let calls = 0;
    const { ctrl, source } = setup(async () => {
      calls++;
      if (calls === 1) throw new Error('once');
    });
    await eventually(() => source.queue !== undefined);
    source.push(req('m'));
    await eventually(() => calls === 2);
    // The outcome is counted once the second reconcile has returned.
    await eventually(
      async () =>
        (await registry.metrics()).includes(
          `controller_runtime_reconcile_total{controller="${ctrl.name}",result="success"} 1`,
        ),
      'the success to be counted',
    );
    const text = await registry.metrics();
    expect(text).toContain(`controller_runtime_reconcile_total{controller="${ctrl.name}",result="success"} 1`);
    expect(text).toContain(`controller_runtime_reconcile_total{controller="${ctrl.name}",result="error"} 1`);
    expect(text).toContain(`controller_runtime_reconcile_errors_total{controller="${ctrl.name}"} 1`);
    expect(text).toContain(`controller_runtime_max_concurrent_reconciles{controller="${ctrl.name}"} 1`);
    expect(text).toMatch(
      new RegExp(`controller_runtime_reconcile_time_seconds_count\\{controller="${ctrl.name}"\\} 2`),
    );
    expect(text).toContain(`workqueue_adds_total{name="${ctrl.name}",controller="${ctrl.name}"}`);
    expect(text).toContain(`workqueue_retries_total{name="${ctrl.name}",controller="${ctrl.name}"} 1`);
  });

  it('requeues with the priority a result names, ahead of what waits at the default', async () => {
    const seen: string[] = [];
    const requeued = new Set<string>();
    const first = deferred();
    const { source } = setup(
      async (r) => {
        if (seen.length === 0) await first.promise;
        seen.push(r.name);
        if (r.name === 'a' && !requeued.has('a')) {
          requeued.add('a');
          return { requeue: true, priority: 10 };
        }
      },
      { rateLimiter: new FixedDelayRateLimiter(0) },
    );
    await eventually(() => source.queue !== undefined, 'source started');
    source.push(req('a'), req('b'), req('c'));
    first.resolve();
    await eventually(() => seen.length === 4, 'four reconciles');
    expect(seen).toEqual(['a', 'a', 'b', 'c']);
  });

  it('requeues at the end with usePriorityQueue: false', async () => {
    const seen: string[] = [];
    const first = deferred();
    const { source } = setup(
      async (r) => {
        if (seen.length === 0) await first.promise;
        seen.push(r.name);
        if (r.name === 'a' && seen.length === 1) return { requeue: true, priority: 10 };
      },
      { rateLimiter: new FixedDelayRateLimiter(0), usePriorityQueue: false },
    );
    await eventually(() => source.queue !== undefined, 'source started');
    source.push(req('a'), req('b'), req('c'));
    first.resolve();
    await eventually(() => seen.length === 4, 'four reconciles');
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
  });

  it('lets timers and I/O run during a long run of reconciles that never wait', async () => {
    let reconciles = 0;
    let countWhenTimerRan: number | undefined;
    const { source } = setup(async () => {
      if (reconciles === 0) setTimeout(() => (countWhenTimerRan = reconciles), 0);
      // A millisecond of work without an await, as a reconcile reading only the cache is.
      const until = performance.now() + 1;
      while (performance.now() < until);
      reconciles++;
    });
    await eventually(() => source.queue !== undefined, 'source started');
    source.push(...Array.from({ length: 60 }, (_, i) => req(`o${i}`)));
    await eventually(() => reconciles === 60, 'sixty reconciles');
    expect(countWhenTimerRan).toBeDefined();
    expect(countWhenTimerRan).toBeLessThan(60);
  });
});
