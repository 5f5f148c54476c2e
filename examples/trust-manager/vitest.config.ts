import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A new project has no APIs, and so no tests, yet.
    passWithNoTests: true,
    // What a test prints (its log lines too) is shown with a test that fails: a passing run prints only the report.
    silent: 'passed-only',
    projects: [
      // Controller tests: on a fake client, and against a real kube-apiserver and etcd (@kubescaffold/envtest) that
      // test/envtest.setup.ts starts once for the run. `npm test` runs them.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['internal/**/*.test.ts', 'api/**/*.test.ts'],
          globalSetup: ['test/envtest.setup.ts'],
        },
      },
      // End-to-end tests run the built manager against the cluster of $KUBECONFIG: `make test-e2e` starts a local one.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
