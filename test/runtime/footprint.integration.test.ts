// What an operator process loads, checked on the built runtime in a child process as a pod would run it (secure
// metrics, probes, leader election, a controller reconciling): none of @kubernetes/client-node's JavaScript (its
// types only; importing it takes a process past 110 MiB, and the scaffolded pod has a small memory limit), and none
// of the heavy modules, ours or Node's, that only some operators need.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { ConfigMaps, Namespaces } from '../../src/runtime/rest/index.js';
import { newClient } from '../../src/runtime/index.js';
import { CHILD_START_MS, CONTROL_PLANE_START_MS } from '../support/limits.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dist = join(repo, 'src', 'runtime', 'dist');
const child = fileURLToPath(new URL('./fixtures/footprint-main.mjs', import.meta.url));

describe('the runtime as an operator process loads it', () => {
  let env: TestEnvironment;
  let dir: string;
  let loaded: string[];
  let builtins: string[];

  beforeAll(async () => {
    if (!existsSync(join(dist, 'index.js')))
      throw new Error('src/runtime/dist/ is missing: run `npm run build` first (npm test does)');
    env = await TestEnvironment.start();
    dir = mkdtempSync(join(tmpdir(), 'ks-footprint-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
    const client = newClient(env.kubeConfig);
    await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'footprint' } });
    await client.create(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'footprint', namespace: 'footprint' },
    });
    client.close();
    const log = join(dir, 'esm.log');
    const run = spawnSync(process.execPath, [child, dist, 'footprint'], {
      env: { ...process.env, KUBECONFIG: kubeconfig, FOOTPRINT_LOG: log },
      encoding: 'utf8',
      timeout: CHILD_START_MS,
    });
    if (run.status !== 0)
      throw new Error(`the operator process failed (${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
    const report = JSON.parse(run.stdout.trim().split('\n').pop()!) as { cjs: string[]; builtins: string[] };
    loaded = [...readFileSync(log, 'utf8').split('\n').filter(Boolean), ...report.cjs.map((p) => `file://${p}`)];
    builtins = report.builtins;
  }, CONTROL_PLANE_START_MS + CHILD_START_MS);

  afterAll(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const fromPackage = (name: string): string[] => loaded.filter((u) => u.includes(`/node_modules/${name}/`));

  it('reconciled with its own code and loaded none of @kubernetes/client-node', () => {
    expect(loaded.some((u) => u.includes('/src/runtime/dist/manager/manager.js'))).toBe(true);
    expect(fromPackage('@kubernetes/client-node')).toEqual([]);
  });

  it('loads only the metric classes of prom-client, not its default metrics or @opentelemetry/api', () => {
    expect(fromPackage('prom-client').length).toBeGreaterThan(0);
    expect(
      fromPackage('prom-client').filter((u) =>
        /prom-client\/(index\.js|lib\/defaultMetrics\.js|lib\/metrics\/)/.test(u),
      ),
    ).toEqual([]);
    expect(fromPackage('@opentelemetry/api')).toEqual([]);
  });

  it('loads no webhook machinery when it serves no webhooks', () => {
    expect(loaded.filter((u) => u.includes('/src/runtime/dist/webhook/'))).toEqual([]);
  });

  it("loads Node's zlib only with a compressed answer, which an idle manager never gets", () => {
    expect(builtins).toContain('https');
    expect(builtins).not.toContain('zlib');
  });

  it('takes node:fs, node:crypto and node:net without the lazy exports an ES module import of them evaluates', () => {
    expect(builtins).toContain('crypto');
    expect(builtins).not.toContain('internal/crypto/webcrypto');
    expect(builtins).not.toContain('internal/fs/streams');
    expect(builtins).not.toContain('internal/blocklist');
  });

  it('loads no X.509 library, no HTTP/2, and the small YAML parser only for its kubeconfig file', () => {
    expect(fromPackage('@peculiar/x509')).toEqual([]);
    expect(loaded).not.toContain('node:http2');
    expect(fromPackage('yaml')).toEqual([]);
    expect(fromPackage('js-yaml').length).toBeGreaterThan(0);
  });
});
