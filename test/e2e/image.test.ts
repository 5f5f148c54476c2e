// The scaffolded Dockerfile, built and run as a user's `docker build` and pod would, without a container engine: the
// build stage's commands run in a copy of the build context (as .dockerignore filters it), on the image's Node (22);
// the final stage is assembled from its COPY lines alone; its ENTRYPOINT runs on that tree alone, as the image's user
// (uid 65532), against a real kube-apiserver and etcd. The manager becomes ready, reconciles the sample, names its
// TypeScript source in a stack trace, and stops on SIGTERM. scripts/lib/dockerfile.js carries the stages out.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeExecutable } from '../../scripts/lib/node-binary.js';
import { TestEnvironment } from '../../src/envtest/index.js';
import { freePort } from '../../src/envtest/controlplane/ports.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';
import { expectSuccess, minutes, runCommand as run } from '../support/commands.js';
import { buildStages, parseDockerfile, treeFiles, treeSize, type BuiltImage } from '../../scripts/lib/dockerfile.js';
import { eventually } from '../support/eventually.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
/** The goal for the final stage's content (the manager, its source map and package.json): a few files, no packages. */
const FINAL_STAGE_BUDGET_BYTES = 3 * 1024 * 1024;

/** A running ENTRYPOINT: its output so far, and a way to await a line of it. */
interface Running {
  proc: ChildProcess;
  output(): string;
  waitFor(what: string, pattern: RegExp): Promise<void>;
}

/** Starts `argv` as `user`, collecting its output; waitFor resolves on the first output matching, and fails on exit. */
function start(
  argv: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; user: { uid: number; gid: number } },
): Running {
  let text = '';
  const proc = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd,
    env: opts.env,
    uid: opts.user.uid,
    gid: opts.user.gid,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    text += chunk.toString();
    for (const l of [...listeners]) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  proc.on('exit', () => {
    for (const l of [...listeners]) l();
  });
  proc.on('error', (err) => onData(Buffer.from(`could not start ${argv[0]}: ${err.message}\n`)));
  const waitFor = (what: string, pattern: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (pattern.test(text)) finish();
        else if (proc.exitCode !== null || proc.signalCode !== null || text.startsWith('could not start'))
          finish(
            new Error(`the manager exited (${proc.exitCode ?? proc.signalCode}) before ${what}:\n${text.slice(-6000)}`),
          );
      };
      // Generous: a manager starting on a loaded two-core machine.
      const timer = setTimeout(
        () => finish(new Error(`no ${what} within 2 minutes:\n${text.slice(-6000)}`)),
        minutes(2),
      );
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        listeners.delete(check);
        if (error) reject(error);
        else resolve();
      };
      listeners.add(check);
      check();
    });
  return { proc, output: () => text, waitFor };
}

