// Sharded controllers on a real control plane, with the ShardedListAndWatch gate on (the server filters each
// replica's lists and watches) and off (each replica filters on its side): 3 replicas of
// test/runtime/fixtures/sharded-replica.ts share 3,000 ConfigMaps in 30 namespaces, the first of each namespace
// owning a Secret. Through a replica killed with -9, one paused with SIGSTOP and resumed, one added and one removed,
// every reconcile's write is recorded with its replica (RingRecorder) and checked: no object reconciled by two
// replicas at once, none left unreconciled. The gate-on run shards by uid, the gate-off run by namespace, both with owns().
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { ConfigMaps, Namespaces, Secrets, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { fnv1a64, partitionOfHash, partitionRanges, shardSelector } from '../../../src/runtime/manager/index.js';
import { inRanges } from '../../../src/runtime/manager/index.js';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { minutes } from '../../support/commands.js';
import { eventually } from '../../support/eventually.js';
import { RingRecorder, TEST_LABEL, type ObjectState } from './ring-recorder.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/sharded-replica.ts', import.meta.url));
const NAMESPACES = 30;
const PER_NAMESPACE = 100;
const PARTITIONS = 12;
const LEASE_MS = 3000;
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

describe.each([
  { gate: true, key: 'uid' as const },
  { gate: false, key: 'namespace' as const },
])('a shard ring with ShardedListAndWatch=$gate, by $key', ({ gate, key }) => {
  let env: TestEnvironment | undefined;
  let client: RestClient | undefined;
  let dir = '';
  let replica = '';
  let kubeconfig = '';
  const replicas = new Map<string, ChildProcess>();
  const stderr = new Map<string, string>();

  beforeAll(async () => {
    mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(repoRoot, '.tmp', 'shard-ring-'));
    replica = join(dir, 'sharded-replica.mjs');
    await bundleForNode(fixture, replica);
    env = await TestEnvironment.start({
      apiServerFlags: { 'feature-gates': `ShardedListAndWatch=${gate}` },
    });
    client = newClient(env.kubeConfig);
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
  }, minutes(2));
  afterAll(async () => {
    for (const p of replicas.values()) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    client?.close();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (identity: string): ChildProcess => {
    const p = spawn(process.execPath, [replica, LEASE_NS, identity, key, String(LEASE_MS)], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    stderr.set(identity, '');
    p.stderr!.on('data', (d: Buffer) => stderr.set(identity, (stderr.get(identity)! + d.toString()).slice(-4000)));
    replicas.set(identity, p);
    return p;
  };
  const exited = (p: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
    p.exitCode !== null || p.signalCode !== null
      ? Promise.resolve({ code: p.exitCode, signal: p.signalCode })
      : new Promise((resolve) => p.once('exit', (code, signal) => resolve({ code, signal })));

  it(
    'the API server filters by our shardSelector only with the gate on, as our hash does',
    async () => {
      const ns = 'selector-check';
      await client!.create(Namespaces, { metadata: { name: ns } });
      for (let i = 0; i < 20; i++) await client!.create(ConfigMaps, { metadata: { name: `c${i}`, namespace: ns } });
      const all = await client!.list(ConfigMaps, { namespace: ns });
      const [low] = partitionRanges(2);
      const selector = shardSelector('uid', [low!]);
      const list = await client!.list(ConfigMaps, { namespace: ns, shardSelector: selector });
      if (gate) {
        expect(list.metadata.shardInfo?.selector).toBe(selector);
        const expected = all.items.filter((o) => inRanges(o, 'uid', [low!])).map((o) => o.metadata?.name);
        expect(list.items.map((o) => o.metadata?.name).sort()).toEqual(expected.sort());
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(all.items.length);
      } else {
        expect(list.metadata.shardInfo).toBeUndefined();
        expect(list.items.length).toBe(all.items.length);
      }
    },
    minutes(1),
  );

  it(
    'reconciles every object on exactly one replica at a time through kill -9, SIGSTOP, a join and a leave',
    async () => {
      const c = client!;
      // The ConfigMaps, in 30 namespaces; the first of each namespace owns a Secret.
      const t0 = performance.now();
      const phases: string[] = [];
      const phase = (name: string): void => {
        phases.push(`${name} +${Math.round(performance.now() - t0)} ms`);
      };
      await c.create(Namespaces, { metadata: { name: LEASE_NS } });
      const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `shard-${i}`);
      await pool(namespaces, 8, (name) => c.create(Namespaces, { metadata: { name } }));
      const keys = namespaces.flatMap((namespace) =>
        Array.from({ length: PER_NAMESPACE }, (_, i) => ({ namespace, name: `o${i}` })),
      );
      await pool(keys, 16, (k) =>
        c.create(ConfigMaps, { metadata: { ...k, labels: { [TEST_LABEL]: '1' } }, data: { want: '1' } }),
      );
      const secretValue = new Map<string, string>();
      await pool(namespaces, 8, async (namespace) => {
        const owner = await c.get(ConfigMaps, { namespace, name: 'o0' });
        const ownerReferences = [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'o0', uid: owner.metadata!.uid!, controller: true },
        ];
        await c.create(Secrets, {
          metadata: { namespace, name: 'o0', labels: { [TEST_LABEL]: '1' }, ownerReferences },
          stringData: { v: '1' },
        });
        secretValue.set(`${namespace}/o0`, '1');
      });

      phase('created');
      const recorder = new RingRecorder(c, 'crew', LEASE_NS);
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
      // Every partition announced by exactly the replicas in `members`, each partition by one.
      const settledOn = (members: string[], what: string): Promise<void> =>
        eventually(
          () => {
            const a = recorder.announced();
            const holders = Array.from({ length: PARTITIONS }, (_, p) =>
              [...a].filter(([id, ps]) => members.includes(id) && ps.has(p)).map(([id]) => id),
            );
            return holders.every((h) => h.length === 1) && members.every((m) => (a.get(m)?.size ?? 0) > 0);
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
        await pool(changed, 16, (k) => c.patch(ConfigMaps, k, { data: { want: String(round) } }, { type: 'merge' }));
        await pool(namespaces, 8, async (namespace) => {
          secretValue.set(`${namespace}/o0`, String(round));
          await c.patch(Secrets, { namespace, name: 'o0' }, { stringData: { v: String(round) } }, { type: 'merge' });
        });
      };

      for (const id of ['r1', 'r2', 'r3']) start(id);
      await settledOn(['r1', 'r2', 'r3'], 'at start');
      await allReconciled('at start');
      phase('started');

      // kill -9: its Lease expires, the others take its partitions over.
      const victim = [...recorder.announced()].find(([id]) => id === 'r1')![1];
      const killedAt = performance.now();
      replicas.get('r1')!.kill('SIGKILL');
      await change();
      await settledOn(['r2', 'r3'], 'after r1 was killed');
      const takeover = performance.now() - killedAt;
      await allReconciled('after r1 was killed');
      phase('kill -9');
      console.info(
        `[gate ${gate ? 'on' : 'off'}, ${key}] r1's ${victim.size} partitions taken over ${Math.round(takeover)} ms after kill -9 (lease ${LEASE_MS} ms)`,
      );

      // SIGSTOP past its term: the others take over; once continued it stops what it held, then rejoins.
      const paused = replicas.get('r2')!;
      paused.kill('SIGSTOP');
      await settledOn(['r3'], 'while r2 is paused');
      await change();
      await allReconciled('while r2 is paused');
      paused.kill('SIGCONT');
      await settledOn(['r2', 'r3'], 'after r2 resumed');
      await change();
      await allReconciled('after r2 resumed');
      phase('SIGSTOP+SIGCONT');

      // A replica joins.
      start('r4');
      await settledOn(['r2', 'r3', 'r4'], 'after r4 joined');
      const r4Partitions = recorder.announced().get('r4')!;
      const r4HadObjects = [...recorder.objects.values()].some((o) => r4Partitions.has(partitionOf(o)));
      await change();
      await allReconciled('after r4 joined');
      phase('join');

      // A replica leaves cleanly: it stops its partitions and deletes its Lease.
      const leaving = replicas.get('r3')!;
      leaving.kill('SIGTERM');
      expect(await exited(leaving), `r3's exit\n${stderr.get('r3')}`).toEqual({ code: 0, signal: null });
      await settledOn(['r2', 'r4'], 'after r3 left');
      await change();
      await allReconciled('after r3 left');
      phase('leave');

      console.info(
        `[gate ${gate ? 'on' : 'off'}, ${key}] ${recorder.writes.length} reconcile writes; ${phases.join(', ')}`,
      );
      recorder.stop();
      expect(recorder.watchError).toBeUndefined();
      const writers = new Set(recorder.writes.map((w) => w.by));
      // The experiment is only one if every replica reconciled something (r4 if its partitions hold objects: by
      // namespace, 30 namespaces may leave some of the 12 partitions empty).
      expect([...writers].filter((w) => w !== 'r4').sort()).toEqual(['r1', 'r2', 'r3']);
      if (r4HadObjects) expect(writers.has('r4')).toBe(true);
      expect(recorder.overlaps(partitionOf), 'overlapping reconciles').toEqual([]);
      expect(unreconciled()).toEqual([]);
    },
    minutes(6),
  );
});
