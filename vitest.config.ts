import { configDefaults, defineConfig } from 'vitest/config';

// The workspace packages (@kubescaffold/runtime, @kubescaffold/envtest) resolve to their TypeScript sources, as
// tsconfig's customConditions has them: tests import those sources directly too, and one copy of each module keeps
// `instanceof` and module state whole.
const conditions = ['kubescaffold-source'];

export default defineConfig({
  resolve: { conditions: [...conditions, 'import', 'node', 'default'] },
  ssr: { resolve: { conditions: [...conditions, 'import', 'node', 'default'], externalConditions: conditions } },
  test: {
    // The ported operators' fake-client tests too: milliseconds each, they test the ports' write paths on the runtime
    // under test (their envtest tests are left to the examples' own runs; the equivalence tests cover those paths).
    include: ['test/**/*.test.ts', 'examples/*/internal/**/*.fake.test.ts'],
    // Fixtures are projects the tests build and run in their own way, tests of their own included.
    exclude: [...configDefaults.exclude, 'test/fixtures/**'],
    // Integration tests start real kube-apiserver and etcd processes; two cores cannot run many at once.
    // Generous bounds for a loaded two-core machine, never assertions of speed; hookTimeout is
    // test/support/limits.ts's CONTROL_PLANE_START_MS, for the beforeAll hooks that start a control plane.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A missing snapshot fails instead of being written, so a test cannot pass by freezing whatever it produced;
    // `vitest run -u` writes them.
    update: 'none',
    // A passing run prints the report alone. What a test writes to the console (a fuzz run's seed, a ring run's
    // figures) is shown beside a test that fails; `vitest run --silent=false` shows it always.
    silent: 'passed-only',
    // The runtime's root logger writes through the console too, for the same reason.
    setupFiles: ['test/support/log-sink.ts'],
    // The scaffolded projects' npm installs take a package from npm's cache when it is there, without asking the
    // registry whether it changed (`npm install --prefer-offline`): what they test is the install of this checkout's
    // tarballs with the dependencies its lockfile and templates name, not the registry's freshness, and asking cost
    // each install about 20 s of waiting. The tests of installs from a registry stand-in whose packages change during
    // the run (registry, alpha-update) turn it off.
    env: { npm_config_prefer_offline: 'true' },
    // One folder per run for the installs of scaffolded projects that e2e tests share (test/support/project-install.ts).
    globalSetup: ['test/support/install-cache.global.ts'],
  },
});
