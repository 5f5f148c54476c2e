import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real kube-apiserver and etcd processes; two cores cannot run many at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A missing snapshot fails instead of being written, so a test cannot pass by freezing whatever it produced;
    // `vitest run -u` writes them.
    update: 'none',
  },
});
