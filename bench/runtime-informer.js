#!/usr/bin/env node
// Informer initial sync on one real control plane (envtest's kube-apiserver + etcd): SIZES Things (default 10,000 and
// 50,000, each with a ~1.1 KiB spec) are created, then each implementation, alone in its own process, one after
// another, syncs them into its cache:
//   ours                      SharedIndexInformer as configured by default (paginated LIST, 500 per page, then watch;
//                             objects cached as served, with equal strings and managedFields field sets shared)
//   ours uncompacted          the same with transform: null, objects cached exactly as JSON.parse made them
//   ours stripManagedFields   the same with only the stripManagedFields transform
//   ours compactObjects       stripManagedFields + string interning: what the Manager's cache uses by default
//   ours WatchList            the same streaming the initial state (sendInitialEvents) instead of listing
//   client-node makeInformer  @kubernetes/client-node 1.4's informer (one unpaginated LIST)
//   client-go dynamic         bench/go/informer: client-go v0.37 dynamic informer, as shipped (WatchList is on by default)
//   client-go dynamic LIST    the same with KUBE_FEATURE_WatchListClient=false
//   client-go typed           bench/go/informer with Go structs (bench/go/thing), as a generated clientset informs
//   JSON.parse only           no informer: one GET, JSON.parse, objects kept in an array; the heap floor for
//                             parsed objects in V8, to tell the representation from an informer's overhead
// Reported: time from creating the client to hasSynced, and live heap added per cached object (V8 heapUsed after
// full GCs, node --expose-gc; Go HeapAlloc after runtime.GC), against the objects' JSON size as served (with
// managedFields; the strip variant is also compared against the JSON without them). Best of RUNS runs (default 2).
// Usage: npm run build && node bench/runtime-informer.js
//        SIZES=10000 RUNS=1 node bench/runtime-informer.js        IMPLS='ours,client-go dynamic' to pick
//        CHILD_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the TypeScript implementations
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  THING,
  createThings,
  goBinary,
  importRuntime,
  loadLine,
  machineLine,
  printTable,
  ratio,
  startControlPlane,
} from './runtime-lib.js';

const SIZES = (process.env.SIZES ?? '10000,50000').split(',').map(Number);
const RUNS = Number(process.env.RUNS ?? 2);
const NAMESPACE = 'bench';
const child = fileURLToPath(new URL('./runtime-informer-child.js', import.meta.url));

const rt = await importRuntime('rest', 'cache');
rt.configureLog({ level: 'error' });
const ALL = [
  'ours',
  'ours uncompacted',
  'ours stripManagedFields',
  'ours compactObjects',
  'ours WatchList',
  'client-node makeInformer',
  'client-go dynamic',
  'client-go dynamic LIST',
  'client-go typed',
  'JSON.parse only',
];
const IMPLS = process.env.IMPLS ? process.env.IMPLS.split(',').map((s) => s.trim()) : ALL;
for (const i of IMPLS) if (!ALL.includes(i)) throw new Error(`unknown implementation ${i}; one of ${ALL.join(', ')}`);
// These cache objects without managedFields; their heap is also compared with the JSON without them.
const STRIPPED = new Set(['ours stripManagedFields', 'ours compactObjects']);

function runImpl(impl, kubeconfig) {
  const opts = { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] };
  let out;
  if (impl.startsWith('client-go')) {
    const mode = impl.includes('typed') ? 'typed' : 'dynamic';
    const env = { ...process.env };
    if (impl.endsWith('LIST')) env.KUBE_FEATURE_WatchListClient = 'false';
    out = execFileSync(goBinary('informer'), ['-kubeconfig', kubeconfig, '-namespace', NAMESPACE, '-mode', mode], {
      ...opts,
      env,
    });
  } else {
    const flags = (process.env.CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    out = execFileSync(process.execPath, ['--expose-gc', ...flags, child, impl, kubeconfig, NAMESPACE], opts);
  }
  const r = JSON.parse(out.trim().split('\n').pop());
  return { ...r, impl };
}

