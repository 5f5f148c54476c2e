#!/usr/bin/env node
// A Go user's test loop beside ours: the same project (one kind with a controller and a defaulting and validating
// webhook) made by the real kubebuilder, and its `make test` timed cold (an empty Go build cache; the module cache as
// it is), warm (nothing changed), and after each of EDITS (default 3) edits of the reconciler (a comment changed,
// so its package and test binaries are built again). setup-envtest cannot reach its release index here, so the
// project's bin/setup-envtest is a stand-in that prints the path of kubescaffold's control plane binaries
// (KUBEBUILDER_ASSETS, or `node bin/scaffold.js envtest use -p path`): both loops run the same kube-apiserver and etcd.
// Ours is bench/edit-test-loop.js (npm test, and vitest --watch).
// KUBEBUILDER: the kubebuilder binary (default ~/.cache/kubescaffold/kubebuilder/v4.16.0/kubebuilder, which the
// repository's kubebuilder comparisons build from the Go module proxy). COLD=0 leaves out the cold run and uses Go's own build cache.
// Usage: npm run build && node bench/kubebuilder-make-test.js
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, percentile } from './runtime-lib.js';

const kubebuilder =
  process.env.KUBEBUILDER ?? join(homedir(), '.cache', 'kubescaffold', 'kubebuilder', 'v4.16.0', 'kubebuilder');
const EDITS = Number(process.env.EDITS ?? 3);
const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const assets =
  process.env.KUBEBUILDER_ASSETS ??
  execFileSync(process.execPath, [scaffold, 'envtest', 'use', '-p', 'path'], { encoding: 'utf8' }).trim();

const base = mkdtempSync(join(tmpdir(), 'kubescaffold-bench-kb-'));
const root = join(base, 'fleet');
const gocache = join(base, 'gocache');
mkdirSync(root);
// The cold run needs a build cache of its own, emptied before it; without it (COLD=0) the user's cache is used, warm.
const cold = process.env.COLD !== '0';
const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod', ...(cold ? { GOCACHE: gocache } : {}) };
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${root}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
};
const makeVar = (name) =>
  run('make', ['--no-print-directory', `--eval=print-var: ; @echo $(${name})`, 'print-var']).trim();
const timedMakeTest = () => {
  const t = performance.now();
  run('make', ['test']);
  return (performance.now() - t) / 1000;
};

console.log(machineLine());
try {
  run(kubebuilder, ['init', '--domain', 'example.com', '--repo', 'example.com/fleet']);
  run(kubebuilder, [
    'create',
    'api',
    '--group',
    'fleet',
    '--version',
    'v1',
    '--kind',
    'Alpha',
    '--resource',
    '--controller',
  ]);
  run(kubebuilder, [
    ...['create', 'webhook', '--group', 'fleet', '--version', 'v1', '--kind', 'Alpha'],
    ...['--defaulting', '--programmatic-validation'],
  ]);
  // The Makefile installs setup-envtest as bin/setup-envtest-<version> with bin/setup-envtest linking to it, and
  // skips the install when both are there.
  const bin = join(root, 'bin', `setup-envtest-${makeVar('ENVTEST_VERSION')}`);
  mkdirSync(join(root, 'bin'), { recursive: true });
  writeFileSync(bin, `#!/bin/sh\necho '${assets}'\n`);
  chmodSync(bin, 0o755);
  rmSync(join(root, 'bin', 'setup-envtest'), { force: true });
  symlinkSync(bin, join(root, 'bin', 'setup-envtest'));

  if (cold) {
    rmSync(gocache, { recursive: true, force: true });
    console.log(`make test, cold (empty Go build cache): ${timedMakeTest().toFixed(1)} s`);
  }
  const warm = timedMakeTest();
  console.log(`make test, warm (nothing changed): ${warm.toFixed(1)} s`);
  const controller = join(root, 'internal', 'controller', 'alpha_controller.go');
  const original = readFileSync(controller, 'utf8');
  if (!original.includes('// TODO(user): your logic here')) throw new Error(`no TODO comment to edit in ${controller}`);
  const edits = [];
  for (let i = 1; i <= EDITS; i++) {
    writeFileSync(
      controller,
      original.replace('// TODO(user): your logic here', `// TODO(user): your logic here (${i})`),
    );
    edits.push(timedMakeTest());
  }
  console.log(
    `make test after an edit of the reconciler, over ${EDITS}: median ${percentile(edits, 50).toFixed(1)} s ` +
      `(each: ${edits.map((s) => s.toFixed(1)).join(', ')})`,
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}
