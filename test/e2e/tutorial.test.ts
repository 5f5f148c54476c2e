import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';
import { expectSuccess, minutes, runCommand as run } from '../support/commands.js';
import { commandKind, followTutorial, type Followed } from '../../scripts/lib/follow-tutorial.js';
import { chapterFiles, describeStep, tutorialSteps } from '../../scripts/lib/tutorial.js';
import { projectDifferences } from '../../scripts/lib/tutorial-project.js';

// The CronJob tutorial (docs/tutorial), done as a reader does it, from its Markdown alone: the commands of each
// chapter's ```sh blocks, and each code block written where the line before it says it goes (scripts/lib/tutorial.js
// reads those lines). A chapter that changes the project must leave it building, linting and passing its tests; a
// block that does not apply or a chapter that leaves a broken project fails, naming the chapter. Nothing is
// copied from docs/tutorial/project: that folder is checked to be what these steps make.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
const tutorialDir = join(repoRoot, 'docs', 'tutorial');
const chapters = chapterFiles(tutorialDir);

describe('the CronJob tutorial, followed to the letter', () => {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-tutorial-'));
  let followed: Followed | undefined;
  const done = (): Followed => {
    if (!followed) throw new Error('the tutorial was not followed to its end: see the first failure');
    return followed;
  };

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('has the chapters index.md links to, and scaffolds with init, create api and create webhook', () => {
    const index = readFileSync(join(tutorialDir, 'index.md'), 'utf8');
    for (const chapter of chapters) expect(index, chapter).toContain(`(./${chapter})`);
    const verbs = tutorialSteps(tutorialDir)
      .flatMap((c) => c.steps)
      .flatMap((s) => (s.kind === 'command' && s.words[0] === 'npx' ? [s.words.slice(2, 4).join(' ')] : []));
    expect(verbs).toEqual(expect.arrayContaining(['init --domain', 'create api', 'create webhook']));
  });

  it(
    "runs every chapter's commands and writes its code where it says, and after each chapter that changes the project it builds, lints and passes its tests",
    () => {
      if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
        throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
      followed = followTutorial({ tutorialDir, base, scaffoldBin });
      const checked = followed.chapters.map((c) => [c.chapter, Object.keys(c.outputs).sort()]);
      // Chapter 1 scaffolds (no tests yet: `make test` passes with none); chapter 7 changes nothing, so checks nothing.
      for (const [chapter, checks] of checked.slice(0, -1))
        expect(checks, String(chapter)).toEqual(expect.arrayContaining(['build', 'lint', 'test']));
      expect(checked.at(-1)).toEqual(['07-deploying.md', []]);
    },
    minutes(20),
  );

  it("ends with both versions in the CRD, v1 stored, and every test of the project run and passed, e2e's included", () => {
    const { project, chapters: done_ } = done();
    const crd = parse(
      readFileSync(join(project, 'config', 'crd', 'bases', 'batch.tutorial.kubebuilder.io_cronjobs.yaml'), 'utf8'),
    ) as { spec: { versions: Array<{ name: string; served: boolean; storage: boolean }> } };
    expect(crd.spec.versions.map(({ name, served, storage }) => ({ name, served, storage }))).toEqual([
      { name: 'v1', served: true, storage: true },
      { name: 'v2', served: true, storage: false },
    ]);
    const multiversion = done_.find((c) => c.chapter.startsWith('06-'))!;
    const tests = multiversion.outputs['test']!;
    for (const file of [
      'internal/controller/cronjob_controller.fake.test.ts',
      'internal/controller/cronjob_controller.test.ts',
      'internal/webhook/v1/cronjob_webhook.test.ts',
      'internal/webhook/v1/cronjob_webhook.integration.test.ts',
      'api/v2/cronjob_conversion.test.ts',
    ])
      expect(tests, file).toContain(file);
    // Every test ran and passed: vitest's summary counts no skipped or failed ones.
    for (const output of [tests, multiversion.outputs['make test-e2e']!]) {
      const summary = /Tests\s+(\d+) passed \((\d+)\)/.exec(output);
      expect(summary, output.slice(-3000)).not.toBeNull();
      expect(summary![1]).toBe(summary![2]);
    }
    // The e2e tests that passed include the one that applies both versions' samples (vitest names each test only in
    // verbose output, which CI=true turns off: the file says it).
    expect(readFileSync(join(project, 'test', 'e2e', 'e2e.test.ts'), 'utf8')).toContain(
      'admits every sample in config/samples',
    );
  });

  it('publishes in docs/tutorial/project exactly the project these steps make (node scripts/tutorial-project.js)', () => {
    const differences = projectDifferences(done().project, join(tutorialDir, 'project'));
    expect(differences, 'run `node scripts/tutorial-project.js` to bring docs/tutorial/project up to date').toEqual([]);
  });

  it('gives, for a cluster, only commands and flags that exist', () => {
    const { project, clusterSteps } = done();
    expect(clusterSteps.length).toBeGreaterThan(0);
    for (const step of clusterSteps) {
      if (step.words[0] === 'npx') {
        const verb = step.words[2]!;
        const help = expectSuccess(run(project, process.execPath, [scaffoldBin, verb, '--help']), describeStep(step));
        for (const flag of step.words.slice(3).filter((w) => w.startsWith('--')))
          expect(help, `${describeStep(step)}: ${flag}`).toContain(flag.replace(/=.*$/, ''));
      } else if (step.words[0] === 'make') {
        // -n prints what the target would run: it fails on a target the Makefile does not have.
        expectSuccess(run(project, 'make', ['-n', ...step.words.slice(1)]), describeStep(step));
      } else expect(commandKind(step), describeStep(step)).toBe('cluster');
    }
  });

  it(
    'runs the manager as the deploying chapter does, on a local control plane: scaffold install, scaffold run without webhooks, the v1 sample is reconciled and reads back as v1',
    async () => {
      const { project, clusterSteps } = done();
      const words = (s: { words: string[] }): string => s.words.join(' ');
      const install = clusterSteps.find((s) => words(s) === 'npx scaffold install');
      const runStep = clusterSteps.find((s) => words(s) === 'npx scaffold run');
      expect(install, 'the tutorial installs the CRDs with `npx scaffold install`').toBeDefined();
      expect(runStep?.env, 'the tutorial runs the manager with `ENABLE_WEBHOOKS=false npx scaffold run`').toEqual({
        ENABLE_WEBHOOKS: 'false',
      });
      // The tutorial reads CronJobs in their stored version, v1: no conversion webhook runs locally.
      expect(clusterSteps.map(words)).toContain('kubectl get cronjobs.v1.batch.tutorial.kubebuilder.io');
      const env = await TestEnvironment.start();
      const kubeconfig = join(base, 'kubeconfig');
      writeFileSync(kubeconfig, env.kubeconfigYaml());
      const client = newClient(env.kubeConfig);
      let output = '';
      // The probe port of the tutorial's default (:8081) may be taken on a shared machine: the one change to its command.
      const manager = spawn(process.execPath, [scaffoldBin, 'run', '--', '--health-probe-bind-address=0'], {
        cwd: project,
        env: { ...process.env, ...runStep!.env, KUBECONFIG: kubeconfig, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      manager.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      manager.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // Awaits the manager's output (or its exit) instead of polling it. Generous: a build and a manager start on a
      // loaded two-core machine.
      const waitFor = (what: string, pattern: RegExp): Promise<void> =>
        new Promise((resolve, reject) => {
          const finish = (error?: Error): void => {
            clearTimeout(timer);
            manager.stdout.off('data', check);
            manager.stderr.off('data', check);
            manager.off('exit', exited);
            if (error) reject(error);
            else resolve();
          };
          const check = (): void => {
            if (pattern.test(output)) finish();
            else if (manager.exitCode !== null) exited(manager.exitCode);
          };
          const exited = (code: number | null): void =>
            finish(new Error(`the manager exited with ${code} before ${what}:\n${output.slice(-6000)}`));
          const timer = setTimeout(
            () => finish(new Error(`no ${what} within 2 minutes:\n${output.slice(-6000)}`)),
            minutes(2),
          );
          manager.stdout.on('data', check);
          manager.stderr.on('data', check);
          manager.on('exit', exited);
          check();
        });
      try {
        expectSuccess(
          run(project, process.execPath, [scaffoldBin, 'install'], { env: { KUBECONFIG: kubeconfig } }),
          describeStep(install!),
        );
        // What `kubectl apply -f config/samples/batch_v1_cronjob.yaml` does.
        const sample = parse(
          readFileSync(join(project, 'config', 'samples', 'batch_v1_cronjob.yaml'), 'utf8'),
        ) as KubeObject;
        const cronJobs = defineResource<KubeObject>({
          group: 'batch.tutorial.kubebuilder.io',
          version: 'v1',
          kind: 'CronJob',
          plural: 'cronjobs',
          namespaced: true,
        });
        await client.create(cronJobs, { ...sample, metadata: { ...sample.metadata, namespace: 'default' } });
        await waitFor(
          'reconcile of the sample',
          /"msg":"job count".*"name":"cronjob-sample"|"name":"cronjob-sample".*"msg":"job count"/,
        );
        // ENABLE_WEBHOOKS=false reached cmd/main.ts: no webhook was registered; scaffold run said which version to read.
        expect(output).not.toContain('Registering webhook');
        expect(output).toContain('kubectl get cronjobs.v1.batch.tutorial.kubebuilder.io');
        // What `kubectl get cronjobs.v1.batch.tutorial.kubebuilder.io` does: a list in the stored version.
        const listed = await client.list(cronJobs, { namespace: 'default' });
        expect(listed.items.map((c) => c.metadata?.name)).toEqual(['cronjob-sample']);
        manager.kill('SIGTERM');
        const [code] = (await once(manager, 'exit')) as [number | null];
        expect(code, output.slice(-6000)).toBe(0);
      } finally {
        if (manager.exitCode === null) {
          // SIGTERM reaches the manager through scaffold run (it runs in its own process group); SIGKILL would not.
          manager.kill('SIGTERM');
          const exited = once(manager, 'exit');
          if (
            !(await Promise.race([
              exited.then(() => true),
              new Promise<boolean>((r) => setTimeout(() => r(false), 30_000)),
            ]))
          ) {
            manager.kill('SIGKILL');
            await exited;
          }
        }
        client.close();
        await env.stop();
      }
    },
    minutes(5),
  );
});