/** JSON bytes of every object as served (apiVersion and kind included, as in watch events), with and without managedFields. */
async function jsonSize(client, res) {
  const list = await client.listAll(res, { namespace: NAMESPACE });
  let full = 0;
  let stripped = 0;
  for (const o of list.items) {
    full += Buffer.byteLength(JSON.stringify(o));
    delete o.metadata.managedFields;
    stripped += Buffer.byteLength(JSON.stringify(o));
  }
  return { count: list.items.length, full, stripped };
}

if (IMPLS.some((i) => i.startsWith('client-go'))) goBinary('informer');
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);
const res = rt.defineResource(THING);
try {
  await client.create(rt.Namespaces, { metadata: { name: NAMESPACE } });
  console.log(`informer initial sync, Kubernetes ${cp.env.binaries.version} (envtest), best of ${RUNS}`);
  console.log(machineLine());
  let created = 0;
  for (const n of SIZES) {
    const ms = await createThings(client, res, NAMESPACE, created, n);
    console.log(
      `\ncreated ${n - created} Things in ${(ms / 1000).toFixed(1)} s (${(((n - created) / ms) * 1000).toFixed(0)}/s); ${loadLine()}`,
    );
    created = n;
    const size = await jsonSize(client, res);
    if (size.count !== n) throw new Error(`expected ${n} Things, the server lists ${size.count}`);
    const results = new Map();
    for (let r = 0; r < RUNS; r++) {
      for (const impl of IMPLS) {
        const x = runImpl(impl, cp.kubeconfigPath);
        if (x.objects !== n) throw new Error(`${impl} cached ${x.objects} of ${n} objects`);
        const prev = results.get(impl);
        results.set(impl, {
          ...x,
          syncMs: Math.min(prev?.syncMs ?? Infinity, x.syncMs),
          heapBytes: Math.min(prev?.heapBytes ?? Infinity, x.heapBytes),
        });
      }
    }
    const perObjJson = size.full / n;
    console.log(
      `${n} objects: JSON per object ${perObjJson.toFixed(0)} B as served, ${(size.stripped / n).toFixed(0)} B without managedFields`,
    );
    const base = results.get('client-go dynamic') ?? results.get('client-go typed');
    const cn = results.get('client-node makeInformer');
    const rows = [...results.values()].map((r) => {
      const json = STRIPPED.has(r.impl) ? size.stripped : size.full;
      return [
        r.impl,
        r.initial,
        (r.syncMs / 1000).toFixed(2),
        base ? ratio(r.syncMs, base.syncMs) : '-',
        cn ? ratio(r.syncMs, cn.syncMs) : '-',
        (r.heapBytes / n).toFixed(0),
        ratio(r.heapBytes, json) + (STRIPPED.has(r.impl) ? ' (stripped JSON)' : ''),
        base ? ratio(r.heapBytes, base.heapBytes) : '-',
      ];
    });
    printTable(
      [
        'implementation',
        'initial state',
        'sync s',
        'vs client-go dynamic',
        'vs makeInformer',
        'heap B/object',
        'heap ÷ JSON',
        'heap vs client-go dynamic',
      ],
      rows,
    );
    const ours = results.get('ours');
    if (ours && base && cn) {
      console.log(
        `goals (ours): sync within 1.5× of client-go dynamic: ${ratio(ours.syncMs, base.syncMs)} ${ours.syncMs <= 1.5 * base.syncMs ? 'met' : 'NOT met'}; ` +
          `faster than makeInformer: ${ratio(ours.syncMs, cn.syncMs)} ${ours.syncMs < cn.syncMs ? 'met' : 'NOT met'}; ` +
          `heap under 1.5× JSON: ${ratio(ours.heapBytes, size.full)} ${ours.heapBytes < 1.5 * size.full ? 'met' : 'NOT met'}`,
      );
    }
    console.log(loadLine());
  }
} finally {
  client.close();
  await cp.stop();
}
