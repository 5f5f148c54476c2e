// One informer implementation syncing one collection, in a process of its own so heap figures are not mixed.
// Run by bench/informer-sync.js with --expose-gc: node informer-sync-child.js <impl> <kubeconfig> <group> <version> <plural> <namespace>
// Prints {"objects","syncMs","heapBytes","jsonBytes"}.
import { pathToFileURL } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { performance } from 'node:perf_hooks';

const [impl, kubeconfig, group, version, plural, namespace] = process.argv.slice(2);
const dist = process.env.KUBESCAFFOLD_DIST ? pathToFileURL(process.env.KUBESCAFFOLD_DIST + '/').href : new URL('../dist/', import.meta.url).href;

function heap() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}
const jsonBytes = (objs) => objs.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);

const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);

async function ours(variant) {
  const cache = await import(new URL('runtime/cache/index.js', dist).href);
  const rest = await import(new URL('runtime/rest/index.js', dist).href);
  const { configureLog } = await import(new URL('runtime/log/index.js', dist).href);
  configureLog({ level: 'error' });
  const res = rest.defineResource({ group, version, kind: 'Thing', plural, namespaced: true });
  const before = heap();
  const t = performance.now();
  const client = rest.newClient(kc);
  const transform = { plain: undefined, strip: cache.stripManagedFields, compact: cache.compactObjects() }[variant];
  const informer = new cache.SharedIndexInformer(cache.newListWatch(client, res, { namespace }), { transform });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await cache.waitForCacheSync(ac.signal, () => informer.hasSynced());
  const syncMs = performance.now() - t;
  const heapBytes = heap() - before;
  const objs = informer.getStore().list();
  const result = { objects: objs.length, syncMs, heapBytes, jsonBytes: jsonBytes(objs) };
  ac.abort();
  await running;
  client.close();
  return result;
}

async function clientNode() {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const before = heap();
  const t = performance.now();
  const informer = k8s.makeInformer(kc, `/apis/${group}/${version}/namespaces/${namespace}/${plural}`, () =>
    api.listNamespacedCustomObject({ group, version, namespace, plural }),
  );
  await informer.start(); // resolves once the list is in the cache and the watch is started
  const syncMs = performance.now() - t;
  const heapBytes = heap() - before;
  const objs = informer.list(namespace);
  const result = { objects: objs.length, syncMs, heapBytes, jsonBytes: jsonBytes(objs) };
  await informer.stop();
  return result;
}

const run = { ours: () => ours('plain'), 'ours-strip': () => ours('strip'), 'ours-compact': () => ours('compact'), 'client-node': clientNode }[impl];
if (!run) throw new Error(`unknown implementation ${impl}`);
console.log(JSON.stringify(await run()));
process.exit(0);
