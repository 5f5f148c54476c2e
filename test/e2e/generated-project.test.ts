import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { expectSuccess, minutes, runCommand as run } from '../support/commands.js';
import { installProject } from '../support/project-install.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCgroup, type MemoryCgroup } from '../../src/cluster/cgroup.js';
import {
  nodeOptionsForLocalRun,
  parseQuantity,
  resolveContainerEnv,
  type ContainerSpec,
} from '../../src/cluster/container.js';
import { entrypointNodeFlags, supportedNodeFlags } from '../../src/cluster/deployed/entrypoint.js';
import { TestEnvironment } from '../../src/envtest/index.js';
import { freePort } from '../../src/envtest/controlplane/ports.js';
import { kustomizeBuild } from '../../src/kustomize/index.js';
import { Namespaces } from '../../src/runtime/rest/index.js';
import { LeaseResource as Leases, RING_LABEL } from '../../src/runtime/manager/index.js';
import { TinyCA } from '../../src/runtime/certs/tinyca.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';

// The whole user journey: scaffold a project with the built CLI, install it linked to this checkout, and run the
// project's own build, lint and tests (which start a real kube-apiserver and etcd).
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
// scripts/node-versions.js runs this file again on Node 22 and 24 for what differs between Node versions: the build,
// lint, tests and manager of the project. The two failure paths (a sample missing a required field, a failing e2e
// test) are the CLI's and make's behaviour, not Node's: they run once, on the Node of `npm test`.
const onNodeMatrix = process.env.KUBESCAFFOLD_NODE_MATRIX === '1';
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
/** POSTs JSON to the manager's webhook server, which serves a certificate it made itself. */
function postJson(port: number, path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a project scaffolded by scaffold init + create api + create webhook', () => {
  let base: string;
  let project: string;

  beforeAll(() => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    base = mkdtempSync(join(tmpdir(), 'kubescaffold-e2e-'));
    project = join(base, 'guestbook');
    mkdirSync(project);
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'init', '--domain', 'example.com', '--skip-install']));
    expectSuccess(
      run(project, process.execPath, [
        scaffoldBin,
        'create',
        'api',
        '--group',
        'webapp',
        '--version',
        'v1',
        '--kind',
        'Guestbook',
      ]),
    );
    expectSuccess(
      run(project, process.execPath, [
        scaffoldBin,
        'create',
        'api',
        '--group',
        'webapp',
        '--version',
        'v1',
        '--kind',
        'Gateway',
        '--namespaced=false',
      ]),
    );
    expectSuccess(
      run(project, process.execPath, [
        scaffoldBin,
        'create',
        'api',
        '--group',
        'webapp',
        '--version',
        'v2',
        '--kind',
        'Guestbook',
        '--controller=false',
      ]),
    );
    expectSuccess(
      run(project, process.execPath, [
        scaffoldBin,
        'create',
        'webhook',
        '--group',
        'webapp',
        '--version',
        'v1',
        '--kind',
        'Guestbook',
        '--defaulting',
        '--programmatic-validation',
        '--conversion',
        '--spoke',
        'v2',
      ]),
    );
    expectSuccess(
      run(project, process.execPath, [
        scaffoldBin,
        'create',
        'api',
        '--group',
        'apps',
        '--version',
        'v1',
        '--kind',
        'Deployment',
        '--resource=false',
      ]),
    );
    // The install of the run's first project of these dependencies (on this Node), or npm's own here.
    expectSuccess(installProject(project), 'npm install');
  }, minutes(12));

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it("depends on this checkout's packages, packed into its vendor/: the runtime to run, the CLI and envtest to build and test", () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(pkg.dependencies).toEqual({ '@kubescaffold/runtime': `file:vendor/kubescaffold-runtime-${version}.tgz` });
    expect(pkg.devDependencies).toMatchObject({
      kubescaffold: `file:vendor/kubescaffold-${version}.tgz`,
      '@kubescaffold/envtest': `file:vendor/kubescaffold-envtest-${version}.tgz`,
    });
    for (const file of ['kubescaffold', 'kubescaffold-runtime', 'kubescaffold-envtest'])
      expect(existsSync(join(project, 'vendor', `${file}-${version}.tgz`)), file).toBe(true);
  });

  it(
    'compiles with strict tsc',
    () => {
      expectSuccess(run(project, 'npm', ['run', 'build']));
      expect(existsSync(join(project, 'dist', 'cmd', 'main.js'))).toBe(true);
    },
    minutes(5),
  );

  it("reads its manager's flags as Go's flag package does: --help prints the usage (exit 0); an unknown flag or a bad value, Go's message and the usage (exit 2), no stack trace", () => {
    // Each exits before the manager reads a kubeconfig; a missing one makes sure none is reached.
    const main = (arg: string) =>
      spawnSync(process.execPath, ['dist/cmd/main.js', arg], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, KUBECONFIG: join(base, 'no-kubeconfig') },
      });
    const help = main('--help');
    expect([help.status, help.stdout.split('\n')[0]]).toEqual([0, 'Usage of manager:']);
    expect(help.stdout).toContain('  -webhook-port int\n    \tThe port the webhook server serves on. (default 9443)\n');
    for (const [arg, message] of [
      ['--bogus', 'flag provided but not defined: -bogus'],
      ['--leader-elect=maybe', 'invalid boolean value "maybe" for -leader-elect: parse error'],
      ['--webhook-port=x', 'invalid value "x" for flag -webhook-port: parse error'],
      ['--shard-key=zone', 'invalid value "zone" for flag -shard-key: must be uid or namespace'],
      [
        '--zap-log-level=loud',
        'invalid value "loud" for flag -zap-log-level: invalid log level "loud": use debug, info, error or a verbosity number',
      ],
    ] as const) {
      const r = main(arg);
      expect([r.status, ...r.stderr.split('\n').slice(0, 2)], arg).toEqual([2, message, 'Usage of manager:']);
      expect(r.stderr, arg).not.toMatch(/^\s+at /m);
    }
  });

  it('ends in one error line naming what to fix, exit 1, no stack: without a kubeconfig, without --lease-namespace out of a cluster, and with a CA that does not sign the server', async () => {
    const env = {
      ...process.env,
      KUBECONFIG: join(base, 'no-kubeconfig'),
      HOME: base,
      KUBERNETES_SERVICE_HOST: '',
      // No pod namespace to default the Leases' namespace to, wherever this runs.
      KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: join(base, 'no-service-account'),
    };
    // Async: the stand-in server below answers in this process while the manager runs.
    const main = async (kubeconfig: string, args: string[] = []) => {
      const child = spawn(process.execPath, ['dist/cmd/main.js', ...args], {
        cwd: project,
        env: { ...env, KUBECONFIG: kubeconfig },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const [status] = (await once(child, 'exit')) as [number | null];
      return {
        status,
        errors: stderr
          .trim()
          .split('\n')
          .filter((l) => l.includes('"level":"error"')),
        stderr,
      };
    };
    const none = await main(join(base, 'no-kubeconfig'));
    expect(none.status).toBe(1);
    expect(none.errors).toHaveLength(1);
    expect(JSON.parse(none.errors[0]!)).toMatchObject({
      level: 'error',
      logger: 'setup',
      msg: 'unable to get kubeconfig',
      error: expect.stringContaining(join(base, 'no-kubeconfig')),
    });

    // --shard-ring and --leader-elect keep Leases in the pod's namespace; out of a cluster, --lease-namespace names one.
    // Checked before the kubeconfig is read: with the flag, the manager gets past it to the missing kubeconfig.
    for (const args of [['--shard-ring=x'], ['--leader-elect'], ['--shard-ring=x', '--leader-elect']]) {
      const r = await main(join(base, 'no-kubeconfig'), args);
      expect([r.status, r.stderr.trim().split('\n').length], r.stderr).toEqual([1, 1]);
      expect(JSON.parse(r.errors[0]!)).toMatchObject({
        level: 'error',
        logger: 'setup',
        msg: 'unable to find the namespace for the Leases of --leader-elect and --shard-ring',
        error: expect.stringContaining('pass --lease-namespace=<namespace>'),
      });
    }
    const named = await main(join(base, 'no-kubeconfig'), ['--shard-ring=x', '--leader-elect', '--lease-namespace=ns']);
    expect([named.status, named.errors.length], named.stderr).toEqual([1, 1]);
    expect(JSON.parse(named.errors[0]!)).toMatchObject({ msg: 'unable to get kubeconfig' });

    // A server whose certificate another CA signed than the one the kubeconfig names.
    const ca = TinyCA.create({ commonName: 'server-ca' });
    const leaf = ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
    const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const kubeconfig = join(base, 'untrusted-kubeconfig');
      const otherCa = Buffer.from(TinyCA.create({ commonName: 'other-ca' }).certPem).toString('base64');
      writeFileSync(
        kubeconfig,
        `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: '${url}', certificate-authority-data: ${otherCa}}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n`,
      );
      const untrusted = await main(kubeconfig);
      expect(untrusted.status).toBe(1);
      expect(untrusted.errors, untrusted.stderr).toHaveLength(1);
      expect(JSON.parse(untrusted.errors[0]!)).toMatchObject({
        logger: 'setup',
        msg: 'problem running manager',
        error: expect.stringMatching(new RegExp(`^cannot trust the API server: ${url}: .*certificate-authority`)),
      });
      expect(untrusted.stderr).not.toMatch(/^\s+at /m);
    } finally {
      server.close();
    }
  });

  it(
    'passes eslint',
    () => {
      expectSuccess(run(project, 'npm', ['run', 'lint']));
    },
    minutes(5),
  );

  it(
    'generates its manifests and passes its own controller tests on a real control plane',
    () => {
      const result = run(project, 'npm', ['test']);
      expectSuccess(result);
      expect(result.output).toMatch(/Tests\s+\d+ passed/);
      // A passing run prints the report, not the log lines of the reconciles it ran.
      expect(result.output).not.toMatch(/^\{"level":/m);
      // npm test runs the controller tests (envtest and fake client) and leaves the e2e tests to `npm run test:e2e`.
      expect(result.output).toContain('guestbook_controller.fake.test.ts');
      expect(result.output).not.toContain('test/e2e/');
      const e2e = run(project, 'npx', ['vitest', 'list', '--project', 'e2e']);
      expectSuccess(e2e);
      expect(e2e.output).toContain('test/e2e/e2e.test.ts');
      expect(existsSync(join(project, 'config', 'crd', 'bases', 'webapp.example.com_guestbooks.yaml'))).toBe(true);
      expect(existsSync(join(project, 'config', 'rbac', 'role.yaml'))).toBe(true);
      expect(readFileSync(join(project, 'config', 'webhook', 'manifests.yaml'), 'utf8')).toContain(
        '/validate-webapp-example-com-v1-guestbook',
      );
    },
    minutes(10),
  );

  it.skipIf(onNodeMatrix)(
    'fails npm test once when a required spec field is missing from the sample, naming the field and the sample; passes with a defaulted field',
    () => {
      // npm test runs its manifests and type check whole; vitest, only the test of the sample's kind (the file after
      // --, as a user narrows a run): the other files pass here as in the test before.
      const gatewayTest = 'internal/controller/gateway_controller.test.ts';
      expect(existsSync(join(project, gatewayTest))).toBe(true);
      const types = join(project, 'api', 'v1', 'gateway_types.ts');
      const original = readFileSync(types, 'utf8');
      const addField = (field: string) =>
        writeFileSync(
          types,
          original.replace(/^(\s*)foo\?: string;\n/m, (foo, indent: string) => `${foo}${indent}${field}\n`),
        );
      try {
        addField('// +required\n  ship: string;');
        const missing = run(project, 'npm', ['test', '--', gatewayTest]);
        expect(missing.status, missing.output.slice(-3000)).not.toBe(0);
        expect(missing.output).toContain(
          'config/samples/webapp_v1_gateway.yaml is not a valid Gateway: spec.ship: Required value. Edit the sample: the tests create it',
        );
        expect(missing.output).toMatch(/Tests\s+1 failed \|/);
        addField('// +kubebuilder:default=Enterprise\n  // +optional\n  ship?: string;');
        expect(expectSuccess(run(project, 'npm', ['test', '--', gatewayTest]))).toMatch(/Tests\s+\d+ passed/);
      } finally {
        writeFileSync(types, original);
      }
    },
    minutes(10),
  );

  it(
    'passes its own e2e tests with make test-e2e, on a local control plane that make starts and stops',
    () => {
      const result = run(project, 'make', ['test-e2e']);
      expectSuccess(result);
      // The manager is live and ready, serves its metrics, and reconciles the Guestbook sample.
      expect(result.output).toMatch(/Tests\s+3 passed/);
      expect(result.output).toContain('Stopped the control plane');
      for (const leftover of ['e2e.kubeconfig', 'e2e.kubeconfig.pid', 'e2e.kubeconfig.log'])
        expect(existsSync(join(project, 'bin', leftover)), leftover).toBe(false);
    },
    minutes(5),
  );

  it.skipIf(onNodeMatrix)(
    'fails make test-e2e when an e2e test fails, and still stops the control plane',
    () => {
      const failing = join(project, 'test', 'e2e', 'failing.test.ts');
      writeFileSync(
        failing,
        "import { expect, it } from 'vitest';\n\nit('fails on purpose', () => {\n  expect(1).toBe(2);\n});\n",
      );
      try {
        const result = run(project, 'make', ['test-e2e']);
        expect(result.status, result.output.slice(-3000)).not.toBe(0);
        expect(result.output).toContain('fails on purpose');
        expect(result.output).toContain('Stopped the control plane');
        for (const leftover of ['e2e.kubeconfig', 'e2e.kubeconfig.pid', 'e2e.kubeconfig.log'])
          expect(existsSync(join(project, 'bin', leftover)), leftover).toBe(false);
      } finally {
        rmSync(failing, { force: true });
      }
    },
    minutes(5),
  );

  it(
    'runs its manager against the control plane as a shard ring of one with leader election, its Leases in --lease-namespace, and reconciles the sample',
    async () => {
      const env = await TestEnvironment.start({
        crdDirectoryPaths: [join(project, 'config', 'crd', 'bases')],
        errorIfCRDPathMissing: true,
      });
      const kubeconfig = join(base, 'kubeconfig');
      writeFileSync(kubeconfig, env.kubeconfigYaml());
      const client = newClient(env.kubeConfig);
      await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'leases' } });
      const args = [
        '--health-probe-bind-address=0',
        '--shard-ring=guestbook',
        '--leader-elect',
        '--lease-namespace=leases',
      ];
      const manager = spawn(process.execPath, ['dist/cmd/main.js', ...args], {
        cwd: project,
        // The webhooks need their configurations installed to be reached; this test is about the controllers.
        env: { ...process.env, KUBECONFIG: kubeconfig, ENABLE_WEBHOOKS: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      manager.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      manager.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        const sample = parse(
          readFileSync(join(project, 'config', 'samples', 'webapp_v1_guestbook.yaml'), 'utf8'),
        ) as KubeObject;
        const guestbooks = defineResource<KubeObject>({
          group: 'webapp.example.com',
          version: 'v1',
          kind: 'Guestbook',
          plural: 'guestbooks',
          namespaced: true,
        });
        await client.create(guestbooks, {
          ...sample,
          metadata: { ...sample.metadata, namespace: 'default' },
        });
        // Generous: one reconcile after the manager starts, for a loaded two-core machine.
        const deadline = Date.now() + 60_000;
        while (
          !/"msg":"reconciling Guestbook".*"name":"guestbook-sample"|"name":"guestbook-sample".*"msg":"reconciling Guestbook"/.test(
            output,
          )
        ) {
          if (manager.exitCode !== null) throw new Error(`the manager exited with ${manager.exitCode}:\n${output}`);
          if (Date.now() > deadline)
            throw new Error(`the manager did not reconcile the sample within 60 s:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        // The sample was reconciled by the replica holding its partition; its ring Lease and the leader's are in
        // --lease-namespace.
        const leaderElectionID = /leaderElection: \{[^}]*\bid: '([^']+)'/.exec(
          readFileSync(join(project, 'cmd', 'main.ts'), 'utf8'),
        )![1]!;
        const leases = await client.list(Leases, { namespace: 'leases' });
        expect(leases.items.map((l) => [l.metadata?.name, l.metadata?.labels?.[RING_LABEL]]).sort()).toEqual([
          [leaderElectionID, undefined],
          [expect.stringMatching(/^guestbook-[0-9a-f]+$/), 'guestbook'],
        ]);
        manager.kill('SIGTERM');
        const [code] = (await once(manager, 'exit')) as [number | null];
        expect(code, output).toBe(0);
      } finally {
        if (manager.exitCode === null) manager.kill('SIGKILL');
        client.close();
        await env.stop();
      }
    },
    minutes(3),
  );

  it(
    "runs its built manager as config/default deploys it, in a cgroup with its manifest's memory limit: 1,000 Guestbooks and a 7 MiB admission review, not OOM-killed",
    async () => {
      const rendered = kustomizeBuild(join(project, 'config', 'default')) as unknown as KubeObject[];
      const deployment = rendered.find((o) => o.kind === 'Deployment') as KubeObject & {
        spec: { template: { spec: { containers: Array<ContainerSpec & { args?: string[] }> } } };
      };
      const container = deployment.spec.template.spec.containers.find((c) => c.name === 'manager')!;
      const namespace = deployment.metadata!.namespace!;
      const limitBytes = parseQuantity(container.resources!.limits!.memory!);
      let cgroup: MemoryCgroup;
      try {
        cgroup = createMemoryCgroup(`kubescaffold-e2e-${process.pid}`, limitBytes);
      } catch (e) {
        throw new Error(
          `this test runs the manager under its manifest's memory limit and needs a memory cgroup, which cannot be made here: ${(e as Error).message}`,
        );
      }
      const env = await TestEnvironment.start({
        crdDirectoryPaths: [join(project, 'config', 'crd', 'bases')],
        errorIfCRDPathMissing: true,
      });
      const client = newClient(env.kubeConfig);
      const dir = mkdtempSync(join(tmpdir(), 'kubescaffold-e2e-pod-'));
      let manager: ChildProcess | undefined;
      let output = '';
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        writeFileSync(kubeconfig, env.kubeconfigYaml());
        // What only a pod has: its namespace in the service account mount (for the leader election Lease).
        writeFileSync(join(dir, 'namespace'), namespace);
        await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
        const podEnv = resolveContainerEnv(container, { name: `${deployment.metadata!.name}-e2e`, namespace });
        podEnv.NODE_OPTIONS = nodeOptionsForLocalRun(
          podEnv.NODE_OPTIONS ?? '',
          limitBytes,
          process.allowedNodeEnvironmentFlags.has('--max-old-space-size-percentage'),
        );
        // V8's heap limit follows the container's: about 70% of it, so the collector works before the kernel kills.
        const probe = cgroup.wrap(process.execPath, ['-p', "require('node:v8').getHeapStatistics().heap_size_limit"]);
        const heapLimit = Number(
          spawnSync(probe.command, probe.args, {
            env: { ...process.env, NODE_OPTIONS: podEnv.NODE_OPTIONS },
            encoding: 'utf8',
          }).stdout,
        );
        expect(heapLimit / limitBytes).toBeGreaterThan(0.65);
        expect(heapLimit / limitBytes).toBeLessThan(0.8);
        const [probePort, metricsPort, webhookPort] = [await freePort(), await freePort(), await freePort()];
        // The container's own args, on free local ports; certificate paths name Secret volumes that are not mounted here.
        const args = (container.args ?? [])
          .filter((a) => !/^--(webhook|metrics)-cert-path=/.test(a))
          .map((a) =>
            a
              .replace(/^--health-probe-bind-address=.*/, `--health-probe-bind-address=127.0.0.1:${probePort}`)
              .replace(/^--metrics-bind-address=.*/, `--metrics-bind-address=127.0.0.1:${metricsPort}`),
          )
          .concat(`--webhook-port=${webhookPort}`);
        expect(args).toContain('--leader-elect');
        // The image's ENTRYPOINT flags too, where this Node knows them (the image runs Node 22).
        const { supported: nodeFlags } = supportedNodeFlags(
          process.execPath,
          entrypointNodeFlags(join(project, 'Dockerfile')),
        );
        const cmd = cgroup.wrap(process.execPath, [...nodeFlags, 'dist/cmd/main.js', ...args]);
        manager = spawn(cmd.command, cmd.args, {
          cwd: project,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            KUBECONFIG: kubeconfig,
            KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: dir,
            ...podEnv,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const reconciled = new Set<string>();
        const onOutput = (chunk: Buffer): void => {
          output = (output + chunk.toString()).slice(-200_000);
          for (const m of chunk
            .toString()
            .matchAll(
              /"msg":"reconciling Guestbook"[^\n]*?"name":"(gb-\d+)"|"name":"(gb-\d+)"[^\n]*?"msg":"reconciling Guestbook"/g,
            ))
            reconciled.add(m[1] ?? m[2]!);
        };
        manager.stdout!.on('data', onOutput);
        manager.stderr!.on('data', onOutput);
        const guestbooks = defineResource<KubeObject & { spec: { foo: string } }>({
          group: 'webapp.example.com',
          version: 'v1',
          kind: 'Guestbook',
          plural: 'guestbooks',
          namespaced: true,
        });
        let next = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (next < 1000) {
              const i = next++;
              await client.create(guestbooks, {
                apiVersion: 'webapp.example.com/v1',
                kind: 'Guestbook',
                metadata: { name: `gb-${String(i).padStart(4, '0')}`, namespace: 'default' },
                spec: { foo: `value-${i}` },
              });
            }
          }),
        );
        // Generous: 1,000 reconciles take seconds; the bound is for a loaded two-core machine.
        const deadline = Date.now() + 180_000;
        while (reconciled.size < 1000) {
          if (manager.exitCode !== null || manager.signalCode !== null)
            throw new Error(
              `the manager exited (${manager.exitCode ?? manager.signalCode}; OOM kills in its cgroup: ${cgroup.oomKills()}):\n${output.slice(-6000)}`,
            );
          if (Date.now() > deadline)
            throw new Error(
              `the manager reconciled ${reconciled.size} of 1,000 Guestbooks within 180 s:\n${output.slice(-6000)}`,
            );
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        // An AdmissionReview just under controller-runtime's 7 MiB limit, of a Guestbook with 100,000 list entries.
        const extra = Array.from({ length: 100_000 }, (_, i) => ({ name: `item-${i}`, value: 'v'.repeat(40) }));
        const object = {
          apiVersion: 'webapp.example.com/v1',
          kind: 'Guestbook',
          metadata: { name: 'big', namespace: 'default' },
          spec: { extra },
        };
        const review = JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: {
            uid: 'e2e-7mib',
            kind: { group: 'webapp.example.com', version: 'v1', kind: 'Guestbook' },
            resource: { group: 'webapp.example.com', version: 'v1', resource: 'guestbooks' },
            name: 'big',
            namespace: 'default',
            operation: 'CREATE',
            userInfo: { username: 'e2e' },
            object,
          },
        });
        expect(review.length).toBeGreaterThan(6.5 * 2 ** 20);
        expect(review.length).toBeLessThan(7 * 2 ** 20);
        const answer = await postJson(webhookPort, '/mutate-webapp-example-com-v1-guestbook', review);
        expect(answer.status, answer.body.slice(0, 500)).toBe(200);
        expect((JSON.parse(answer.body) as { response: { uid: string; allowed: boolean } }).response).toMatchObject({
          uid: 'e2e-7mib',
          allowed: true,
        });
        const health = await fetch(`http://127.0.0.1:${probePort}/healthz`);
        expect(health.status).toBe(200);
        expect(manager.exitCode).toBeNull();
        expect(cgroup.oomKills()).toBe(0);
        console.info(
          `manager under ${limitBytes / 2 ** 20} MiB (${podEnv.NODE_OPTIONS}, V8 heap limit ${(heapLimit / 2 ** 20).toFixed(0)} MiB): peak ${((cgroup.peakBytes() ?? NaN) / 2 ** 20).toFixed(1)} MiB`,
        );
        manager.kill('SIGTERM');
        const [code] = (await once(manager, 'exit')) as [number | null];
        expect(code, output.slice(-6000)).toBe(0);
      } finally {
        if (manager && manager.exitCode === null && manager.signalCode === null) {
          manager.kill('SIGKILL');
          await once(manager, 'exit');
        }
        client.close();
        await env.stop();
        cgroup.remove();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    minutes(5),
  );

  it(
    'runs the scaffolded webhooks, filled in, on a real control plane: defaults, rejects and converts',
    () => {
      const webhookFile = join(project, 'internal', 'webhook', 'v1', 'guestbook_webhook.ts');
      const source = readFileSync(webhookFile, 'utf8')
        .replace('  newWebhookManagedBy,\n', '  field,\n  newWebhookManagedBy,\n')
        .replace(
          "ctx.log.info('defaulting for Guestbook', { name: obj.metadata.name });\n",
          "ctx.log.info('defaulting for Guestbook', { name: obj.metadata.name });\n    obj.spec.foo ??= 'defaulted';\n",
        )
        .replace(
          "ctx.log.info('validation for Guestbook upon creation', { name: obj.metadata.name });\n",
          "ctx.log.info('validation for Guestbook upon creation', { name: obj.metadata.name });\n    if (obj.spec.foo === 'forbidden') return { errors: [field.invalid('spec.foo', obj.spec.foo, 'must not be \"forbidden\"')] };\n",
        );
      expect(source).toContain("obj.spec.foo ??= 'defaulted'");
      expect(source).toContain("field.invalid('spec.foo'");
      writeFileSync(webhookFile, source);
      writeFileSync(
        join(project, 'internal', 'webhook', 'v1', 'guestbook_webhook.integration.test.ts'),
        readFileSync(
          fileURLToPath(new URL('./fixtures/guestbook_webhook.integration.test.ts.txt', import.meta.url)),
          'utf8',
        ),
      );
      expectSuccess(run(project, 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']));
      const result = run(project, 'npx', ['vitest', 'run', 'internal/webhook']);
      expectSuccess(result);
      expect(result.output).toMatch(/Tests\s+\d+ passed/);
    },
    minutes(5),
  );
});
