// A leader paused past its term (SIGSTOP) must not write once it runs again: the other replica has taken the Lease by
// then. Two replicas of test/runtime/fixtures/fenced-writer.ts patch 20 ConfigMaps every 300 ms; the experiment
// (scripts/lib/paused-leader.js) records every write and the Lease's holders through watches, ordered by
// resourceVersion. bench/leader-fencing.js runs the same experiment against controller-runtime.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { pausedLeaderTrial } from '../../../scripts/lib/paused-leader.js';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { minutes } from '../../support/commands.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/fenced-writer.ts', import.meta.url));

describe('a leader paused past its term', () => {
  let env: TestEnvironment | undefined;
  let client: RestClient | undefined;
  let dir = '';
  let replica = '';
  let kubeconfig = '';
  beforeAll(async () => {
    mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(repoRoot, '.tmp', 'paused-leader-'));
    replica = join(dir, 'fenced-writer.mjs');
    await bundleForNode(fixture, replica);
    env = await TestEnvironment.start();
    client = newClient(env.kubeConfig);
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'makes no write after the Lease moved, in 3 runs out of 3, and exits as a lost leader',
    async () => {
      for (let run = 1; run <= 3; run++) {
        const namespace = `paused-leader-${run}`;
        const start = (identity: string) =>
          spawn(process.execPath, [replica, namespace, identity], {
            env: { ...process.env, KUBECONFIG: kubeconfig },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
        const result = await pausedLeaderTrial({ client: client!, namespace, start });
        // The trial is only a trial if both wrote and the pause outlasted the term.
        expect(result.leaderWritesBefore, `run ${run}`).toBeGreaterThan(0);
        expect(result.followerWritesAfterMove, `run ${run}`).toBeGreaterThan(0);
        expect(result.oldLeaderWritesAfterMove, `run ${run}: writes of the old leader after the Lease moved`).toBe(0);
        expect(result.oldLeaderExit, `run ${run}: the old leader stops by itself`).toEqual({ code: 1, signal: null });
      }
    },
    minutes(5),
  );
});
