// Follows the CronJob tutorial as a reader does, in a directory of its own: runs the commands of each chapter, writes
// each code block where the page says it goes, and after each chapter checks that the project builds, lints and
// passes its tests. A step that does not apply, or a chapter that leaves a broken project, throws naming the chapter.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { applyEdit, describeStep, tutorialSteps } from './tutorial.js';

const SCAFFOLD_STEPS = new Set(['init', 'create', 'edit', 'manifests', 'generate']);
const SCAFFOLD_CLUSTER = new Set(['install', 'uninstall', 'deploy', 'undeploy', 'run', 'build-installer']);
const MAKE_LOCAL = new Set(['manifests', 'generate', 'build', 'lint', 'test', 'test-e2e']);
const MAKE_CLUSTER = new Set([
  'install',
  'uninstall',
  'deploy',
  'undeploy',
  'run',
  'docker-build',
  'docker-push',
  'build-installer',
]);
// Tools of the reader's own cluster, which a local run has none of.
const CLUSTER_TOOLS = new Set(['kubectl', 'kind', 'docker']);

/** The checks a command does (build, lint, test), under the names end-of-chapter checks count them as done. */
function checksOf(words) {
  const text = words.join(' ');
  if (text === 'npm run build') return ['build'];
  if (text === 'npm run lint') return ['lint'];
  if (text === 'npm test') return ['test'];
  // The scaffolded Makefile's test-e2e builds the project first (its prerequisite `build`).
  if (words[0] === 'make')
    return [...new Set(words.slice(1).map((t) => (t === 'test-e2e' ? 'build' : t)))].filter((t) =>
      ['build', 'lint', 'test'].includes(t),
    );
  return [];
}

/**
 * What to do with a command of the tutorial: 'cd', 'mkdir', 'run' (here, as written, but with this checkout's CLI for
 * npx kubescaffold), or 'cluster' (needs the reader's cluster: collected, not run). Anything else throws, so that no
 * command is passed over unseen.
 */
export function commandKind(step) {
  const [cmd, sub, verb] = step.words;
  if (cmd === 'cd') return 'cd';
  if (cmd === 'mkdir') return 'mkdir';
  if (cmd === 'npx' && (sub === 'kubescaffold' || sub === 'scaffold')) {
    if (SCAFFOLD_STEPS.has(verb)) return 'run';
    if (SCAFFOLD_CLUSTER.has(verb)) return 'cluster';
  }
  if (cmd === 'npm' && (sub === 'install' || sub === 'test' || (sub === 'run' && ['build', 'lint'].includes(verb))))
    return 'run';
  if (cmd === 'make' && step.words.slice(1).every((t) => MAKE_LOCAL.has(t))) return 'run';
  if (cmd === 'make' && MAKE_CLUSTER.has(sub)) return 'cluster';
  if (cmd === 'git') return 'run';
  if (CLUSTER_TOOLS.has(cmd)) return 'cluster';
  throw new Error(
    `${describeStep(step)}: a command the tutorial's runner does not know how to follow (scripts/lib/follow-tutorial.js)`,
  );
}

/**
 * Follows the tutorial of `tutorialDir` inside `base`. Options: `scaffoldBin`, the CLI to run for `npx kubescaffold`
 * and `npx scaffold`; `env`, extra environment for every command; `log(line)`, progress. Returns the project's
 * directory, the commands that need a cluster (with the directory each was given in), and each chapter's checks.
 */
export function followTutorial({ tutorialDir, base, scaffoldBin, env = {}, log = () => {} }) {
  const commandEnv = {
    ...process.env,
    CI: 'true',
    NO_COLOR: '1',
    // A commit needs an author; a reader's git has one configured.
    GIT_AUTHOR_NAME: 'Tutorial Reader',
    GIT_AUTHOR_EMAIL: 'reader@example.com',
    GIT_COMMITTER_NAME: 'Tutorial Reader',
    GIT_COMMITTER_EMAIL: 'reader@example.com',
    ...env,
  };
  const run = (cwd, step, words, what) => {
    const [command, ...args] =
      words[0] === 'npx'
        ? [process.execPath, scaffoldBin, ...words.slice(2)]
        : words[0] === 'npm' && words[1] === 'install'
          ? ['npm', 'install', '--no-audit', '--no-fund', ...words.slice(2)]
          : words;
    log(`${what}`);
    const result = spawnSync(command, args, {
      cwd,
      encoding: 'utf8',
      env: { ...commandEnv, ...step.env },
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    if (result.status !== 0) throw new Error(`${what}: exit ${result.status ?? result.signal}\n${output.slice(-8000)}`);
    return output;
  };

  let cwd = base;
  let project;
  const clusterSteps = [];
  const chapters = [];
  for (const { chapter, steps } of tutorialSteps(tutorialDir)) {
    // The checks done since the project last changed: a chapter that ends on `make test` is not tested twice.
    let done = new Set();
    let changed = false;
    const outputs = {};
    for (const step of steps) {
      if (step.kind === 'edit') {
        if (!project) throw new Error(`${describeStep(step)}: a code block before the project is scaffolded`);
        const path = join(project, step.file);
        const next = applyEdit(step, existsSync(path) ? readFileSync(path, 'utf8') : undefined);
        if (step.mode !== 'shown') {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, next);
          done = new Set();
          changed = true;
        }
        continue;
      }
      const kind = commandKind(step);
      if (kind === 'cd') cwd = resolve(cwd, step.words[1]);
      else if (kind === 'mkdir') mkdirSync(resolve(cwd, step.words.at(-1)), { recursive: true });
      else if (kind === 'cluster') clusterSteps.push({ ...step, cwd });
      else {
        const output = run(cwd, step, step.words, describeStep(step));
        if (step.words[0] === 'npx' && step.words[2] === 'init') project = cwd;
        const checks = checksOf(step.words);
        for (const check of checks) {
          done.add(check);
          outputs[check] = (outputs[check] ?? '') + output;
        }
        if (step.words[0] === 'make') outputs[step.words.join(' ')] = output;
        // What changes the project's code (not make's targets, which check it, nor a commit) calls for new checks.
        const checking =
          step.words[0] === 'make' || checks.length > 0 || (step.words[0] === 'git' && step.words[1] !== 'checkout');
        if (!checking) {
          done = new Set();
          changed = true;
        }
      }
    }
    if (project && changed) {
      // Every chapter that changes the project leaves one that builds, lints and passes its tests; a chapter that
      // changes nothing (the last: a cluster's commands) leaves it as the previous one checked it.
      const checks = [
        ['build', ['npm', 'run', 'build']],
        ['lint', ['make', 'lint']],
        ['test', ['make', 'test']],
      ];
      for (const [name, words] of checks) {
        if (done.has(name)) continue;
        outputs[name] = run(project, { env: {} }, words, `after ${chapter}: \`${words.join(' ')}\``);
      }
    }
    chapters.push({ chapter, outputs });
  }
  if (!project) throw new Error('the tutorial never scaffolds a project');
  return { project, clusterSteps, chapters };
}
