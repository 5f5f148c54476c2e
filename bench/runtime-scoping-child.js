// Our peer of bench/go/scoping: a Manager whose controller reconciles ConfigMaps and owns Secrets, the Secrets cached
// whole (full), by metadata only (metadata), or only those matching a label selector (selected):
//   node --expose-gc bench/runtime-scoping-child.js <kubeconfig> <namespace> <mode> <selector>
// Prints {"type":"synced","heapBytes","rssBytes","secrets"} after a GC once the cache has synced; stops on "stop".
import { createInterface } from 'node:readline';
import { importRuntime } from './runtime-lib.js';

const [kubeconfig, namespace, mode, selector] = process.argv.slice(2);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const mgr = new rt.Manager({
  kubeConfig: rt.loadKubeConfig({ kubeconfig }),
  cache: {
    defaultNamespaces: [namespace],
    ...(mode === 'selected' ? { byObject: [{ resource: rt.Secrets, labelSelector: selector }] } : {}),
  },
});
rt.newControllerManagedBy(mgr)
  .for(rt.ConfigMaps)
  .owns(rt.Secrets, { onlyMetadata: mode === 'metadata' })
  .complete({ reconcile: async () => ({}) });
const ac = new AbortController();
const done = mgr.start(ac.signal);
await mgr.elected();
// Counted through a read (a deep copy, as controller-runtime's List is) in a function of its own, so that its frame,
// and the copies a suspended frame's registers could still hold, are gone before the measurement.
async function countSecrets() {
  const list =
    mode === 'metadata' ? await mgr.getClient().listMetadata(rt.Secrets) : await mgr.getClient().list(rt.Secrets);
  return list.items.length;
}
const secrets = await countSecrets();
await new Promise((resolve) => setImmediate(resolve));
globalThis.gc();
const m = process.memoryUsage();
process.stdout.write(`${JSON.stringify({ type: 'synced', heapBytes: m.heapUsed, rssBytes: m.rss, secrets })}\n`);
createInterface({ input: process.stdin })
  .on('line', (l) => l.trim() === 'stop' && ac.abort())
  .on('close', () => ac.abort());
await done;
process.exit(0);
