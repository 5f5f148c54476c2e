// Sharded controllers on a real control plane: 3 replicas of test/runtime/fixtures/sharded-replica.ts share 3,000
// objects in 30 namespaces, the first of each namespace owning a Secret, with the ShardedListAndWatch gate on (the
// server filters each replica's lists and watches) and off (each replica filters on its side). The objects are
// ConfigMaps, or a kind made by `scaffold create api` (test/support/scaffolded-kind.ts): an operator's own kind is a
// custom resource, whose lists the server filters without saying so in shardInfo. Through a replica killed with -9
// and another joining before its Lease has expired, one paused with SIGSTOP and resumed, one leaving and one more
// joining, every reconcile's write is recorded with its replica (RingRecorder) and checked: no object reconciled by
// two replicas at once, none left unreconciled. With the gate, each replica receives and caches its share only. The
// take-over and hand-over times are printed (the fake-clock tests in ring.test.ts hold them to their bounds).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ConfigMaps,
  Namespaces,
  Secrets,
  newClient,
  type Resource,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { assignPartitions, fnv1a64, partitionOfHash } from '../../../src/runtime/manager/index.js';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { minutes } from '../../support/commands.js';
import { eventually } from '../../support/eventually.js';
import { scaffoldKind } from '../../support/scaffolded-kind.js';
import { RingRecorder, TEST_LABEL, type ObjectState, type RecordedObject } from './ring-recorder.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/sharded-replica.ts', import.meta.url));
const NAMESPACES = 30;
const PER_NAMESPACE = 100;
const OBJECTS = NAMESPACES * PER_NAMESPACE;
const PARTITIONS = 12;
const LEASE_MS = 3000;
// The fixture's retryPeriod: leaseDuration / 8.
const RETRY_MS = LEASE_MS / 8;
const LEASE_NS = 'shard-ring';

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** What a replica says of itself on SIGUSR2. */
interface ReplicaStats {
  cached: number;
  watchEvents: number;
  clientFiltered: number;
  partitions: number[];
}

