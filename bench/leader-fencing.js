#!/usr/bin/env node
// The paused-leader experiment (scripts/lib/paused-leader.js), ours against controller-runtime: two replicas of a
// leader-elected manager share a Lease (lease 4 s, renew deadline 3 s, retry 0.5 s) and merge-patch 20 ConfigMaps
// every 300 ms; the leader is stopped with SIGSTOP until the other has taken the Lease and written, then continued.
// Reported per peer over RUNS trials (default 3): the old leader's writes ordered after the Lease moved (by
// resourceVersion), how long it was paused, and how long after SIGCONT it exited.
// Ours: test/runtime/fixtures/fenced-writer.ts, bundled from this checkout's sources. controller-runtime:
// bench/go/fencing, the same reconciler and timings.
// Usage: npm run build && node bench/leader-fencing.js
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../scripts/lib/bundle-for-node.js';
import { pausedLeaderTrial } from '../scripts/lib/paused-leader.js';
import {
  childNode,
  goBinary,
  importRuntime,
  loadLine,
  machineLine,
  printTable,
  startControlPlane,
} from './runtime-lib.js';

const RUNS = Number(process.env.RUNS ?? 3);
const fixture = fileURLToPath(new URL('../test/runtime/fixtures/fenced-writer.ts', import.meta.url));

console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), 'ks-leader-fencing-'));
const ours = join(dir, 'fenced-writer.mjs');
await bundleForNode(fixture, ours);
const peerBinary = goBinary('fencing');
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);
const env = { ...process.env, KUBECONFIG: cp.kubeconfigPath };
const starters = {
  ours: (namespace) => (identity) =>
    spawn(childNode(), [ours, namespace, identity], { env, stdio: ['ignore', 'ignore', 'ignore'] }),
  'controller-runtime': (namespace) => (identity) =>
    spawn(peerBinary, ['-kubeconfig-file', cp.kubeconfigPath, '-namespace', namespace, '-identity', identity], {
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
    }),
};

const rows = [];
try {
  for (const [peer, starter] of Object.entries(starters)) {
    for (let run = 1; run <= RUNS; run++) {
      const namespace = `fencing-${peer === 'ours' ? 'ours' : 'cr'}-${run}`;
      const r = await pausedLeaderTrial({ client, namespace, start: starter(namespace) });
      const exit = r.oldLeaderExit
        ? `exit ${r.oldLeaderExit.code ?? r.oldLeaderExit.signal} after ${(r.oldLeaderExitMs / 1000).toFixed(1)} s`
        : 'did not exit (killed)';
      rows.push([
        `${peer} #${run}`,
        r.oldLeaderWritesAfterMove,
        (r.pausedMs / 1000).toFixed(1),
        r.leaderWritesBefore,
        r.followerWritesAfterMove,
        exit,
      ]);
      console.error(`${peer} run ${run}: ${r.oldLeaderWritesAfterMove} writes after the Lease moved`);
    }
  }
} finally {
  client.close();
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
}
printTable(
  [
    'peer, run',
    'old leader writes after move',
    'paused s',
    'leader writes before',
    'follower writes after',
    'old leader after SIGCONT',
  ],
  rows,
);
console.log(loadLine());
