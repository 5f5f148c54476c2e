// The paused-leader experiment, shared by test/runtime/leaderelection/paused-leader.integration.test.ts (our manager,
// 0 writes expected) and bench/leader-fencing.js (ours beside controller-runtime's): two replicas of a leader-elected
// manager that patch the ConfigMaps of one namespace; the leader is stopped with SIGSTOP until the other has taken
// the Lease and written, then continued with SIGCONT. Every write and every change of the Lease is recorded through
// one watch each, and ordered by resourceVersion (etcd's revision), so "after the Lease moved" is exact.
import { ConfigMaps, Leases, Namespaces } from '@kubescaffold/runtime/rest';

const WRITER = 'bench.kubescaffold.dev/writer';

/**
 * Runs one trial in a namespace of its own. `start(identity)` starts a replica that writes its identity into the
 * WRITER annotation; it must return the ChildProcess.
 */
export async function pausedLeaderTrial({ client, namespace, start, configMaps = 20, timeoutMs = 60_000 }) {
  await client.create(Namespaces, { metadata: { name: namespace } });
  const stop = new AbortController();
  const writes = [];
  const leases = [];
  const waiters = new Set();
  const wake = () => {
    for (const w of waiters) w();
  };
  // Resolves once `cond` holds, re-checked on each recorded event; rejects after timeoutMs naming `what`.
  const until = (cond, what) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (!cond()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`paused-leader trial in ${namespace}: ${what} did not happen within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const record = async (res, onEvent) => {
    try {
      for await (const ev of client.watch(res, { namespace, signal: stop.signal })) {
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED') onEvent(ev.object);
        wake();
      }
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    }
  };
  const rv = (obj) => BigInt(obj.metadata.resourceVersion);
  const watching = [
    record(ConfigMaps, (cm) => writes.push({ rv: rv(cm), writer: cm.metadata.annotations?.[WRITER] ?? '' })),
    record(Leases, (lease) => leases.push({ rv: rv(lease), holder: lease.spec?.holderIdentity ?? '' })),
  ];
  const children = [];
  const exited = (child) =>
    new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
  try {
    for (let i = 0; i < configMaps; i++) await client.create(ConfigMaps, { metadata: { name: `cm-${i}`, namespace } });
    const writesBy = (who, after = -1n) => writes.filter((w) => w.writer === who && w.rv > after).length;

    const a = start('a');
    children.push(a);
    await until(() => leases.some((l) => l.holder !== ''), 'the first replica taking the Lease');
    const holderA = leases.find((l) => l.holder !== '').holder;
    await until(() => writesBy('a') >= configMaps, 'the first replica writing');
    const b = start('b');
    children.push(b);

    a.kill('SIGSTOP');
    const pausedAt = performance.now();
    await until(
      () => leases.some((l) => l.holder !== '' && l.holder !== holderA),
      'the second replica taking the Lease',
    );
    const moveRV = leases.find((l) => l.holder !== '' && l.holder !== holderA).rv;
    await until(() => writesBy('b', moveRV) >= configMaps, 'the second replica writing');
    a.kill('SIGCONT');
    const pausedMs = performance.now() - pausedAt;
    const resumedAt = performance.now();
    // The old leader must stop by itself; a bound keeps a replica that does not from hanging the run.
    const aExit = await Promise.race([
      exited(a).then(() => ({ code: a.exitCode, signal: a.signalCode })),
      new Promise((r) => setTimeout(() => r(undefined), timeoutMs)),
    ]);
    const exitMs = aExit ? performance.now() - resumedAt : undefined;
    if (!aExit) a.kill('SIGKILL');

    // Everything written before the sentinel has reached the watch once the sentinel has.
    const sentinel = await client.create(ConfigMaps, { metadata: { name: 'sentinel', namespace } });
    await until(() => writes.some((w) => w.rv >= rv(sentinel)), 'the sentinel reaching the watch');
    const oldLeaderAfterMove = writes.filter((w) => w.writer === 'a' && w.rv > moveRV);
    return {
      pausedMs,
      leaderWritesBefore: writesBy('a') - oldLeaderAfterMove.length,
      followerWritesAfterMove: writesBy('b', moveRV),
      oldLeaderWritesAfterMove: oldLeaderAfterMove.length,
      oldLeaderExit: aExit,
      oldLeaderExitMs: exitMs,
    };
  } finally {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await Promise.all(children.map(exited));
    stop.abort();
    await Promise.allSettled(watching);
  }
}
