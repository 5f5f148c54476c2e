// The shard ring under repeated trouble, outside the normal suite (about half a minute a round):
//
//   npm run test:ring-stress   (RING_STRESS_ROUNDS=50 by default)
//   (RING_STRESS_GATE=on for ShardedListAndWatch, RING_STRESS_LEASE_MS for the replicas' lease, default 3000,
//   RING_STRESS_WRITE=status to record reconciles as a scaffolded reconciler does: a condition, by a status update)
//
// Three replicas of test/runtime/fixtures/sharded-replica.ts reconcile 2,000 objects of a kind made by `scaffold
// create api` in 10 namespaces, by uid, as issue 39's trial did. Each round does one of: change every object and
// SIGSTOP a replica past its lease while it reconciles them, SIGCONT it, change every object again; kill -9 one and start another while its Lease is
// still live; stop one cleanly and start another. After each change every object must be reconciled at its new want
// within a minute, and at the end no object may have been reconciled by two replicas at once. The rounds run in a row:
// the first that leaves an object unreconciled fails the test with what the replicas said.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutes } from '../../support/commands.js';
import { eventually } from '../../support/eventually.js';
import { RingExperiment } from './ring-experiment.js';

const ROUNDS = Number(process.env.RING_STRESS_ROUNDS ?? 0);
const LEASE_MS = Number(process.env.RING_STRESS_LEASE_MS ?? 3000);
const PARTITIONS = 12;

describe.skipIf(ROUNDS === 0)(
  'a shard ring under repeated pauses, kills, joins and leaves (RING_STRESS_ROUNDS)',
  () => {
    const x = new RingExperiment({
      gate: process.env.RING_STRESS_GATE === 'on',
      key: 'uid',
      kind: 'scaffolded',
      namespaces: 10,
      perNamespace: 200,
      partitions: PARTITIONS,
      leaseMs: LEASE_MS,
      write: process.env.RING_STRESS_WRITE === 'status' ? 'status' : 'annotation',
    });
    beforeAll(() => x.setUp(), minutes(3));
    afterAll(() => x.tearDown());

    it(
      `leaves no object unreconciled and none reconciled twice at once, ${ROUNDS} rounds in a row`,
      async () => {
        let members = ['r1', 'r2', 'r3'];
        let next = 4;
        for (const id of members) x.start(id);
        await x.settledOn(members, 'at start');
        await x.allReconciled('at start');
        const takeovers: number[] = [];
        const rounds: string[] = [];
        const started = performance.now();
        for (let round = 1; round <= ROUNDS; round++) {
          const t = performance.now();
          const action = (['pause', 'kill', 'leave'] as const)[round % 3]!;
          // Each kind of trouble falls on each replica in turn.
          const victim = members[Math.floor(round / 3) % members.length]!;
          const rest = members.filter((m) => m !== victim);
          const at = `in round ${round} (${action} ${victim})`;
          if (action === 'pause') {
            // Paused in the middle of its work: once it has written one of the changed objects, others in flight.
            const mark = x.recorder.writes.length;
            const changing = x.change(1);
            await eventually(() => x.recorder.writes.slice(mark).some((w) => w.by === victim), {
              what: `${victim} reconciling the change ${at}`,
              timeoutMs: minutes(1),
              diagnose: x.diagnose,
            });
            x.replicas.get(victim)!.kill('SIGSTOP');
            await changing;
            await x.settledOn(rest, `while ${victim} is paused ${at}`);
            await x.allReconciled(`while ${victim} is paused ${at}`);
            x.replicas.get(victim)!.kill('SIGCONT');
            await x.settledOn(members, `after ${victim} resumed ${at}`);
            await x.change(1);
            await x.allReconciled(`after ${victim} resumed ${at}`);
          } else if (action === 'kill') {
            const killedAt = Date.now();
            x.replicas.get(victim)!.kill('SIGKILL');
            await new Promise<void>((resolve) => setTimeout(resolve, LEASE_MS / 2));
            const joining = `r${next++}`;
            x.start(joining);
            members = [...rest, joining];
            await x.settledOn(members, `after ${victim} was killed and ${joining} joined ${at}`);
            const owned = x.recorder.ownedByLiveSince(members, PARTITIONS, killedAt);
            if (owned !== undefined) takeovers.push(owned - killedAt);
            await x.change(1);
            await x.allReconciled(`after ${victim} was killed and ${joining} joined ${at}`);
          } else {
            x.replicas.get(victim)!.kill('SIGTERM');
            expect(await x.exited(victim), `${victim}'s exit ${at}\n${x.stderr.get(victim)}`).toEqual({
              code: 0,
              signal: null,
            });
            await x.settledOn(rest, `after ${victim} left ${at}`);
            await x.change(1);
            await x.allReconciled(`after ${victim} left ${at}`);
            const joining = `r${next++}`;
            x.start(joining);
            members = [...rest, joining];
            await x.settledOn(members, `after ${joining} joined ${at}`);
            await x.change(1);
            await x.allReconciled(`after ${joining} joined ${at}`);
          }
          rounds.push(`${action} ${((performance.now() - t) / 1000).toFixed(1)} s`);
        }
        const sorted = [...takeovers].sort((a, b) => a - b);
        console.info(
          `[ring stress, gate ${process.env.RING_STRESS_GATE === 'on' ? 'on' : 'off'}, lease ${LEASE_MS} ms] ${ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(0)} s, ${x.recorder.writes.length} reconcile writes (the record's watches restarted ${x.recorder.watchRestarts} times); kill -9 to every partition owned by a live replica: median ${sorted[Math.floor(sorted.length / 2)] ?? '?'} ms, max ${sorted.at(-1) ?? '?'} ms over ${sorted.length} kills; rounds: ${rounds.join(', ')}`,
        );
        x.recorder.stop();
        expect(x.recorder.watchError).toBeUndefined();
        expect(x.recorder.overlaps(x.partitionOf), 'overlapping reconciles').toEqual([]);
      },
      minutes(90),
    );
  },
);
