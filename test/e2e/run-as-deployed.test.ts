import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { ConfigMaps } from '../../src/runtime/rest/index.js';
import { defineResource, newClient, type Client, type KubeObject } from '../../src/runtime/index.js';

// `scaffold run --as-deployed` on a scaffolded project against a real control plane with RBAC on: the manager runs as
// its ServiceAccount, so a permission its markers do not grant is refused by the API server and reported with the
// marker to add.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
// Generous bounds for a loaded two-core machine (npm install, tsc, a control plane); none asserts speed.
const minutes = (n: number): number => n * 60_000;

function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: minutes(10), env: { ...env, CI: 'true', NO_COLOR: '1' } });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${r.status}\n${`${r.stdout}${r.stderr}`.slice(-6000)}`);
}

/** A running `scaffold run --as-deployed`, with its report (stderr) and the manager's output (stdout) collected. */
class AsDeployedRun {
  readonly proc: ChildProcess;
  report = '';
  output = '';

  constructor(cwd: string, kubeconfig: string) {
    this.proc = spawn(process.execPath, [scaffoldBin, 'run', '--as-deployed', '--no-build'], {
      cwd,
      env: { ...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stderr!.on('data', (c: Buffer) => (this.report += c.toString()));
    this.proc.stdout!.on('data', (c: Buffer) => (this.output += c.toString()));
  }

  /** Waits until the report contains `text` (or the run ends, which fails with everything it printed). */
  async waitFor(text: string | RegExp): Promise<void> {
    await vi.waitFor(
      () => {
        const seen = typeof text === 'string' ? this.report.includes(text) : text.test(this.report);
        if (!seen && this.proc.exitCode !== null) throw new Error(`the run ended (${this.proc.exitCode}) before "${String(text)}":\n${this.report}\n${this.output.slice(-4000)}`);
        expect(seen, this.report).toBe(true);
      },
      { timeout: minutes(2), interval: 100 },
    );
  }

  /** Ctrl-C; resolves with the exit code. */
  async interrupt(): Promise<number | null> {
    if (this.proc.exitCode !== null) return this.proc.exitCode;
    const exited = new Promise<number | null>((resolve) => this.proc.once('exit', (code) => resolve(code)));
    this.proc.kill('SIGINT');
    return exited;
  }
}

describe('scaffold run --as-deployed', () => {
  let base: string;
  let project: string;
  let env: TestEnvironment;
  let client: Client;
  let kubeconfig: string;
  const captains = defineResource<KubeObject & { spec: object }>({ group: 'crew.example.com', version: 'v1', kind: 'Captain', plural: 'captains', namespaced: true });
  const controllerFile = () => join(project, 'internal', 'controller', 'captain_controller.ts');

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    base = mkdtempSync(join(tmpdir(), 'kubescaffold-as-deployed-'));
    project = join(base, 'crew');
    mkdirSync(project);
    run(project, process.execPath, [scaffoldBin, 'init', '--domain', 'example.com', '--skip-install']);
    run(project, process.execPath, [scaffoldBin, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain']);
    // The reconciler also creates a ConfigMap, for which the scaffolded markers grant nothing.
    const source = readFileSync(controllerFile(), 'utf8')
      .replace("import { CaptainResource }", "import { ConfigMaps } from 'kubescaffold/runtime/rest';\nimport { CaptainResource }")
      .replace(
        '    // TODO(user): your logic here\n',
        "    await this.client.create(ConfigMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${req.name}-config`, namespace: req.namespace }, data: { captain: req.name } }).catch((e: unknown) => {\n" +
          '      if ((e as { code?: number }).code !== 409) throw e;\n' +
          '    });\n',
      );
    expect(source).toContain('ConfigMaps, {');
    writeFileSync(controllerFile(), source);
    run(project, 'npm', ['install', '--no-audit', '--no-fund']);
    run(project, process.execPath, [scaffoldBin, 'manifests']);
    run(project, 'npm', ['run', 'build']);
    env = await TestEnvironment.start({});
    client = newClient(env.kubeConfig);
    kubeconfig = join(base, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
  }, minutes(12));

  afterAll(async () => {
    await env?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('reports a permission its markers do not grant, with the marker to add; with the marker added the same run reconciles', async () => {
    const first = new AsDeployedRun(project, kubeconfig);
    try {
      await first.waitFor('ready (/readyz: HTTP 200)');
      // It runs as the ServiceAccount of config/default, and its metrics are served to the metrics-reader only.
      expect(first.report).toContain('identity: ServiceAccount crew-system/crew-controller-manager');
      await first.waitFor('metrics with a token bound to crew-metrics-reader: HTTP 200');
      expect(first.report).toContain('metrics without a token: HTTP 401');
      await client.create(captains, { apiVersion: 'crew.example.com/v1', kind: 'Captain', metadata: { name: 'ahab', namespace: 'default' }, spec: {} });
      await first.waitFor('// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create');
      expect(first.report).toContain('Forbidden: system:serviceaccount:crew-system:crew-controller-manager may not create configmaps (API group "") in namespace default');
    } finally {
      expect(await first.interrupt()).toBe(0);
    }
    // Reported once, however often the reconciler retried.
    expect(first.report.match(/resources=configmaps,verbs=create/g)).toHaveLength(1);

    const source = readFileSync(controllerFile(), 'utf8');
    writeFileSync(controllerFile(), source.replace('/** CaptainReconciler', '// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create\n\n/** CaptainReconciler'));
    run(project, process.execPath, [scaffoldBin, 'manifests']);
    const second = new AsDeployedRun(project, kubeconfig);
    try {
      await second.waitFor('ready (/readyz: HTTP 200)');
      await vi.waitFor(async () => expect((await client.get(ConfigMaps, { namespace: 'default', name: 'ahab-config' })).data).toEqual({ captain: 'ahab' }), {
        timeout: minutes(2),
        interval: 200,
      });
      expect(second.report).not.toContain('Forbidden');
    } finally {
      expect(await second.interrupt()).toBe(0);
    }
    expect(second.report).toContain('the applied RBAC and CRDs stay');
  }, minutes(6));
});