describe.each([
  { gate: true, key: 'uid' as const, kind: 'ConfigMaps' },
  { gate: false, key: 'namespace' as const, kind: 'ConfigMaps' },
  { gate: true, key: 'uid' as const, kind: 'a scaffolded kind' },
])('a shard ring with ShardedListAndWatch=$gate, by $key, over $kind', ({ gate, key, kind }) => {
  let env: TestEnvironment | undefined;
  let client: RestClient | undefined;
  let dir = '';
  let replica = '';
  let kubeconfig = '';
  let res: Resource<RecordedObject> = ConfigMaps as Resource<RecordedObject>;
  let resourceEnv: Record<string, string> = {};
  const replicas = new Map<string, ChildProcess>();
  const stderr = new Map<string, string>();
  const statsWaiters = new Map<string, ((s: ReplicaStats) => void)[]>();

  beforeAll(async () => {
    mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(repoRoot, '.tmp', 'shard-ring-'));
    replica = join(dir, 'sharded-replica.mjs');
    await bundleForNode(fixture, replica);
    const crds = [];
    if (kind !== 'ConfigMaps') {
      mkdirSync(join(dir, 'project'));
      const scaffolded = await scaffoldKind(join(dir, 'project'));
      res = scaffolded.resource as Resource<RecordedObject>;
      resourceEnv = { SHARD_RESOURCE: scaffolded.name };
      crds.push(scaffolded.crd);
    }
    env = await TestEnvironment.start({
      apiServerFlags: { 'feature-gates': `ShardedListAndWatch=${gate}` },
      crds,
    });
    client = newClient(env.kubeConfig);
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
  }, minutes(3));
  afterAll(async () => {
    for (const p of replicas.values()) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    client?.close();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (identity: string): ChildProcess => {
    const p = spawn(process.execPath, [replica, LEASE_NS, identity, key, String(LEASE_MS)], {
      env: { ...process.env, KUBECONFIG: kubeconfig, ...resourceEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stderr.set(identity, '');
    p.stderr!.on('data', (d: Buffer) => stderr.set(identity, (stderr.get(identity)! + d.toString()).slice(-4000)));
    createInterface({ input: p.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line) as { type: string } & ReplicaStats;
      if (msg.type === 'stats') for (const resolve of statsWaiters.get(identity)?.splice(0) ?? []) resolve(msg);
    });
    replicas.set(identity, p);
    return p;
  };
  const statsOf = (identity: string): Promise<ReplicaStats> =>
    new Promise((resolve) => {
      statsWaiters.set(identity, [...(statsWaiters.get(identity) ?? []), resolve]);
      replicas.get(identity)!.kill('SIGUSR2');
    });
  const exited = (p: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
    p.exitCode !== null || p.signalCode !== null
      ? Promise.resolve({ code: p.exitCode, signal: p.signalCode })
      : new Promise((resolve) => p.once('exit', (code, signal) => resolve({ code, signal })));

  it(
    'reconciles every object on exactly one replica at a time through kill -9 and a join, SIGSTOP, a leave and a join',
    async () => {
      const c = client!;
      const t0 = performance.now();
      const phases: string[] = [];
      const phase = (name: string): void => {
        phases.push(`${name} +${Math.round(performance.now() - t0)} ms`);
      };
      await c.create(Namespaces, { metadata: { name: LEASE_NS } });
      // The number is not last: FNV-1a spreads names that differ only in their last characters poorly (shard-0 to
      // shard-29 fall in 2 of the 12 partitions), and by namespace the test needs every replica to hold some.
      const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `shard-${i}-ns`);
      await pool(namespaces, 8, (name) => c.create(Namespaces, { metadata: { name } }));
      const keys = namespaces.flatMap((namespace) =>
        Array.from({ length: PER_NAMESPACE }, (_, i) => ({ namespace, name: `o${i}` })),
      );
      const wantBody = (want: string): Partial<RecordedObject> =>
        res === ConfigMaps ? { data: { want } } : { spec: { foo: want } };
      await pool(keys, 16, (k) =>
        c.create(res, {
          apiVersion: res.apiVersion,
          kind: res.kind,
          metadata: { ...k, labels: { [TEST_LABEL]: '1' } },
          ...wantBody('1'),
        }),
      );
      const secretValue = new Map<string, string>();
      await pool(namespaces, 8, async (namespace) => {
        const owner = await c.get(res, { namespace, name: 'o0' });
        const ownerReferences = [
          { apiVersion: res.apiVersion, kind: res.kind, name: 'o0', uid: owner.metadata!.uid!, controller: true },
        ];
        await c.create(Secrets, {
          metadata: { namespace, name: 'o0', labels: { [TEST_LABEL]: '1' }, ownerReferences },
          stringData: { v: '1' },
        });
        secretValue.set(`${namespace}/o0`, '1');
      });

      phase('created');
      const recorder = new RingRecorder(c, 'crew', LEASE_NS, res);
      await recorder.start();
      const partitionOf = (o: ObjectState): number =>
        partitionOfHash(fnv1a64(key === 'uid' ? o.uid : o.namespace), PARTITIONS);
      const unreconciled = (): string[] =>
        [...recorder.objects.entries()]
          .filter(([k, o]) => o.done !== `${o.want}/${secretValue.get(k) ?? '-'}`)
          .map(([k, o]) => `${k} want=${o.want} done=${o.done} by=${o.by}`);
      const diagnose = (): string =>
        [
          `unreconciled: ${unreconciled().length}, e.g. ${unreconciled().slice(0, 5).join('; ')}`,
          `announced: ${[...recorder.announced()].map(([id, ps]) => `${id}=[${[...ps].join(',')}]`).join(' ')}`,
          ...[...stderr].map(([id, s]) => `--- ${id} stderr ---\n${s}`),
        ].join('\n');
      const allReconciled = (what: string): Promise<void> =>
        eventually(() => recorder.objects.size === keys.length && unreconciled().length === 0, {
          what: `every object reconciled ${what}`,
          timeoutMs: minutes(1),
          intervalMs: 100,
          diagnose,
        });
      // Every partition announced by the replica of `members` that the assignment gives it, and by no other member
      // (a killed replica's Lease still names what it held until the others collect it).
      const settledOn = (members: string[], what: string): Promise<void> =>
        eventually(
          () => {
            const a = recorder.announced();
            const owner = assignPartitions(members, PARTITIONS);
            return owner.every((id, p) => members.every((m) => (a.get(m)?.has(p) ?? false) === (m === id)));
          },
          { what: `the partitions spread over ${members.join(', ')} ${what}`, timeoutMs: minutes(1), diagnose },
        );
      let round = 1;
      // A change to a tenth of the objects and to every owned Secret, for the ring to reconcile.
      const change = async (): Promise<void> => {
        round++;
        const changed = namespaces.flatMap((namespace) =>
          Array.from({ length: PER_NAMESPACE / 10 }, (_, i) => ({
            namespace,
            name: `o${i * 10 + (round % 10)}`,
          })),
        );
        await pool(changed, 16, (k) => c.patch(res, k, wantBody(String(round)), { type: 'merge' }));
        await pool(namespaces, 8, async (namespace) => {
          secretValue.set(`${namespace}/o0`, String(round));
          await c.patch(Secrets, { namespace, name: 'o0' }, { stringData: { v: String(round) } }, { type: 'merge' });
        });
      };
      const report: string[] = [];

      for (const id of ['r1', 'r2', 'r3']) start(id);
      await settledOn(['r1', 'r2', 'r3'], 'at start');
      await allReconciled('at start');
      await change();
      await allReconciled('after the first change');
      phase('started');

      // What each replica received and cached of the kind: with the gate, its share; without, all of it.
      const stats = await Promise.all(['r1', 'r2', 'r3'].map((id) => statsOf(id)));
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
      replicas.get('r1')!.kill('SIGKILL');
      await new Promise<void>((resolve) => setTimeout(resolve, LEASE_MS / 2));
      start('r4');
      await change();
      await settledOn(['r2', 'r3', 'r4'], 'after r1 was killed and r4 joined');
      const owned = recorder.ownedByLiveSince(['r2', 'r3', 'r4'], PARTITIONS, killedAt);
      report.push(
        `every partition owned by a live replica ${owned === undefined ? '?' : owned - killedAt} ms after kill -9 (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)`,
      );
      await allReconciled('after r1 was killed and r4 joined');
      phase('kill -9 + join');

      // SIGSTOP past its term: the others take over; once continued it stops what it held, then rejoins.
      const paused = replicas.get('r2')!;
      paused.kill('SIGSTOP');
      await settledOn(['r3', 'r4'], 'while r2 is paused');
      await change();
      await allReconciled('while r2 is paused');
      paused.kill('SIGCONT');
      await settledOn(['r2', 'r3', 'r4'], 'after r2 resumed');
      await change();
      await allReconciled('after r2 resumed');
      phase('SIGSTOP+SIGCONT');

      // A replica leaves cleanly: it stops its partitions and deletes its Lease.
      const leaving = replicas.get('r3')!;
      leaving.kill('SIGTERM');
      expect(await exited(leaving), `r3's exit\n${stderr.get('r3')}`).toEqual({ code: 0, signal: null });
      await settledOn(['r2', 'r4'], 'after r3 left');
      await change();
      await allReconciled('after r3 left');
      phase('leave');

      // A replica joins a settled ring: the partitions it takes move at once.
      const joinedAt = Date.now();
      start('r5');
      await settledOn(['r2', 'r4', 'r5'], 'after r5 joined');
      const r5Partitions = recorder.announced().get('r5')!;
      const r5HadObjects = [...recorder.objects.values()].some((o) => r5Partitions.has(partitionOf(o)));
      const handedOver = recorder.ownedByLiveSince(['r2', 'r4', 'r5'], PARTITIONS, joinedAt);
      const r5Joined = recorder.leases.find((v) => v.identity === 'r5')?.seenAt;
      report.push(
        `r5 announced its ${r5Partitions.size} partitions ${handedOver !== undefined && r5Joined !== undefined ? handedOver - r5Joined : '?'} ms after its Lease appeared`,
      );
      await change();
      await allReconciled('after r5 joined');
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
      expect(recorder.overlaps(partitionOf), 'overlapping reconciles').toEqual([]);
      expect(unreconciled()).toEqual([]);
    },
    minutes(8),
  );
});
