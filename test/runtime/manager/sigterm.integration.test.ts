import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { ConfigMaps, Namespaces, type RestClient } from '../../../src/runtime/rest/index.js';
import { newClient } from '../../../src/runtime/index.js';
import { eventually } from '../../support/eventually.js';
import { CHILD_START_MS } from '../../support/limits.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
let env: TestEnvironment;
let api: RestClient;
let dir: string;

beforeAll(async () => {
  env = await TestEnvironment.start();
  api = newClient(env.kubeConfig);
  dir = mkdtempSync(join(tmpdir(), 'sigterm-'));
  writeFileSync(join(dir, 'kubeconfig'), env.kubeconfigYaml());
});

afterAll(async () => {
  api?.close();
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an operator process', () => {
  it('on SIGTERM finishes the in-flight reconcile, starts no new one, and exits 0', async () => {
    const ns = 'sigterm';
    await api.create(Namespaces, { metadata: { name: ns } });
    const child = spawn(
      process.execPath,
      ['--import', join(fixtures, 'ts-loader.mjs'), join(fixtures, 'drain-main.ts')],
      {
        env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), TEST_NAMESPACE: ns },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines: string[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => lines.push(...d.toString().trim().split('\n')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await eventually(() => lines.includes('ready'), {
        what: 'the child to be ready',
        timeoutMs: CHILD_START_MS,
        diagnose: () => `child stdout:\n${lines.join('\n')}\nchild stderr:\n${stderr}`,
      });
      await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'first' } });
      await eventually(() => lines.includes('start first'), { what: 'reconcile started' });
      child.kill('SIGTERM');
      await api.create(ConfigMaps, { metadata: { namespace: ns, name: 'second' } });
      expect(await exited).toBe(0);
      expect(lines).toEqual(['ready', 'start first', 'end first', 'stopped']);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
