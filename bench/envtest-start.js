#!/usr/bin/env node
// Start-to-ready time of a cached control plane: TestEnvironment.start() until it resolves (etcd healthy,
// kube-apiserver /healthz, namespace "default"), then with one CRD installed and served, and stop() time.
// Median of RUNS runs each (default 5). Also prints how long the cached binaries took to build (build-info.json).
// Usage: npm run build && node bench/envtest-start.js
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBinaries, TestEnvironment } from '../src/envtest/dist/index.js';

const runs = Number(process.env.RUNS ?? 5);
const crdDir = fileURLToPath(new URL('../test/envtest/fixtures/crds', import.meta.url));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (values) =>
  `median ${median(values).toFixed(0).padStart(5)} ms   (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)})`;

async function measure(options) {
  const ready = [],
    stop = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const env = await TestEnvironment.start(options);
    ready.push(performance.now() - t);
    t = performance.now();
    await env.stop();
    stop.push(performance.now() - t);
  }
  return { ready, stop };
}

const bins = await findBinaries();
let build = `from ${bins.source}`;
try {
  const info = JSON.parse(readFileSync(join(bins.dir, 'build-info.json'), 'utf8'));
  build =
    `built with ${info.go} at ${info.builtAt}` +
    (info.buildSeconds !== undefined ? ` in ${info.buildSeconds}s` : '') +
    ` (log: ${info.log})`;
} catch {
  // not built by scaffold envtest use (e.g. KUBEBUILDER_ASSETS from setup-envtest)
}
// One unmeasured start warms the page cache for the ~100 MB kube-apiserver binary.
await (await TestEnvironment.start()).stop();
const plain = await measure({});
const withCrd = await measure({ crdDirectoryPaths: [crdDir] });
console.log(`envtest: Kubernetes ${bins.version} from ${bins.dir}`);
console.log(`  binaries ${build}`);
console.log(`  ${runs} runs each (node ${process.version})`);
console.log(`  start → ready                 ${fmt(plain.ready)}`);
console.log(`  start → ready, 1 CRD served   ${fmt(withCrd.ready)}`);
console.log(`  stop                          ${fmt([...plain.stop, ...withCrd.stop])}`);
