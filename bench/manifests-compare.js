#!/usr/bin/env node
// `scaffold manifests` against controller-gen on the same APIs: generated projects of 10, 50 and 200 Kinds with
// realistic fields (PodTemplateSpec, validated scalars, enums, associative lists, maps, Quantity, conditions), each
// with a Go twin, run side by side; reports median wall times and the ratio, and checks that both tools wrote the
// same bytes. Then the `--watch` regeneration time after a one-file change on the 50-Kind API.
// Needs Go (controller-gen is built into ~/.cache/kubescaffold/controller-gen on first use) and `npm run build`.
// Usage: node bench/manifests-compare.js    (env: SIZES=10,50,200  RUNS=5  WATCH_RUNS=9)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findControllerGen, prepareGoModule } from '../scripts/lib/controller-gen.js';

const sizes = (process.env.SIZES ?? '10,50,200').split(',').map(Number);
const runs = Number(process.env.RUNS ?? 5);
const watchRuns = Number(process.env.WATCH_RUNS ?? 9);
const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const dist = new URL('../dist/', import.meta.url);
const { watchManifests } = await import(new URL('generate/watch.js', dist).href);
const { makeProjects } = await import('./manifests-project.js');

function timed(cmd, args, cwd) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function listFiles(dir) {
  return readdirSync(dir).flatMap((e) =>
    statSync(join(dir, e)).isDirectory() ? listFiles(join(dir, e)) : [join(dir, e)],
  );
}

function compareOutputs(ts, go) {
  const strip = (s) => s.replace(/^ {4}(controller-gen\.kubebuilder\.io|kubescaffold\.io)\/version: .*\n/m, '');
  const ours = listFiles(join(ts, 'config'));
  const theirs = listFiles(join(go, 'config'));
  if (ours.length !== theirs.length) return `different file sets (${ours.length} vs ${theirs.length})`;
  for (const f of theirs) {
    const mine = join(ts, relative(go, f));
    if (strip(readFileSync(f, 'utf8')) !== strip(readFileSync(mine, 'utf8'))) return `differs: ${relative(go, f)}`;
  }
  return 'identical';
}

const controllerGen = findControllerGen();
const cgArgs = [
  'rbac:roleName=manager-role',
  'crd',
  'webhook',
  'paths=./...',
  'output:crd:artifacts:config=config/crd/bases',
  'output:rbac:artifacts:config=config/rbac',
];
const base = mkdtempSync(join(tmpdir(), 'bench-manifests-'));
const results = [];
try {
  console.log(
    `scaffold manifests vs controller-gen, median of ${runs} runs (node ${process.version}, ${execFileSync('go', ['version'], { encoding: 'utf8' }).trim()})`,
  );
  let watchProject;
  for (const n of sizes) {
    const { ts, go } = makeProjects(n, base, (dir) => prepareGoModule(dir, 'example.com/bench'));
    if (n === 50 || (!watchProject && n === sizes[sizes.length - 1])) watchProject = ts;
    // one warm-up each (Go build cache for go/packages, OS file cache for both)
    timed(controllerGen, cgArgs, go);
    timed(process.execPath, [scaffold, 'manifests'], ts);
    const ours = [];
    const theirs = [];
    for (let i = 0; i < runs; i++) {
      ours.push(timed(process.execPath, [scaffold, 'manifests'], ts));
      theirs.push(timed(controllerGen, cgArgs, go));
    }
    const row = { kinds: n, scaffold: median(ours), controllerGen: median(theirs), output: compareOutputs(ts, go) };
    results.push(row);
    console.log(
      `  ${String(n).padStart(4)} Kinds   scaffold ${row.scaffold.toFixed(0).padStart(6)} ms   controller-gen ${row.controllerGen.toFixed(0).padStart(6)} ms   ratio ${(row.scaffold / row.controllerGen).toFixed(2)}   output ${row.output}`,
    );
  }

  // --watch: time from saving one types file to the regenerated manifests being written
  const controller = new AbortController();
  const done = [];
  let waiting;
  const watching = watchManifests({
    root: watchProject,
    generatorVersion: 'bench',
    signal: controller.signal,
    onRun: (r) => waiting?.(r),
  });
  await new Promise((r) => setTimeout(r, 300));
  const file = join(watchProject, 'api/v1/kind000_types.ts');
  const original = readFileSync(file, 'utf8');
  for (let i = 0; i < watchRuns; i++) {
    const result = new Promise((resolve) => (waiting = resolve));
    const start = process.hrtime.bigint();
    writeFileSync(file, original.replace('/** image to run. */', `/** image to run (edit ${i}). */`));
    const r = await result;
    if (r.error) throw r.error;
    done.push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((r2) => setTimeout(r2, 100));
  }
  controller.abort();
  await watching;
  const kinds = readdirSync(join(watchProject, 'api/v1')).filter((f) => f.endsWith('_types.ts')).length;
  console.log(
    `  --watch on ${kinds} Kinds: one-file change to manifests written, median of ${watchRuns}: ${median(done).toFixed(0)} ms (includes the 20 ms debounce)`,
  );
  appendFileSync(join(base, 'results.json'), JSON.stringify({ results, watchMs: median(done) }));
} finally {
  rmSync(base, { recursive: true, force: true });
}
