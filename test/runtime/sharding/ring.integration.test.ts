// Sharded controllers on a real control plane: 3 replicas of test/runtime/fixtures/sharded-replica.ts share 3,000
// objects in 30 namespaces, the first of each namespace owning a Secret, with the ShardedListAndWatch gate on (the
// server filters each replica's lists and watches) and off (each replica filters on its side). The objects are
// ConfigMaps, or a kind made by `scaffold create api` (test/support/scaffolded-kind.ts): an operator's own kind is a
// custom resource, whose lists the server filters without saying so in shardInfo. Through a replica killed with -9
// and another joining before its Lease has expired, one paused with SIGSTOP and resumed, one leaving and one more
// joining, every reconcile's write is recorded with its replica (RingRecorder) and checked: no object reconciled by
// two replicas at once, none left unreconciled. With the gate, each replica receives and caches its share only. The
// take-over and hand-over times are printed (the fake-clock tests in ring.test.ts hold them to their bounds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutes } from '../../support/commands.js';
import { RingExperiment } from './ring-experiment.js';

const NAMESPACES = 30;
const PER_NAMESPACE = 100;
const OBJECTS = NAMESPACES * PER_NAMESPACE;
const PARTITIONS = 12;
const LEASE_MS = 3000;
// The fixture's retryPeriod: leaseDuration / 8.
const RETRY_MS = LEASE_MS / 8;

describe.each([
  { gate: true, key: 'uid' as const, kind: 'ConfigMaps' as const },
  { gate: false, key: 'namespace' as const, kind: 'ConfigMaps' as const },
  { gate: true, key: 'uid' as const, kind: 'scaffolded' as const },
])('a shard ring with ShardedListAndWatch=$gate, by $key, over $kind', ({ gate, key, kind }) => {
  const x = new RingExperiment({
    gate,
    key,
    kind,
    namespaces: NAMESPACES,
    perNamespace: PER_NAMESPACE,
    partitions: PARTITIONS,
    leaseMs: LEASE_MS,
  });
  beforeAll(() => x.setUp(), minutes(3));
  afterAll(() => x.tearDown());

  it(
    'reconciles every object on exactly one replica at a time through kill -9 and a join, SIGSTOP, a leave and a join',
    async () => {
      const t0 = performance.now();
      const phases: string[] = [];
      const phase = (name: string): void => {
        phases.push(`${name} +${Math.round(performance.now() - t0)} ms`);
      };
      const { recorder } = x;
      const report: string[] = [];

      for (const id of ['r1', 'r2', 'r3']) x.start(id);
      await x.settledOn(['r1', 'r2', 'r3'], 'at start');
      await x.allReconciled('at start');
      await x.change();
      await x.allReconciled('after the first change');
      phase('started');

      // What each replica received and cached of the kind: with the gate, its share; without, all of it.
      const stats = await Promise.all(['r1', 'r2', 'r3'].map((id) => x.statsOf(id)));
      const share = (n: number): string => `${((100 * n) / OBJECTS).toFixed(0)}%`;
      report.push(
        `cached ${stats.map((s) => share(s.cached)).join(' / ')}, watch events ${stats.map((s) => s.watchEvents).join(' / ')}, received outside their partitions ${stats.map((s) => s.clientFiltered).join(' / ')}`,
      );
      for (const s of stats) {
        if (gate) {
          expect(s.cached, JSON.stringify(stats)).toBeLessThanOrEqual(OBJECTS * (1 / 3 + 0.1));
          expect(s.clientFiltered, 'objects the server sent outside the partitions').toBe(0);
        } else {
          expect(s.cached, JSON.stringify(stats)).toBe(OBJECTS);
        }
      }
      if (gate) {
        // The changes' events were split too: each replica saw those of its partitions only.
        const events = stats.reduce((n, s) => n + s.watchEvents, 0);
        for (const s of stats) expect(s.watchEvents).toBeLessThanOrEqual(events * (1 / 3 + 0.1));
      }

      // kill -9, and a replica joins while the killed one's Lease has not expired yet: its partitions move to the live
      // replicas once it has, the newcomer's included.
      const killedAt = Date.now();
      x.replicas.get('r1')!.kill('SIGKILL');
      await new Promise<void>((resolve) => setTimeout(resolve, LEASE_MS / 2));
      x.start('r4');
      await x.change();
      await x.settledOn(['r2', 'r3', 'r4'], 'after r1 was killed and r4 joined');
      const owned = recorder.ownedByLiveSince(['r2', 'r3', 'r4'], PARTITIONS, killedAt);
      report.push(
        `every partition owned by a live replica ${owned === undefined ? '?' : owned - killedAt} ms after kill -9 (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)`,
      );
      await x.allReconciled('after r1 was killed and r4 joined');
      phase('kill -9 + join');

      // SIGSTOP past its term: the others take over; once continued it stops what it held, then rejoins.
      const paused = x.replicas.get('r2')!;
      paused.kill('SIGSTOP');
      await x.settledOn(['r3', 'r4'], 'while r2 is paused');
      await x.change();
      await x.allReconciled('while r2 is paused');
      paused.kill('SIGCONT');
      await x.settledOn(['r2', 'r3', 'r4'], 'after r2 resumed');
      await x.change();
      await x.allReconciled('after r2 resumed');
      phase('SIGSTOP+SIGCONT');

      // A replica leaves cleanly: it stops its partitions and deletes its Lease.
      x.replicas.get('r3')!.kill('SIGTERM');
      expect(await x.exited('r3'), `r3's exit\n${x.stderr.get('r3')}`).toEqual({ code: 0, signal: null });
      await x.settledOn(['r2', 'r4'], 'after r3 left');
      await x.change();
      await x.allReconciled('after r3 left');
      phase('leave');

      // A replica joins a settled ring: the partitions it takes move at once.
      const joinedAt = Date.now();
      x.start('r5');
      await x.settledOn(['r2', 'r4', 'r5'], 'after r5 joined');
      const r5Partitions = recorder.announced().get('r5')!;
      const r5HadObjects = [...recorder.objects.values()].some((o) => r5Partitions.has(x.partitionOf(o)));
      const handedOver = recorder.ownedByLiveSince(['r2', 'r4', 'r5'], PARTITIONS, joinedAt);
      const r5Joined = recorder.leases.find((v) => v.identity === 'r5')?.seenAt;
      report.push(
        `r5 announced its ${r5Partitions.size} partitions ${handedOver !== undefined && r5Joined !== undefined ? handedOver - r5Joined : '?'} ms after its Lease appeared`,
      );
      await x.change();
      await x.allReconciled('after r5 joined');
      phase('join');

      console.info(`[gate ${gate ? 'on' : 'off'}, ${key}, ${kind}] ${report.join('; ')}`);
      console.info(
        `[gate ${gate ? 'on' : 'off'}, ${key}, ${kind}] ${recorder.writes.length} reconcile writes; ${phases.join(', ')}`,
      );
      recorder.stop();
      expect(recorder.watchError).toBeUndefined();
      const writers = new Set(recorder.writes.map((w) => w.by));
      // The experiment is only one if every replica reconciled something (r5 if its partitions hold objects: by
      // namespace, 30 namespaces may leave some of the 12 partitions empty).
      expect([...writers].filter((w) => w !== 'r5').sort()).toEqual(['r1', 'r2', 'r3', 'r4']);
      if (r5HadObjects) expect(writers.has('r5')).toBe(true);
      expect(recorder.overlaps(x.partitionOf), 'overlapping reconciles').toEqual([]);
      expect(x.unreconciled()).toEqual([]);
    },
    minutes(8),
  );
});
