// A manager whose caches outgrow its heap stops with one line that says how far the heap got, what it caches and
// which limit to raise, and exit code 1: never with V8's fatal "Reached heap limit" abort in the middle of a list.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { ConfigMaps, Namespaces, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { minutes } from '../../support/commands.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/heap-limited.ts', import.meta.url));
// 1,200 ConfigMaps of 24 KiB, each different: about 28 MiB of strings, in a heap of 24 MiB.
const OBJECTS = 1200;
const HEAP_MB = 24;
const ns = 'heap';

describe('a manager whose caches outgrow its heap', () => {
  let env: TestEnvironment | undefined;
  let client: RestClient | undefined;
  let dir = '';

  beforeAll(async () => {
    mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(repoRoot, '.tmp', 'heap-guard-'));
    await bundleForNode(fixture, join(dir, 'heap-limited.mjs'));
    env = await TestEnvironment.start();
    client = newClient(env.kubeConfig);
    writeFileSync(join(dir, 'kubeconfig'), env.kubeconfigYaml());
    await client.create(Namespaces, { metadata: { name: ns } });
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < OBJECTS) {
          const i = next++;
          await client!.create(ConfigMaps, {
            metadata: { namespace: ns, name: `cm-${i}` },
            data: { pad: `${i}:`.padEnd(24 * 1024, String.fromCharCode(97 + (i % 26))) },
          });
        }
      }),
    );
  }, minutes(3));
  afterAll(async () => {
    client?.close();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'stops with one line naming the limit to raise and the size reached, exit code 1, and no V8 abort',
    async () => {
      const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, join(dir, 'heap-limited.mjs'), ns], {
        env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      const output = `${stdout}${stderr}`;
      expect(output, output).not.toMatch(/Reached heap limit|heap out of memory|FATAL ERROR/);
      expect(code, output).toBe(1);
      const lines = output.split('\n').filter((l) => l.trim() !== '');
      expect(lines, output).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { level: string; msg: string; error: string };
      expect(line).toMatchObject({ level: 'error', msg: 'problem running manager' });
      expect(line.error).toMatch(
        /^the heap is full: \d+ MiB of its 24 MiB limit still in use after a full garbage collection, with [\d,]+ objects cached( \(ConfigMap v1 [\d,]+\))?(, still listing ConfigMap v1)?; raise the memory limit of the manager's container \(the scaffolded manifest gives the heap 70% of it, with --max-old-space-size-percentage=70\)/,
      );
    },
    minutes(2),
  );
});
