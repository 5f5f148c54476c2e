#!/usr/bin/env node
// The edit-and-test loop of a scaffolded project: from a saved change in a reconciler to the test's verdict, with
// `vitest --watch` keeping the run's one control plane (test/envtest.setup.ts) up across reruns, against running the
// whole `npm test` again (what a Go user's `make test` is: build, start envtest, run the suite, stop it).
// A project with one kind (a controller and a defaulting and validating webhook) is scaffolded and installed; then
//   1. `npm test` once, timed (its own control plane start and stop included);
//   2. `npx vitest --watch --project unit` started, timed to its first verdict (the cold start of the loop);
//   3. ROUNDS (default 5) edits of internal/controller/<kind>_controller.ts, each a changed log message saved to disk,
//      timed from the write to vitest's next verdict ("Waiting for file changes"), the tests passing each time.
// Usage: npm run build && node bench/edit-test-loop.js          ROUNDS=10 KEEP=1 node bench/edit-test-loop.js
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, percentile } from './runtime-lib.js';

const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const env = { ...process.env, NO_COLOR: '1', CI: '' };

function must(cwd, cmd, args) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const base = mkdtempSync(join(tmpdir(), 'kubescaffold-bench-loop-'));
const root = join(base, 'loop');
mkdirSync(root);
console.log(machineLine());
must(root, process.execPath, [scaffold, 'init', '--domain', 'example.com', '--skip-install']);
must(root, process.execPath, [scaffold, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate']);
must(root, process.execPath, [
  scaffold,
  ...['create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate'],
  ...['--defaulting', '--programmatic-validation'],
]);
must(root, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline']);
// Obtaining the binaries (a download or a build, the first time) is not what is measured.
must(root, 'npx', ['scaffold', 'envtest', 'use', '-p', 'path']);

let t = performance.now();
must(root, 'npm', ['test']);
const npmTestS = (performance.now() - t) / 1000;
console.log(`npm test: ${npmTestS.toFixed(1)} s`);

const controller = join(root, 'internal', 'controller', 'frigate_controller.ts');
const original = readFileSync(controller, 'utf8');
const watcher = spawn('npx', ['vitest', '--watch', '--project', 'unit'], { cwd: root, env, detached: true });
let output = '';
let verdicts = 0;
const waiters = [];
const onText = (chunk) => {
  output += chunk;
  const seen = output.split('Waiting for file changes').length - 1;
  while (verdicts < seen) {
    verdicts++;
    waiters.shift()?.();
  }
};
watcher.stdout.setEncoding('utf8').on('data', onText);
watcher.stderr.setEncoding('utf8').on('data', onText);
const nextVerdict = () =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no verdict within 180 s; vitest said:\n${output}`)), 180_000);
    waiters.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
const lastRunPassed = () => {
  const runs = output.split('Waiting for file changes');
  const last = runs[runs.length - 2] ?? '';
  return /Test Files\s+\d+ passed/.test(last) && !/failed/.test(last);
};

const loop = [];
let coldS;
try {
  t = performance.now();
  await nextVerdict();
  coldS = (performance.now() - t) / 1000;
  if (!lastRunPassed()) throw new Error(`the first watch run failed:\n${output}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const edited = original.replace(/(log\.info\(')([^']*)'/, `$1$2 (edit ${round})'`);
    if (edited === original) throw new Error(`no log.info('…') message to edit in ${controller}`);
    const verdict = nextVerdict();
    t = performance.now();
    writeFileSync(controller, edited);
    await verdict;
    loop.push((performance.now() - t) / 1000);
    if (!lastRunPassed()) throw new Error(`the tests failed after edit ${round}:\n${output}`);
  }
} finally {
  writeFileSync(controller, original);
  process.kill(-watcher.pid, 'SIGTERM');
  await new Promise((r) => watcher.on('exit', r));
  if (!process.env.KEEP) rmSync(base, { recursive: true, force: true });
  else console.log(`kept ${root}`);
}
console.log(`vitest --watch, first verdict (control plane started): ${coldS.toFixed(1)} s`);
console.log(
  `edit → verdict over ${ROUNDS} edits: median ${percentile(loop, 50).toFixed(1)} s, best ${Math.min(...loop).toFixed(1)} s, ` +
    `worst ${Math.max(...loop).toFixed(1)} s (each: ${loop.map((s) => s.toFixed(1)).join(', ')})`,
);
console.log(`ratio, median edit → verdict ÷ npm test: ${(percentile(loop, 50) / npmTestS).toFixed(2)}×`);
