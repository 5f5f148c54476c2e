import { spawn } from 'node:child_process';
import { expectSuccess, minutes, runCommand as run } from '../support/commands.js';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';
import { listFiles } from '../support/files.js';
import { codeBlocks, shellWords, type CodeBlock } from '../support/markdown.js';

// The CronJob tutorial (docs/tutorial), done as a reader does it: the commands of its ```sh blocks, in order, then
// the files it has the reader write (docs/tutorial/project), then its checks: manifests, build and the project's own
// tests on a real control plane. Its code blocks must be the project's code, so neither can change without the other.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const scaffoldBin = join(repoRoot, 'bin', 'scaffold.js');
const tutorialDir = join(repoRoot, 'docs', 'tutorial');
const projectFiles = join(tutorialDir, 'project');

// The chapters in reading order: index.md's numbered chapter files.
const chapters = readdirSync(tutorialDir)
  .filter((f) => /^\d\d-.*\.md$/.test(f))
  .sort();
const markdown = new Map(chapters.map((c) => [c, readFileSync(join(tutorialDir, c), 'utf8')]));

interface Command {
  chapter: string;
  line: number;
  /** `NAME=value` words before the command. */
  env: Record<string, string>;
  words: string[];
}

function command(chapter: string, line: number, text: string): Command {
  const words = shellWords(text);
  const env: Record<string, string> = {};
  while (words[0] !== undefined && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  return { chapter, line, env, words };
}

// Every command of every ```sh block; `a && b` is two commands.
const commands: Command[] = chapters.flatMap((chapter) =>
  codeBlocks(markdown.get(chapter)!)
    .filter((b) => b.lang === 'sh')
    .flatMap((b) =>
      b.text.split('\n').flatMap((text, i) => {
        const line = text.replace(/\s+#\s.*$/, '').trim();
        if (line === '' || line.startsWith('#')) return [];
        return line.split(' && ').map((part) => command(chapter, b.line + 1 + i, part));
      }),
    ),
);
const where = (c: Command): string =>
  `${c.chapter}:${c.line} \`${[...Object.entries(c.env).map(([k, v]) => `${k}=${v}`), ...c.words].join(' ')}\``;

const SCAFFOLD_STEPS = new Set(['init', 'create', 'edit']);
const CHECKS = new Set(['manifests', 'generate']);
const CLUSTER_COMMANDS = new Set(['install', 'uninstall', 'deploy', 'undeploy', 'run', 'build-installer']);
const MAKE_CHECKS = new Set(['manifests', 'generate', 'build', 'lint', 'test']);
const MAKE_CLUSTER_TARGETS = new Set([
  'install',
  'uninstall',
  'deploy',
  'undeploy',
  'run',
  'docker-build',
  'docker-push',
  'build-installer',
]);
// Tools of the reader's own cluster, which this test has none of.
const CLUSTER_TOOLS = new Set(['kubectl', 'kind', 'docker']);

type Kind = 'cd' | 'mkdir' | 'scaffold' | 'install' | 'check' | 'cluster-scaffold' | 'cluster-make' | 'cluster-tool';

/** What the test does with a command of the tutorial; anything it does not know fails, so none is skipped unseen. */
function kindOf(c: Command): Kind {
  const [cmd, sub] = c.words;
  if (cmd === 'cd') return 'cd';
  if (cmd === 'mkdir') return 'mkdir';
  if (cmd === 'npx' && (sub === 'kubescaffold' || sub === 'scaffold')) {
    const verb = c.words[2] ?? '';
    if (SCAFFOLD_STEPS.has(verb)) return 'scaffold';
    if (CHECKS.has(verb)) return 'check';
    if (CLUSTER_COMMANDS.has(verb)) return 'cluster-scaffold';
  }
  if (cmd === 'npm' && sub === 'install') return 'install';
  if (cmd === 'npm' && (sub === 'test' || (sub === 'run' && c.words[2] === 'build'))) return 'check';
  if (cmd === 'make' && sub !== undefined && MAKE_CHECKS.has(sub)) return 'check';
  if (cmd === 'make' && sub !== undefined && MAKE_CLUSTER_TARGETS.has(sub)) return 'cluster-make';
  if (cmd !== undefined && CLUSTER_TOOLS.has(cmd)) return 'cluster-tool';
  throw new Error(
    `${where(c)}: a command this test does not know how to follow; teach test/e2e/tutorial.test.ts about it`,
  );
}

/** The command as this test runs it: the CLI of this checkout instead of npx, and one quiet npm install. */
function argv(c: Command): [string, string[]] {
  const [cmd, sub, ...rest] = c.words as [string, string, ...string[]];
  if (cmd === 'npx') {
    // init's own npm install is left to the tutorial's `npm install` of the schedule library: one install in all.
    return [process.execPath, [scaffoldBin, ...rest, ...(rest[0] === 'init' ? ['--skip-install'] : [])]];
  }
  if (cmd === 'npm' && sub === 'install') return ['npm', ['install', '--no-audit', '--no-fund', ...rest]];
  return [cmd, [sub, ...rest]];
}

describe('the CronJob tutorial, followed to the letter', () => {
  let base: string;
  let project: string;
  const checks: Command[] = [];
  const clusterSteps: Command[] = [];

  beforeAll(() => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
    base = mkdtempSync(join(tmpdir(), 'kubescaffold-tutorial-'));
    let cwd = base;
    let installed = false;
    for (const c of commands) {
      const kind = kindOf(c);
      if (kind === 'cd') cwd = resolve(cwd, c.words[1]!);
      else if (kind === 'mkdir') mkdirSync(resolve(cwd, c.words.at(-1)!), { recursive: true });
      else if (kind === 'scaffold' || kind === 'install') {
        const [command, args] = argv(c);
        expectSuccess(run(cwd, command, args, { env: c.env }), where(c));
        project = cwd;
        installed ||= kind === 'install';
      } else if (kind === 'check') {
        if (!checks.some((k) => k.words.join(' ') === c.words.join(' '))) checks.push(c);
      } else clusterSteps.push(c);
    }
    if (!project) throw new Error('the tutorial never scaffolds a project');
    if (!installed) expectSuccess(run(project, 'npm', ['install', '--no-audit', '--no-fund']), 'npm install');
    // What the tutorial has the reader write, over what the commands scaffolded.
    cpSync(projectFiles, project, { recursive: true });
  }, minutes(8));

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('has the chapters index.md links to, and scaffolds with init, create api and create webhook', () => {
    const index = readFileSync(join(tutorialDir, 'index.md'), 'utf8');
    for (const chapter of chapters) expect(index, chapter).toContain(`(./${chapter})`);
    const verbs = commands.filter((c) => kindOf(c) === 'scaffold').map((c) => c.words.slice(2, 4).join(' '));
    expect(verbs).toEqual(expect.arrayContaining(['init --domain', 'create api', 'create webhook']));
  });

  it("shows the project's code: every code block that names a file appears verbatim in that file", () => {
    const named: Array<CodeBlock & { chapter: string; file: string }> = [];
    for (const chapter of chapters) {
      for (const block of codeBlocks(markdown.get(chapter)!)) {
        if (block.lang === 'ts' || block.lang === 'yaml') {
          // The first line names the file: `// api/v1/cronjob_types.ts` in TypeScript, `# config/...yaml` in YAML.
          const first = /^(?:\/\/|#) ([\w./-]+\.(?:ts|yaml))$/.exec(block.text.split('\n')[0]!);
          if (!first)
            throw new Error(`${chapter}:${block.line}: a ${block.lang} block must name its file on its first line`);
          named.push({ ...block, chapter, file: first[1]! });
        }
      }
    }
    expect(named.length).toBeGreaterThan(10);
    for (const block of named) {
      const path = join(project, block.file);
      expect(
        existsSync(path),
        `${block.chapter}:${block.line} names ${block.file}, which the project does not have`,
      ).toBe(true);
      const body = block.text.split('\n').slice(1).join('\n');
      const file = readFileSync(path, 'utf8');
      if (!file.includes(body)) {
        throw new Error(
          `${block.chapter}:${block.line}: this block is not in ${block.file} as it is written there:\n${body}`,
        );
      }
      // A whole-module block is the whole file (less a license header); anything less is marked `ts partial`.
      if (block.lang === 'ts' && !block.attributes.includes('partial')) {
        expect(
          file.replace(/^\/\*[\s\S]*?\*\/\s*/, '').trim(),
          `${block.chapter}:${block.line}: ${block.file} has more than this block: mark it \`ts partial\``,
        ).toBe(body.trim());
      }
    }
  });

  it('keeps in docs/tutorial/project only files that the tutorial has the reader write', () => {
    const text = [...markdown.values()].join('\n');
    for (const file of listFiles(projectFiles)) expect(text, `docs/tutorial/project/${file}`).toContain(file);
  });

  it('gives, for a cluster, only commands and flags that exist', () => {
    expect(clusterSteps.length).toBeGreaterThan(0);
    for (const c of clusterSteps) {
      const kind = kindOf(c);
      if (kind === 'cluster-scaffold') {
        const verb = c.words[2]!;
        const help = expectSuccess(run(project, process.execPath, [scaffoldBin, verb, '--help']), where(c));
        for (const flag of c.words.slice(3).filter((w) => w.startsWith('--')))
          expect(help, `${where(c)}: ${flag}`).toContain(flag.replace(/=.*$/, ''));
      } else if (kind === 'cluster-make') {
        // -n prints what the target would run: it fails on a target the Makefile does not have.
        expectSuccess(run(project, 'make', ['-n', ...c.words.slice(1)]), where(c));
      }
    }
  });

  it(
    "generates the manifests, passes lint, builds, and passes the project's own tests: unit, envtest controller, webhooks and conversion",
    () => {
      expect(checks.map((c) => c.words.join(' '))).toEqual(
        expect.arrayContaining(['npx scaffold manifests', 'make test', 'make lint']),
      );
      let output = '';
      for (const c of checks) {
        const [command, args] = argv(c);
        output += expectSuccess(run(project, command, args, { env: c.env }), where(c));
      }
      expectSuccess(run(project, 'npm', ['run', 'build']), 'npm run build');
      expect(existsSync(join(project, 'dist', 'cmd', 'main.js'))).toBe(true);
      const crd = parse(
        readFileSync(join(project, 'config', 'crd', 'bases', 'batch.tutorial.kubebuilder.io_cronjobs.yaml'), 'utf8'),
      ) as { spec: { versions: Array<{ name: string; served: boolean; storage: boolean }> } };
      expect(crd.spec.versions.map(({ name, served, storage }) => ({ name, served, storage }))).toEqual([
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ]);
      for (const test of listFiles(projectFiles).filter((f) => f.endsWith('.test.ts')))
        expect(output, test).toContain(test);
      // Every test ran and passed: vitest's summary counts no skipped or failed ones.
      const summary = /Tests\s+(\d+) passed \((\d+)\)/.exec(output);
      expect(summary, output.slice(-3000)).not.toBeNull();
      expect(summary![1]).toBe(summary![2]);
    },
    minutes(10),
  );

  it(
    'runs the manager as the deploying chapter does, on a local control plane: scaffold install, scaffold run without webhooks, and the v1 sample is reconciled',
    async () => {
      const install = clusterSteps.find((c) => c.words.join(' ') === 'npx scaffold install');
      const runStep = clusterSteps.find((c) => c.words.join(' ') === 'npx scaffold run');
      expect(install, 'the tutorial installs the CRDs with `npx scaffold install`').toBeDefined();
      expect(runStep?.env, 'the tutorial runs the manager with `ENABLE_WEBHOOKS=false npx scaffold run`').toEqual({
        ENABLE_WEBHOOKS: 'false',
      });
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
          where(install!),
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
        // ENABLE_WEBHOOKS=false reached cmd/main.ts: no webhook was registered.
        expect(output).not.toContain('Registering webhook');
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
