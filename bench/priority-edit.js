#!/usr/bin/env node
// An edit made during a first pass: how long until it is reconciled, ours against controller-runtime's, side by side.
// Each replica starts over OBJECTS labelled objects of KIND (default 25,000 ConfigMaps; KIND=crd: a kind made by
// `scaffold create api`), reconciling read-only with 4 workers: ours is test/runtime/fixtures/sharded-replica.ts in
// 'leader' mode, bundled, with the scaffolded manager's Node flags, on the runtime's default queue (the priority
// queue); controller-runtime's is bench/go/shardpeer (v0.25.2, whose default is its priority queue too). Once a
// replica says it has reconciled its first 1,000 objects, this script edits the object the list hands out last (its
// "want"), and the replica prints a `traced` line when a reconcile reads the new value. Reported per run: the time
// from the edit's PATCH to that reconcile (the replica's Date.now() against this script's, one machine), how many
// reconciles were done by then, and the whole pass's time from spawn; min / median / max of RUNS (default 3,
// alternating). On a first-in first-out queue the edited object would wait for every object listed before it.
// Usage: npm run build && node bench/priority-edit.js;  OBJECTS=100000 HEAP_MB=1024 KIND=crd node bench/priority-edit.js
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Replica, bundleReplica, createObjects, objectKeys, ourNodeFlags, reconciledKind } from './replica-lib.js';
import {
  goBinary,
  importEnvtest,
  importRuntime,
  loadLine,
  machineLine,
  percentile,
  printTable,
} from './runtime-lib.js';

const OBJECTS = Number(process.env.OBJECTS ?? 25_000);
const KIND = process.env.KIND ?? 'configmap';
const RUNS = Number(process.env.RUNS ?? 3);
const PAYLOAD = Number(process.env.PAYLOAD ?? 512);
const IMPLS = (process.env.IMPLS ?? 'ours,controller-runtime').split(',');
const NAMESPACES = 30;

console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), 'ks-priority-edit-'));
const script = await bundleReplica(dir);
goBinary('shardpeer');
const { manifestHeapMb, flags } = await ourNodeFlags();
const nodeFlags = flags(Number(process.env.HEAP_MB ?? manifestHeapMb));
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const { TestEnvironment } = await importEnvtest();
const env = await TestEnvironment.start({ startTimeout: 180_000 });
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, env.kubeconfigYaml());
const client = rt.newClient(env.kubeConfig);

const rows = [];
const byImpl = new Map(IMPLS.map((impl) => [impl, []]));
try {
  const kind = await reconciledKind(KIND, { rt, env, dir });
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `${KIND}-${i}`);
  const t0 = performance.now();
  await createObjects(client, rt, kind, { namespaces, to: OBJECTS, payload: PAYLOAD });
  console.log(`${OBJECTS} ${kind.describe}: created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // A list hands objects out in the order of their keys: the last key is the last of the first pass.
  const last = objectKeys(namespaces, 0, OBJECTS)
    .map((k) => ({ ...k, id: `${k.namespace}/${k.name}` }))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .at(-1);
  console.log(`the edited object: ${last.id}, listed last`);
  let leases = 0;
  for (let run = 1; run <= RUNS; run++) {
    for (const impl of IMPLS) {
      const leaseNamespace = `priority-edit-lease-${leases++}`;
      await client.create(rt.Namespaces, { metadata: { name: leaseNamespace } });
      const traceWant = `edited-${run}-${impl}`;
      const r = new Replica(impl === 'ours' ? 'leader' : impl, {
        identity: impl,
        leaseNamespace,
        kubeconfig,
        kind,
        leaseMs: 15_000,
        readOnly: true,
        expect: OBJECTS,
        doneKey: 'shard.kubescaffold.dev/priority-edit',
        script,
        nodeFlags,
        traceWant,
      });
      const traced = r.next('traced');
      const reconciled = r.next('reconciled');
      traced.catch(() => {});
      reconciled.catch(() => {});
      try {
        await r.next('progress');
        const editAt = Date.now();
        await client.patch(kind.resource, last, kind.wantPatch(traceWant), { type: 'merge' });
        const seen = await traced;
        const all = await reconciled;
        const figures = {
          latency: seen.at - editAt,
          before: seen.reconciles,
          pass: (all.at - r.spawnedAt) / 1000,
        };
        byImpl.get(impl).push(figures);
        rows.push([
          `${impl}, run ${run}`,
          String(figures.latency),
          `${figures.before} of ${OBJECTS}`,
          figures.pass.toFixed(2),
        ]);
        console.log(`${impl}, run ${run}: done; ${loadLine()}`);
      } finally {
        await r.stop();
      }
    }
  }
} finally {
  client.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}

const headers = ['run', 'edit → its reconcile ms', 'reconciles done by then', 'first pass s'];
console.log();
printTable(headers, rows);
console.log();
const spread = (values, fmt) => [Math.min(...values), percentile(values, 50), Math.max(...values)].map(fmt).join(' / ');
printTable(
  [`${OBJECTS} ${KIND} (min / median / max)`, ...headers.slice(1)],
  [...byImpl].map(([impl, runs]) => [
    impl,
    spread(
      runs.map((f) => f.latency),
      String,
    ),
    spread(
      runs.map((f) => f.before),
      String,
    ),
    spread(
      runs.map((f) => f.pass),
      (v) => v.toFixed(2),
    ),
  ]),
);
