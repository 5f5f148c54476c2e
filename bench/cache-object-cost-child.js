// One informer of ours over one resource of a namespace, as the Manager's cache builds it (its default transform:
// strings and managedFields field sets shared, objects otherwise as served), held until stdin closes so that its RSS
// can be read from outside. Started by bench/cache-object-cost.js as:
//   node --expose-gc <node flags> bench/cache-object-cost-child.js <kubeconfig> <namespace> <resource>
// Prints {"objects","heapBytes"} once synced and after two full GCs, as the Go peer (bench/go/objectcost) does.
import { THING, importRuntime } from './runtime-lib.js';

const [kubeconfig, namespace, resource] = process.argv.slice(2);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

const rt = await importRuntime('rest', 'cache');
rt.configureLog({ level: 'error' });
const resources = {
  configmaps: rt.ConfigMaps,
  secrets: rt.Secrets,
  deployments: rt.Deployments,
  things: rt.defineResource(THING),
};
const res = resources[resource];
if (!res) throw new Error(`unknown resource ${resource}; one of ${Object.keys(resources).join(', ')}`);

const client = rt.newClient(rt.loadKubeConfig({ kubeconfig }));
const informer = new rt.SharedIndexInformer(rt.newListWatch(client, res, { namespace }), {});
const ac = new AbortController();
const running = informer.run(ac.signal);
await new Promise((resolve) => {
  const poll = () => (informer.hasSynced() ? resolve() : setTimeout(poll, 1));
  poll();
});
globalThis.gc();
globalThis.gc();
const objects = informer.getStore().listKeys().length;
console.log(JSON.stringify({ objects, heapBytes: process.memoryUsage().heapUsed }));
// Held until the parent has read the RSS and closes stdin.
process.stdin.resume();
process.stdin.on('end', () => {
  ac.abort();
  void running.then(() => {
    client.close();
    process.exit(0);
  });
});
