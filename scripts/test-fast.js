#!/usr/bin/env node
// The fast tier, for the inner loop: the unit and integration tests, without what packs and installs projects or
// runs a long comparison. `npm test` stays the full suite, which CI runs; this runs a part of it, in a few minutes.
// Extra arguments go to `vitest run` (a file filter, `-t NAME`).
//
// Usage: npm run build && node scripts/test-fast.js [vitest args ...]     (npm run test:fast builds first)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

// Left to `npm test`:
// - the e2e tests (test/e2e), each of which packs the three packages and installs them into a project of its own,
//   then builds and tests that project;
// - the comparisons with the real tools, whose peers are built from the Go module proxy or run as whole programs:
//   controller-gen's CRDs (the parity files, the public APIs and the corpus's import round trips), kubebuilder's
//   scaffolds (the *kubebuilder* files), kubectl kustomize's builds, the controller-runtime peer's metrics, and
//   the Reloader port beside its Go original. The golden and snapshot tests that pin the same generators stay in;
// - the book's site and API reference builds (vitepress and typedoc over the whole package);
// - the fuzz tests, which explore many generated inputs for a run each;
// - the shard ring experiment (3 replicas and 3,000 objects, three times, through kill -9 and SIGSTOP); the ring's
//   unit tests, on a fake clock, and the other sharding integration tests stay in.
const leftOut = [
  'test/e2e/**',
  '**/*parity*.test.ts',
  '**/*kubebuilder*.test.ts',
  'test/importer/roundtrip-public.test.ts',
  'test/importer/roundtrip-corpus.test.ts',
  'test/examples/reloader.equivalence.test.ts',
  'test/docs/site.test.ts',
  'test/docs/api-reference.test.ts',
  'test/fuzz/**',
  'test/runtime/sharding/ring.integration.test.ts',
];

const result = spawnSync(
  process.execPath,
  [
    join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    ...leftOut.flatMap((pattern) => ['--exclude', pattern]),
    ...process.argv.slice(2),
  ],
  { cwd: repoRoot, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
