// One TypeScript informer syncing the Things of a namespace, alone in its process so its heap is its own. Started by
// bench/runtime-informer.js as: node --expose-gc bench/runtime-informer-child.js <impl> <kubeconfig> <namespace>
// Prints {"impl","objects","syncMs","heapBytes","initial"}: sync time from creating the client to hasSynced (polled
// every millisecond), and the heapUsed it added, measured after full GCs.
import * as k8s from '@kubernetes/client-node';
import { GROUP, PLURAL, THING, VERSION, importRuntime } from './runtime-lib.js';

const [impl, kubeconfig, namespace] = process.argv.slice(2);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

function liveHeap() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

const tick = () => new Promise((r) => setTimeout(r, 1));

// client-node's own configuration for its informer; ours loads the same file with loadKubeConfig.
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);

async function ours({ transform, useWatchList }) {
  const rt = await importRuntime('rest', 'cache');
  rt.configureLog({ level: 'error' });
  const res = rt.defineResource(THING);
  let lists = 0;
  const before = liveHeap();
  const t = performance.now();
  const client = rt.newClient(rt.loadKubeConfig({ kubeconfig }));
  const lw = rt.newListWatch(client, res, { namespace });
  const counted = { list: (o) => (lists++, lw.list(o)), watch: (o) => lw.watch(o) };
  // transform undefined leaves the informer's default (compactObjects without stripping); null turns it off.
  const informer = new rt.SharedIndexInformer(counted, { transform: transform?.(rt), reflector: { useWatchList } });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  while (!informer.hasSynced()) await tick();
  const syncMs = performance.now() - t;
  const heapBytes = liveHeap() - before;
  const objects = informer.getStore().listKeys().length;
  ac.abort();
  await running;
  client.close();
  return { objects, syncMs, heapBytes, initial: lists === 0 ? 'watchlist' : `list (${lists} requests)` };
}

async function clientNode() {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const before = liveHeap();
  const t = performance.now();
  const informer = k8s.makeInformer(kc, `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`, () =>
    api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL }),
  );
  // start() resolves once the list is in the cache and the watch is open; there is no hasSynced.
  await informer.start();
  const syncMs = performance.now() - t;
  const heapBytes = liveHeap() - before;
  const objects = informer.list(namespace).length;
  await informer.stop();
  return { objects, syncMs, heapBytes, initial: 'list (unpaginated)' };
}

// Not an informer: one unpaginated GET and JSON.parse, the objects kept in an array. The least heap any JavaScript
// cache of the same parsed objects can take, to tell V8's representation of JSON apart from an informer's overhead.
async function parseOnly() {
  const rt = await importRuntime('rest', 'cache');
  const before = liveHeap();
  const t = performance.now();
  const client = rt.newClient(rt.loadKubeConfig({ kubeconfig }));
  const list = await client.transport.requestJson({
    method: 'GET',
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`,
  });
  const syncMs = performance.now() - t;
  const heapBytes = liveHeap() - before;
  const objects = list.items.length;
  client.close();
  return { objects, syncMs, heapBytes, initial: 'list (unpaginated)' };
}

const impls = {
  ours: () => ours({}),
  'ours uncompacted': () => ours({ transform: () => null }),
  'ours stripManagedFields': () => ours({ transform: (rt) => rt.stripManagedFields }),
  'ours compactObjects': () => ours({ transform: (rt) => rt.compactObjects() }),
  'ours WatchList': () => ours({ useWatchList: true }),
  'client-node makeInformer': clientNode,
  'JSON.parse only': parseOnly,
};
const run = impls[impl];
if (!run) throw new Error(`unknown implementation ${impl}; one of ${Object.keys(impls).join(', ')}`);
console.log(JSON.stringify({ impl, ...(await run()) }));
process.exit(0);
