import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';

// The whole user journey: scaffold a project with the built CLI, install it linked to this checkout, and run the
// project's own build, lint and tests (which start a real kube-apiserver and etcd).
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
const minutes = (n: number): number => n * 60_000;

function run(cwd: string, command: string, args: string[], timeout = minutes(10)): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

function expectSuccess(result: { status: number | null; output: string }): void {
  if (result.status !== 0) throw new Error(`exit ${result.status}\n${result.output.slice(-6000)}`);
}

describe('a project scaffolded by scaffold init + create api + create webhook', () => {
  let base: string;
  let project: string;

  beforeAll(() => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    base = mkdtempSync(join(tmpdir(), 'kubescaffold-e2e-'));
    project = join(base, 'guestbook');
    mkdirSync(project);
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'init', '--domain', 'example.com', '--skip-install']));
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'create', 'api', '--group', 'webapp', '--version', 'v1', '--kind', 'Guestbook']));
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'create', 'api', '--group', 'webapp', '--version', 'v1', '--kind', 'Gateway', '--namespaced=false']));
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'create', 'api', '--group', 'webapp', '--version', 'v2', '--kind', 'Guestbook', '--controller=false']));
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'create', 'webhook', '--group', 'webapp', '--version', 'v1', '--kind', 'Guestbook',
      '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v2']));
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'create', 'api', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false']));
    expectSuccess(run(project, 'npm', ['install', '--no-audit', '--no-fund']));
  }, minutes(12));

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('depends on this checkout through a file: link', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.kubescaffold).toBe(`file:${repoRoot.replace(/\/$/, '')}`);
  });

  it('compiles with strict tsc', () => {
    expectSuccess(run(project, 'npm', ['run', 'build']));
    expect(existsSync(join(project, 'dist', 'cmd', 'main.js'))).toBe(true);
  }, minutes(5));

  it('passes eslint', () => {
    expectSuccess(run(project, 'npm', ['run', 'lint']));
  }, minutes(5));

  it('generates its manifests and passes its own controller tests on a real control plane', () => {
    const result = run(project, 'npm', ['test']);
    expectSuccess(result);
    expect(result.output).toMatch(/Tests\s+\d+ passed/);
    expect(existsSync(join(project, 'config', 'crd', 'bases', 'webapp.example.com_guestbooks.yaml'))).toBe(true);
    expect(existsSync(join(project, 'config', 'rbac', 'role.yaml'))).toBe(true);
    expect(readFileSync(join(project, 'config', 'webhook', 'manifests.yaml'), 'utf8')).toContain('/validate-webapp-example-com-v1-guestbook');
  }, minutes(10));

  it('runs its manager against the control plane and reconciles the sample', async () => {
    const env = await TestEnvironment.start({ crdDirectoryPaths: [join(project, 'config', 'crd', 'bases')], errorIfCRDPathMissing: true });
    const kubeconfig = join(base, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
    const manager = spawn(process.execPath, ['dist/cmd/main.js', '--health-probe-bind-address=0'], {
      cwd: project,
      // The webhooks need their configurations installed to be reached; this test is about the controllers.
      env: { ...process.env, KUBECONFIG: kubeconfig, ENABLE_WEBHOOKS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    manager.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    manager.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const sample = parse(readFileSync(join(project, 'config', 'samples', 'webapp_v1_guestbook.yaml'), 'utf8')) as KubeObject;
      const guestbooks = defineResource<KubeObject>({ group: 'webapp.example.com', version: 'v1', kind: 'Guestbook', plural: 'guestbooks', namespaced: true });
      await newClient(env.kubeConfig).create(guestbooks, { ...sample, metadata: { ...sample.metadata, namespace: 'default' } });
      const deadline = Date.now() + 60_000;
      while (!/"msg":"reconciling Guestbook".*"name":"guestbook-sample"|"name":"guestbook-sample".*"msg":"reconciling Guestbook"/.test(output)) {
        if (manager.exitCode !== null) throw new Error(`the manager exited with ${manager.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`the manager did not reconcile the sample within 60 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      manager.kill('SIGTERM');
      const [code] = (await once(manager, 'exit')) as [number | null];
      expect(code, output).toBe(0);
    } finally {
      if (manager.exitCode === null) manager.kill('SIGKILL');
      await env.stop();
    }
  }, minutes(3));

  it('runs the scaffolded webhooks, filled in, on a real control plane: defaults, rejects and converts', () => {
    const webhookFile = join(project, 'internal', 'webhook', 'v1', 'guestbook_webhook.ts');
    const source = readFileSync(webhookFile, 'utf8')
      .replace('  newWebhookManagedBy,\n', '  field,\n  newWebhookManagedBy,\n')
      .replace("ctx.log.info('defaulting for Guestbook', { name: obj.metadata.name });\n", "ctx.log.info('defaulting for Guestbook', { name: obj.metadata.name });\n    obj.spec.foo ??= 'defaulted';\n")
      .replace("ctx.log.info('validation for Guestbook upon creation', { name: obj.metadata.name });\n", "ctx.log.info('validation for Guestbook upon creation', { name: obj.metadata.name });\n    if (obj.spec.foo === 'forbidden') return { errors: [field.invalid('spec.foo', obj.spec.foo, 'must not be \"forbidden\"')] };\n");
    expect(source).toContain("obj.spec.foo ??= 'defaulted'");
    expect(source).toContain("field.invalid('spec.foo'");
    writeFileSync(webhookFile, source);
    writeFileSync(join(project, 'internal', 'webhook', 'v1', 'guestbook_webhook.integration.test.ts'),
      readFileSync(fileURLToPath(new URL('./fixtures/guestbook_webhook.integration.test.ts.txt', import.meta.url)), 'utf8'));
    expectSuccess(run(project, 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']));
    const result = run(project, 'npx', ['vitest', 'run', 'internal/webhook']);
    expectSuccess(result);
    expect(result.output).toMatch(/Tests\s+\d+ passed/);
  }, minutes(5));
});
