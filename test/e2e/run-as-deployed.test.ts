import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { ConfigMaps } from '../../src/runtime/rest/index.js';
import { defineResource, newClient, type Client, type KubeObject } from '../../src/runtime/index.js';
import { enableSharding } from '../kustomize/trees.js';
import { expectSuccess } from '../support/commands.js';
import { installProject } from '../support/project-install.js';

// `scaffold run --as-deployed` on a scaffolded project against a real control plane with RBAC on: the manager runs as
// its ServiceAccount, so a permission its markers do not grant is refused by the API server and reported with the
// marker to add.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
// Generous bounds for a loaded two-core machine (npm install, tsc, a control plane); none asserts speed.
const minutes = (n: number): number => n * 60_000;

function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: minutes(10),
    env: { ...env, CI: 'true', NO_COLOR: '1' },
  });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')}: exit ${r.status}\n${`${r.stdout}${r.stderr}`.slice(-6000)}`);
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
        if (!seen && this.proc.exitCode !== null)
          throw new Error(
            `the run ended (${this.proc.exitCode}) before "${String(text)}":\n${this.report}\n${this.output.slice(-4000)}`,
          );
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
  const captains = defineResource<KubeObject & { spec: object }>({
    group: 'crew.example.com',
    version: 'v1',
    kind: 'Captain',
    plural: 'captains',
    namespaced: true,
  });
  const controllerFile = () => join(project, 'internal', 'controller', 'captain_controller.ts');

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    base = mkdtempSync(join(tmpdir(), 'kubescaffold-as-deployed-'));
    project = join(base, 'crew');
    mkdirSync(project);
    run(project, process.execPath, [scaffoldBin, 'init', '--domain', 'example.com', '--skip-install']);
    run(project, process.execPath, [
      scaffoldBin,
      'create',
      'api',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'Captain',
    ]);
    // The reconciler also creates a ConfigMap, for which the scaffolded markers grant nothing.
    const source = readFileSync(controllerFile(), 'utf8')
      .replace(
        'import { CaptainResource }',
        "import { ConfigMaps } from '@kubescaffold/runtime/rest';\nimport { CaptainResource }",
      )
      .replace(
        '    // TODO(user): your logic here\n',
        "    await this.client.create(ConfigMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${req.name}-config`, namespace: req.namespace }, data: { captain: req.name } }).catch((e: unknown) => {\n" +
          '      if ((e as { code?: number }).code !== 409) throw e;\n' +
          '    });\n',
      );
    expect(source).toContain('ConfigMaps, {');
    writeFileSync(controllerFile(), source);
    // The install of the run's first project of these dependencies, or npm's own here.
    expectSuccess(installProject(project), 'npm install');
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

  it(
    'reports a permission its markers do not grant, with the marker to add; with the marker added the same run reconciles',
    async () => {
      const first = new AsDeployedRun(project, kubeconfig);
      try {
        await first.waitFor('ready (/readyz: HTTP 200)');
        // It runs as the ServiceAccount of config/default, and its metrics are served to the metrics-reader only.
        expect(first.report).toContain('identity: ServiceAccount crew-system/crew-controller-manager');
        // The container's limits, enforced (the test machines run as root with cgroups).
        expect(first.report).toContain('memory limit 192 MiB: enforced by cgroup');
        expect(first.report).toContain('CPU limit 500m: enforced by cgroup');
        await first.waitFor('metrics with a token bound to crew-metrics-reader: HTTP 200');
        expect(first.report).toContain('metrics without a token: HTTP 401');
        await client.create(captains, {
          apiVersion: 'crew.example.com/v1',
          kind: 'Captain',
          metadata: { name: 'ahab', namespace: 'default' },
          spec: {},
        });
        await first.waitFor('// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create');
        expect(first.report).toContain(
          'Forbidden: system:serviceaccount:crew-system:crew-controller-manager may not create configmaps (API group "") in namespace default',
        );
      } finally {
        expect(await first.interrupt(), `${first.report}\n${first.output.slice(-3000)}`).toBe(0);
      }
      // Reported once, however often the reconciler retried.
      expect(first.report.match(/resources=configmaps,verbs=create/g)).toHaveLength(1);

      const source = readFileSync(controllerFile(), 'utf8');
      writeFileSync(
        controllerFile(),
        source.replace(
          '/** CaptainReconciler',
          '// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create\n\n/** CaptainReconciler',
        ),
      );
      run(project, process.execPath, [scaffoldBin, 'manifests']);
      const second = new AsDeployedRun(project, kubeconfig);
      try {
        await second.waitFor('ready (/readyz: HTTP 200)');
        await vi.waitFor(
          async () =>
            expect((await client.get(ConfigMaps, { namespace: 'default', name: 'ahab-config' })).data).toEqual({
              captain: 'ahab',
            }),
          {
            timeout: minutes(2),
            interval: 200,
          },
        );
        expect(second.report).not.toContain('Forbidden');
      } finally {
        expect(await second.interrupt(), `${second.report}\n${second.output.slice(-3000)}`).toBe(0);
      }
      expect(second.report).toContain('the applied RBAC and CRDs stay');
    },
    minutes(6),
  );

  it(
    'hands leadership over between two runs with --leader-elect when the leader stops',
    async () => {
      const leader = new AsDeployedRun(project, kubeconfig);
      let follower: AsDeployedRun | undefined;
      try {
        await vi.waitFor(() => expect(leader.output).toContain('successfully acquired lease'), {
          timeout: minutes(2),
          interval: 100,
        });
        follower = new AsDeployedRun(project, kubeconfig);
        await follower.waitFor('ready (/readyz: HTTP 200)');
        await vi.waitFor(() => expect(follower!.output).toContain('attempting to acquire leader lease'), {
          timeout: minutes(1),
          interval: 100,
        });
        expect(follower.output).not.toContain('successfully acquired lease');
        expect(await leader.interrupt(), `${leader.report}\n${leader.output.slice(-3000)}`).toBe(0);
        // The leader releases its Lease on a clean stop, so the follower takes over without waiting out the lease.
        await vi.waitFor(() => expect(follower!.output).toContain('successfully acquired lease'), {
          timeout: minutes(1),
          interval: 100,
        });
      } finally {
        await leader.interrupt();
        if (follower) expect(await follower.interrupt(), `${follower.report}\n${follower.output.slice(-3000)}`).toBe(0);
      }
    },
    minutes(5),
  );

  it(
    "with config/default's [SHARDING] sections on, two runs share the Captains, each reconciling its partitions",
    async () => {
      const kustomization = join(project, 'config', 'default', 'kustomization.yaml');
      const original = readFileSync(kustomization, 'utf8');
      enableSharding({ root: project, name: 'crew', cleanup: () => {} });
      const runs: AsDeployedRun[] = [];
      // The Captains each run's manager logged reconciling (JSON lines on its stdout).
      const reconciled = (r: AsDeployedRun): Set<string> =>
        new Set(
          r.output
            .split('\n')
            .filter((line) => line.includes('"reconciling Captain"'))
            .map((line) => (JSON.parse(line) as { name: string }).name),
        );
      const count = (r: AsDeployedRun, msg: string): number => r.output.split(`"msg":"${msg}"`).length - 1;
      try {
        runs.push(new AsDeployedRun(project, kubeconfig));
        const [a] = runs as [AsDeployedRun];
        await a.waitFor('ready (/readyz: HTTP 200)');
        await vi.waitFor(() => expect(count(a, 'partition started')).toBe(12), { timeout: minutes(1), interval: 100 });
        runs.push(new AsDeployedRun(project, kubeconfig));
        const b = runs[1]!;
        // The second replica joins: half the partitions move to it once the first has let them go.
        await vi.waitFor(
          () => {
            expect(count(b, 'partition started')).toBe(6);
            expect(count(a, 'partition released')).toBe(6);
          },
          { timeout: minutes(1), interval: 100 },
        );
        const names = Array.from({ length: 24 }, (_, i) => `fleet-${i}`);
        for (const name of names)
          await client.create(captains, {
            apiVersion: 'crew.example.com/v1',
            kind: 'Captain',
            metadata: { name, namespace: 'default' },
            spec: {},
          });
        await vi.waitFor(
          () => expect(names.filter((n) => !reconciled(a).has(n) && !reconciled(b).has(n))).toEqual([]),
          { timeout: minutes(1), interval: 100 },
        );
        expect(
          names.filter((n) => reconciled(a).has(n) && reconciled(b).has(n)),
          'reconciled by both',
        ).toEqual([]);
        expect(names.filter((n) => reconciled(a).has(n)).length).toBeGreaterThan(0);
        expect(names.filter((n) => reconciled(b).has(n)).length).toBeGreaterThan(0);
      } finally {
        for (const r of runs.reverse()) expect(await r.interrupt(), `${r.report}\n${r.output.slice(-3000)}`).toBe(0);
        writeFileSync(kustomization, original);
      }
    },
    minutes(5),
  );

  it(
    'restarts the manager when its liveness probe fails, as the kubelet would',
    async () => {
      const manifest = join(project, 'config', 'manager', 'manager.yaml');
      const main = join(project, 'cmd', 'main.ts');
      const originalManifest = readFileSync(manifest, 'utf8');
      const originalMain = readFileSync(main, 'utf8');
      const sick = join(base, 'sick');
      // /healthz fails while the file "sick" exists; the probe checks every second and gives up after 3 failures.
      writeFileSync(
        main,
        originalMain.replace(
          "mgr.addHealthzCheck('healthz', ping);",
          `mgr.addHealthzCheck('healthz', async () => {\n  if ((await import('node:fs')).existsSync(${JSON.stringify(sick)})) throw new Error('sick');\n});`,
        ),
      );
      expect(readFileSync(main, 'utf8')).toContain('sick');
      writeFileSync(
        manifest,
        originalManifest.replace(
          /path: \/healthz\n(\s+)port: 8081\n\s+initialDelaySeconds: 15\n\s+periodSeconds: 20/,
          'path: /healthz\n$1port: 8081\n$1initialDelaySeconds: 0\n$1periodSeconds: 1',
        ),
      );
      expect(readFileSync(manifest, 'utf8')).toContain('periodSeconds: 1\n');
      run(project, 'npm', ['run', 'build']);
      const flaky = new AsDeployedRun(project, kubeconfig);
      try {
        await flaky.waitFor('ready (/readyz: HTTP 200)');
        writeFileSync(sick, '');
        await flaky.waitFor(
          'liveness probe failed (/healthz: HTTP 500, 3 checks in a row): restarting the manager, as the kubelet would',
        );
        rmSync(sick);
        await flaky.waitFor('restart 1');
        // The restarted manager is ready again, and the run goes on.
        await vi.waitFor(() => expect(flaky.report.split('restart 1')[1]).toContain('ready (/readyz: HTTP 200)'), {
          timeout: minutes(1),
          interval: 100,
        });
        expect(flaky.proc.exitCode).toBeNull();
      } finally {
        expect(await flaky.interrupt(), `${flaky.report}\n${flaky.output.slice(-3000)}`).toBe(0);
        rmSync(sick, { force: true });
        writeFileSync(manifest, originalManifest);
        writeFileSync(main, originalMain);
        run(project, 'npm', ['run', 'build']);
      }
    },
    minutes(4),
  );

  it(
    "says which limit to raise when the manager needs more memory than its manifest's limit",
    async () => {
      const manifest = join(project, 'config', 'manager', 'manager.yaml');
      const originalManifest = readFileSync(manifest, 'utf8');
      const originalSource = readFileSync(controllerFile(), 'utf8');
      // A reconciler that holds 128 MiB for a Captain named "hungry", under a 64 MiB limit.
      writeFileSync(manifest, originalManifest.replace(/memory: 192Mi/, 'memory: 64Mi'));
      writeFileSync(
        controllerFile(),
        originalSource
          .replace(
            '    await this.client.create(ConfigMaps',
            "    if (req.name === 'hungry') held.push(Buffer.alloc(128 * 2 ** 20, 1));\n    await this.client.create(ConfigMaps",
          )
          .replace('/** CaptainReconciler', 'const held: Buffer[] = [];\n\n/** CaptainReconciler'),
      );
      expect(readFileSync(controllerFile(), 'utf8')).toContain('held.push(');
      run(project, 'npm', ['run', 'build']);
      const small = new AsDeployedRun(project, kubeconfig);
      try {
        await small.waitFor('memory limit 64 MiB');
        if (small.report.includes('NOT enforced here')) {
          throw new Error(
            `this test needs a memory cgroup (the machine runs tests as root on cgroup v2), and none could be made:\n${small.report}`,
          );
        }
        await small.waitFor('ready (/readyz: HTTP 200)');
        await client.create(captains, {
          apiVersion: 'crew.example.com/v1',
          kind: 'Captain',
          metadata: { name: 'hungry', namespace: 'default' },
          spec: {},
        });
        await small.waitFor(
          'OOMKilled: the manager needed more than its 64 MiB limit; raise resources.limits.memory in config/manager/manager.yaml',
        );
        const code = await new Promise<number | null>((resolve) =>
          small.proc.exitCode !== null ? resolve(small.proc.exitCode) : small.proc.once('exit', resolve),
        );
        expect(code).not.toBe(0);
      } finally {
        await small.interrupt();
        writeFileSync(manifest, originalManifest);
        writeFileSync(controllerFile(), originalSource);
        await client.delete(captains, { namespace: 'default', name: 'hungry' }).catch(() => undefined);
        run(project, 'npm', ['run', 'build']);
      }
    },
    minutes(4),
  );

  it(
    'with --namespaced, the manager sees only its own namespace',
    async () => {
      const marker = '// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create';
      const source = readFileSync(controllerFile(), 'utf8');
      if (!source.includes(marker))
        writeFileSync(controllerFile(), source.replace('/** CaptainReconciler', `${marker}\n\n/** CaptainReconciler`));
      run(project, process.execPath, [scaffoldBin, 'edit', '--namespaced']);
      // What edit asks the user to do by hand: RBAC markers scoped to the namespace, and the Manager told to watch it.
      writeFileSync(
        controllerFile(),
        readFileSync(controllerFile(), 'utf8').replace(/^(\/\/ \+kubebuilder:rbac:.*)$/gm, '$1,namespace=crew-system'),
      );
      const main = join(project, 'cmd', 'main.ts');
      writeFileSync(
        main,
        readFileSync(main, 'utf8')
          .replace(
            'const mgr = new Manager({',
            "const watchNamespaces = (process.env.WATCH_NAMESPACE ?? '').split(',').filter((ns) => ns !== '');\n\nconst mgr = new Manager({",
          )
          .replace(
            '  // +kubebuilder:scaffold:manager-options',
            '  cache: { defaultNamespaces: watchNamespaces },\n  // +kubebuilder:scaffold:manager-options',
          ),
      );
      expect(readFileSync(main, 'utf8')).toContain('defaultNamespaces: watchNamespaces');
      run(project, process.execPath, [scaffoldBin, 'manifests']);
      expect(readFileSync(join(project, 'config', 'rbac', 'role.yaml'), 'utf8')).toContain('kind: Role\n');
      run(project, 'npm', ['run', 'build']);
      const scoped = new AsDeployedRun(project, kubeconfig);
      try {
        await scoped.waitFor('ready (/readyz: HTTP 200)');
        // WATCH_NAMESPACE comes from the Downward API: the pod's own namespace.
        await client.create(captains, {
          apiVersion: 'crew.example.com/v1',
          kind: 'Captain',
          metadata: { name: 'outside', namespace: 'default' },
          spec: {},
        });
        await client.create(captains, {
          apiVersion: 'crew.example.com/v1',
          kind: 'Captain',
          metadata: { name: 'inside', namespace: 'crew-system' },
          spec: {},
        });
        await vi.waitFor(
          async () =>
            expect((await client.get(ConfigMaps, { namespace: 'crew-system', name: 'inside-config' })).data).toEqual({
              captain: 'inside',
            }),
          {
            timeout: minutes(2),
            interval: 200,
          },
        );
        // Both were created before either was reconciled; only the one in the manager's namespace ever was.
        expect(scoped.output).toContain('"name":"inside"');
        expect(scoped.output).not.toContain('"name":"outside"');
        expect(scoped.report).not.toContain('Forbidden');
      } finally {
        expect(await scoped.interrupt(), `${scoped.report}\n${scoped.output.slice(-3000)}`).toBe(0);
      }
    },
    minutes(4),
  );
});
