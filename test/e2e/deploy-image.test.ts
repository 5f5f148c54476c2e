import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expectSuccess, minutes, runCommand as run } from '../support/commands.js';
import { installProject } from '../support/project-install.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { CoreEvents, Deployments } from '../../src/runtime/rest/index.js';
import {
  defineResource,
  isNotFound,
  newClient,
  type Client,
  type Condition,
  type KubeObject,
} from '../../src/runtime/index.js';
import { eventually } from '../support/eventually.js';

// A project whose API is scaffolded by the deploy-image plugin, built with the built CLI and linked to this checkout:
// its own tests pass, and its manager deploys the operand image on a real control plane. envtest runs no
// kube-controller-manager, so no Pods start and no garbage collector deletes the Deployment: the test checks the
// Deployment's controller owner reference, which is what the garbage collector follows.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
interface Memcached extends KubeObject {
  spec: { size?: number; containerPort: number };
  status?: { conditions?: Condition[] };
}

const memcacheds = defineResource<Memcached>({
  group: 'cache.example.com',
  version: 'v1alpha1',
  kind: 'Memcached',
  plural: 'memcacheds',
  namespaced: true,
});

describe('a project whose API is scaffolded by create api --plugins=deploy-image/v1-alpha', () => {
  let base: string;
  let project: string;

  beforeAll(() => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    base = mkdtempSync(join(tmpdir(), 'kubescaffold-e2e-deploy-image-'));
    project = join(base, 'memcached-operator');
    mkdirSync(project);
    expectSuccess(run(project, process.execPath, [scaffoldBin, 'init', '--domain', 'example.com', '--skip-install']));
    expectSuccess(
      run(project, process.execPath, [
        scaffoldBin,
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--image=memcached:1.6.26-alpine',
        '--image-container-command=memcached,--memory-limit=64,-o,modern,-v',
        '--image-container-port=11211',
        '--run-as-user=1001',
        '--plugins=deploy-image/v1-alpha',
      ]),
    );
    // The install of the run's first project of these dependencies, or npm's own here.
    expectSuccess(installProject(project), 'npm install');
  }, minutes(12));

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it(
    'generates its manifests, compiles with strict tsc, passes eslint and its own controller tests on a real control plane',
    () => {
      expectSuccess(run(project, process.execPath, [scaffoldBin, 'manifests']));
      const role = readFileSync(join(project, 'config', 'rbac', 'role.yaml'), 'utf8');
      for (const resource of ['deployments', 'events', 'pods', 'memcacheds/finalizers', 'memcacheds/status'])
        expect(role).toContain(`- ${resource}`);
      expectSuccess(run(project, 'npm', ['run', 'build']));
      expectSuccess(run(project, 'npm', ['run', 'lint']));
      const result = run(project, 'npm', ['test']);
      expectSuccess(result);
      expect(result.output).toContain('memcached_controller.test.ts');
      expect(result.output).toContain('memcached_controller.fake.test.ts');
      expect(result.output).toMatch(/Tests\s+7 passed/);
    },
    minutes(15),
  );

  it(
    'passes its own e2e tests with make test-e2e: the manager gets the image from manager.yaml and reconciles the sample',
    () => {
      const result = run(project, 'make', ['test-e2e']);
      expectSuccess(result);
      expect(result.output).toMatch(/Tests\s+3 passed/);
      expect(result.output).toContain('Stopped the control plane');
    },
    minutes(6),
  );

  it(
    'runs its manager: a Memcached of size 3 gets a Deployment of the image, resized to 1 follows, deleted runs the finalizer',
    async () => {
      expect(existsSync(join(project, 'dist', 'cmd', 'main.js')), 'the build of the previous test').toBe(true);
      // The image the manager deploys comes from manager.yaml's env, as it would in the cluster.
      const manifest = parseAllDocuments(readFileSync(join(project, 'config', 'manager', 'manager.yaml'), 'utf8')).map(
        (d) =>
          d.toJS() as KubeObject & {
            spec?: {
              template: { spec: { containers: Array<{ name: string; env: Array<{ name: string; value: string }> }> } };
            };
          },
      );
      const managerEnv = manifest
        .find((d) => d.kind === 'Deployment')!
        .spec!.template.spec.containers.find((c) => c.name === 'manager')!.env;
      const image = managerEnv.find((e) => e.name === 'MEMCACHED_IMAGE')?.value;
      expect(image).toBe('memcached:1.6.26-alpine');

      const env = await TestEnvironment.start({
        crdDirectoryPaths: [join(project, 'config', 'crd', 'bases')],
        errorIfCRDPathMissing: true,
      });
      const kubeconfig = join(base, 'kubeconfig');
      writeFileSync(kubeconfig, env.kubeconfigYaml());
      const client: Client = newClient(env.kubeConfig);
      let manager: ChildProcess | undefined;
      let output = '';
      const diagnose = (): string => `manager output:\n${output.slice(-6000)}`;
      try {
        manager = spawn(process.execPath, ['dist/cmd/main.js', '--health-probe-bind-address=0'], {
          cwd: project,
          env: { ...process.env, KUBECONFIG: kubeconfig, MEMCACHED_IMAGE: image },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        manager.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        manager.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

        const sample = parse(
          readFileSync(join(project, 'config', 'samples', 'cache_v1alpha1_memcached.yaml'), 'utf8'),
        ) as Memcached;
        const key = { namespace: 'default', name: sample.metadata!.name! };
        const created = await client.create(memcacheds, {
          ...sample,
          metadata: { ...sample.metadata, namespace: 'default' },
          spec: { ...sample.spec, size: 3 },
        });

        const deploymentWith = async (replicas: number): Promise<boolean> =>
          (await client.get(Deployments, key)).spec?.replicas === replicas;
        await eventually(() => deploymentWith(3), {
          what: 'a Deployment of 3 replicas',
          timeoutMs: minutes(2),
          diagnose,
        });
        const deployment = await client.get(Deployments, key);
        const pod = deployment.spec!.template.spec!;
        const container = pod.containers[0]!;
        expect(container.image).toBe('memcached:1.6.26-alpine');
        expect(container.command).toEqual(['memcached', '--memory-limit=64', '-o', 'modern', '-v']);
        expect(container.ports).toEqual([expect.objectContaining({ containerPort: 11211, name: 'memcached' })]);
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          runAsUser: 1001,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        // What the garbage collector follows to delete the Deployment with its Memcached.
        expect(deployment.metadata?.ownerReferences).toEqual([
          expect.objectContaining({
            apiVersion: 'cache.example.com/v1alpha1',
            kind: 'Memcached',
            name: key.name,
            uid: created.metadata!.uid,
            controller: true,
            blockOwnerDeletion: true,
          }),
        ]);
        await eventually(
          async () =>
            (await client.get(memcacheds, key)).status?.conditions?.some(
              (c) => c.type === 'Available' && c.status === 'True',
            ) ?? false,
          { what: 'the Memcached to be Available', timeoutMs: minutes(2), diagnose },
        );
        expect((await client.get(memcacheds, key)).metadata?.finalizers).toEqual(['cache.example.com/finalizer']);

        const current = await client.get(memcacheds, key);
        await client.update(memcacheds, { ...current, spec: { ...current.spec, size: 1 } });
        await eventually(() => deploymentWith(1), {
          what: 'the Deployment to be resized to 1 replica',
          timeoutMs: minutes(2),
          diagnose,
        });

        await client.delete(memcacheds, key);
        await eventually(
          async () => {
            try {
              await client.get(memcacheds, key);
              return false;
            } catch (err) {
              if (isNotFound(err)) return true;
              throw err;
            }
          },
          { what: 'the finalizer to run and the Memcached to be gone', timeoutMs: minutes(2), diagnose },
        );
        // The finalizer operations recorded their Event about the Memcached.
        await eventually(
          async () =>
            (await client.list(CoreEvents, { namespace: 'default' })).items.some(
              (e) => e.reason === 'Deleting' && e.involvedObject.uid === created.metadata!.uid,
            ),
          { what: 'the Deleting event of the finalizer', timeoutMs: minutes(1), diagnose },
        );

        manager.kill('SIGTERM');
        const [code] = (await once(manager, 'exit')) as [number | null];
        expect(code, output).toBe(0);
      } finally {
        if (manager && manager.exitCode === null) manager.kill('SIGKILL');
        await env.stop();
      }
    },
    minutes(6),
  );
});