describe('the scaffolded Dockerfile, built and run without a container engine', () => {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-image-'));
  const project = join(base, 'captain-operator');
  let image: BuiltImage;
  let node22: string;
  let env: TestEnvironment;
  let kubeconfig: string;
  /** The ENTRYPOINT with its paths in the image mapped into the final stage's folder, and Node 22 as /nodejs/bin/node. */
  let entrypoint: string[];

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    // Its download (on a cold cache) is said once per machine, not in every test report.
    node22 = nodeExecutable('22', () => {});
    mkdirSync(project);
    expectSuccess(
      run(project, process.execPath, [scaffoldBin, 'init', '--domain', 'example.com', '--skip-install']),
      'scaffold init',
    );
    expectSuccess(
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
      ]),
      'create api',
    );
    // What a user has before `docker build`: an installed project (package-lock.json) with its manifests.
    expectSuccess(run(project, 'npm', ['install', '--no-audit', '--no-fund']), 'npm install');
    expectSuccess(run(project, 'npx', ['scaffold', 'manifests']), 'scaffold manifests');

    // The stages, as `docker build` runs them: RUN on the builder image's Node 22 (npm runs on the node it finds first).
    const scratch = join(base, 'image');
    image = buildStages(parseDockerfile(readFileSync(join(project, 'Dockerfile'), 'utf8')), project, scratch, {
      env: { ...process.env, PATH: `${dirname(node22)}:${process.env.PATH ?? ''}`, CI: 'true', NO_COLOR: '1' },
      timeoutMs: minutes(10),
    });
    // The image's files are readable by anyone, as COPY leaves them; mkdtemp made the folders above them private.
    for (let dir = image.root; dir.startsWith(base) && dir !== dirname(base); dir = dirname(dir)) chmodSync(dir, 0o755);
    // The base image's Node (distroless nodejs22 has it at /nodejs/bin/node), where the image's user can run it.
    const baseNode = join(base, 'nodejs', 'bin', 'node');
    mkdirSync(dirname(baseNode), { recursive: true });
    copyFileSync(node22, baseNode);
    chmodSync(baseNode, 0o755);
    entrypoint = image.entrypoint.map((arg, i) =>
      i === 0 && arg === '/nodejs/bin/node' ? baseNode : arg.startsWith('/') ? join(image.root, arg) : arg,
    );

    env = await TestEnvironment.start({ crdDirectoryPaths: [join(project, 'config', 'crd', 'bases')] });
    kubeconfig = join(base, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml(), { mode: 0o644 });
  }, minutes(20));

  afterAll(async () => {
    await env?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('leaves a final stage of package.json and the bundle only: no node_modules, within the size goal', () => {
    const files = treeFiles(image.root);
    expect(files).toContain('app/package.json');
    expect(files).toContain('app/manager.js');
    expect(files).toContain('app/manager.js.map');
    expect(files.filter((f) => f.split('/').includes('node_modules'))).toEqual([]);
    expect(files.filter((f) => !f.startsWith('app/'))).toEqual([]);
    expect(treeSize(image.root).bytes).toBeLessThan(FINAL_STAGE_BUDGET_BYTES);
    // Nothing above the tree could lend it packages either: Node looks for node_modules in every folder up to /.
    const above = image.root.split(sep).map((_, i, parts) => join('/', ...parts.slice(0, i), 'node_modules'));
    expect(above.filter((dir) => existsSync(dir))).toEqual([]);
  });

  it(
    'runs as uid 65532 on that tree alone: becomes ready, reconciles the sample, and stops on SIGTERM',
    async () => {
      expect(image.user).toEqual({ uid: 65532, gid: 65532 });
      const [probePort, metricsPort] = [await freePort(), await freePort()];
      // The Deployment's arguments (config/manager/manager.yaml and the metrics patch), on ports free here; all but
      // --leader-elect, which needs the namespace a pod reads from its service account.
      const manager = start(
        [
          ...entrypoint,
          `--health-probe-bind-address=127.0.0.1:${probePort}`,
          `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        ],
        {
          cwd: join(image.root, image.workdir),
          env: { PATH: '/usr/bin:/bin', KUBECONFIG: kubeconfig },
          user: image.user!,
        },
      );
      try {
        const exited = once(manager.proc, 'exit').then(() =>
          Promise.reject(new Error(`the manager exited before it was ready:\n${manager.output().slice(-4000)}`)),
        );
        await Promise.race([
          exited,
          eventually(
            async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.status === 200,
            {
              what: 'the manager to report ready on /readyz',
              timeoutMs: minutes(2),
              diagnose: () => manager.output().slice(-4000),
            },
          ),
        ]);
        exited.catch(() => undefined);
        const sample = parse(
          readFileSync(join(project, 'config', 'samples', 'crew_v1_captain.yaml'), 'utf8'),
        ) as KubeObject;
        const client = newClient(env.kubeConfig);
        try {
          await client.create(
            defineResource({
              group: 'crew.example.com',
              version: 'v1',
              kind: 'Captain',
              plural: 'captains',
              namespaced: true,
            }),
            {
              ...sample,
              metadata: { ...sample.metadata, namespace: 'default' },
            },
          );
        } finally {
          client.close();
        }
        await manager.waitFor(
          'a reconcile of the sample',
          new RegExp(
            `reconciling Captain[^\\n]*${sample.metadata!.name!}|${sample.metadata!.name!}[^\\n]*reconciling Captain`,
          ),
        );
        manager.proc.kill('SIGTERM');
        const [code] = (await once(manager.proc, 'exit')) as [number | null];
        expect(code, manager.output().slice(-4000)).toBe(0);
      } finally {
        if (manager.proc.exitCode === null && manager.proc.signalCode === null) manager.proc.kill('SIGKILL');
      }
    },
    minutes(5),
  );

  it(
    'names the TypeScript source in a stack trace, from the source map beside the bundle',
    async () => {
      // Without a kubeconfig the manager logs one error line; at debug level the line carries the error's stack.
      const failing = start([...entrypoint, '--zap-log-level=debug'], {
        cwd: join(image.root, image.workdir),
        env: { PATH: '/usr/bin:/bin', KUBECONFIG: join(base, 'no-such-kubeconfig') },
        user: image.user!,
      });
      const [code] =
        failing.proc.exitCode !== null
          ? [failing.proc.exitCode]
          : ((await once(failing.proc, 'exit')) as [number | null]);
      expect(code).not.toBe(0);
      expect(failing.output()).toMatch(/no Kubernetes configuration found/);
      expect(failing.output()).toMatch(/\(?[^\s(]*cmd\/main\.ts:\d+:\d+\)?/);
    },
    minutes(2),
  );
});
