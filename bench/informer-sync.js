#!/usr/bin/env node
// Informer initial sync on one real control plane: N custom objects (default 10,000 then 50,000) listed into the cache
// by our SharedIndexInformer (as is, with managedFields stripped, and compacted: stripped + strings interned), @kubernetes/client-node's makeInformer, and a
// client-go dynamic informer (bench/clientgo, built from Go modules). Reports sync time and heap per cached object,
// and heap against the objects' JSON size. Each implementation runs in its own process, best of RUNS (default 3).
// Usage: npm run build && node bench/informer-sync.js     (COUNTS=10000,50000; KUBESCAFFOLD_DIST=<dir> for another build)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clientGoBinary, runClientGo } from './clientgo.js';
import { performance } from 'node:perf_hooks';

const dist = process.env.KUBESCAFFOLD_DIST ? pathToFileURL(process.env.KUBESCAFFOLD_DIST + '/').href : new URL('../dist/', import.meta.url).href;
const { TestEnvironment } = await import(new URL('envtest/index.js', dist).href);
const rest = await import(new URL('runtime/rest/index.js', dist).href);

const COUNTS = (process.env.COUNTS ?? '10000,50000').split(',').map(Number);
const RUNS = Number(process.env.RUNS ?? 3);
const group = 'bench.kubescaffold.dev';
const version = 'v1';
const plural = 'things';
const namespace = 'bench';
const child = fileURLToPath(new URL('./informer-sync-child.js', import.meta.url));

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    names: { kind: 'Thing', plural, singular: 'thing', listKind: 'ThingList' },
    scope: 'Namespaced',
    versions: [{ name: version, served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const Things = rest.defineResource({ group, version, kind: 'Thing', plural, namespaced: true });

// A typical custom object: labels, an annotation, a spec with a few scalars, a list and a map (about 1 KiB as JSON).
function thing(i) {
  return {
    metadata: {
      name: `thing-${String(i).padStart(6, '0')}`,
      namespace,
      labels: { app: 'bench', tier: i % 2 ? 'web' : 'db', shard: String(i % 16) },
      annotations: { 'bench.kubescaffold.dev/owner': `team-${i % 7}` },
    },
    spec: {
      replicas: (i % 5) + 1,
      image: `registry.example.com/bench/app:v1.${i % 20}.0`,
      paused: false,
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'metrics', port: 9090, protocol: 'TCP' }],
      env: [{ name: 'MODE', value: 'production' }, { name: 'INDEX', value: String(i) }, { name: 'REGION', value: 'eu-west-1' }],
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
    },
  };
}

async function createThings(client, from, to) {
  const CONCURRENCY = 32;
  let next = from;
  const worker = async () => {
    while (next < to) await client.create(Things, thing(next++));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function runChild(impl, kubeconfig) {
  const out = execFileSync(process.execPath, ['--expose-gc', child, impl, kubeconfig, group, version, plural, namespace], {
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

function best(runs) {
  return {
    objects: runs[0].objects,
    syncMs: Math.min(...runs.map((r) => r.syncMs)),
    heapBytes: Math.min(...runs.map((r) => r.heapBytes)),
    jsonBytes: runs[0].jsonBytes,
  };
}

const env = await TestEnvironment.start({ crds: [crd], startTimeout: 120_000 });
const dir = mkdtempSync(join(tmpdir(), 'informer-bench-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, env.kubeconfigYaml());
const client = rest.newClient(env.kubeConfig);
clientGoBinary();
try {
  await client.create(rest.Namespaces, { metadata: { name: namespace } });
  let created = 0;
  console.log(`informer initial sync, Kubernetes ${env.binaries.version}, node ${process.version}, best of ${RUNS}`);
  for (const n of COUNTS) {
    const t = performance.now();
    await createThings(client, created, n);
    created = n;
    console.log(`\n${n} objects (created in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    const results = {};
    for (const impl of ['ours', 'ours-strip', 'ours-compact', 'client-node']) results[impl] = best(Array.from({ length: RUNS }, () => runChild(impl, kubeconfig)));
    const goRuns = [];
    for (let i = 0; i < RUNS && clientGoBinary(); i++) {
      goRuns.push(runClientGo(['sync', '-kubeconfig', kubeconfig, '-group', group, '-version', version, '-resource', plural, '-namespace', namespace]));
    }
    if (goRuns.length) results['client-go'] = best(goRuns.map((r) => ({ ...r, jsonBytes: results.ours.jsonBytes })));
    const jsonPerObj = results.ours.jsonBytes / n;
    console.log(`  JSON per object: ${jsonPerObj.toFixed(0)} B as served, ${(results['ours-strip'].jsonBytes / n).toFixed(0)} B without managedFields`);
    console.log('  implementation       objects   sync ms   heap/object   heap÷JSON   sync vs client-go');
    for (const [name, r] of Object.entries(results)) {
      const perObj = r.heapBytes / r.objects;
      const vsGo = results['client-go'] ? (r.syncMs / results['client-go'].syncMs).toFixed(2) + '×' : '-';
      console.log(
        `  ${name.padEnd(18)} ${String(r.objects).padStart(9)} ${r.syncMs.toFixed(0).padStart(9)} ${(perObj / 1024).toFixed(2).padStart(10)} KiB ${(r.heapBytes / r.jsonBytes).toFixed(2).padStart(10)}× ${vsGo.padStart(12)}`,
      );
    }
  }
} finally {
  client.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
}
