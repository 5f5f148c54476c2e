// Our peer of bench/go/multicluster (its header has the line protocol both implement), driven by bench/multicluster.js:
// a MultiClusterManager whose KubeconfigSecretProvider engages one cluster per labelled Secret in <secret-namespace>
// of the kubeconfig's cluster, and one controller for ConfigMaps in <namespace> of every engaged cluster (each
// cluster caches that namespace only), whose reconciler reads the ConfigMap from its cluster's cache and writes
// nothing. The runtime is loaded from its build (src/runtime/dist, or KUBESCAFFOLD_DIST).
//   node --expose-gc bench/multicluster-child.js <kubeconfig> <secret-namespace> <namespace> [expect]
import { createInterface } from 'node:readline';
import { importRuntime } from './runtime-dist.js';

const [kubeconfigFile, secretNamespace, namespace, expectArg] = process.argv.slice(2);
const expect = Number(expectArg ?? 0);
const rt = await importRuntime('rest', 'multicluster');
rt.configureLog({ level: 'error' });

const emit = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const nowMs = () => performance.timeOrigin + performance.now();

const mgr = new rt.MultiClusterManager(
  new rt.Manager({
    kubeConfig: rt.loadKubeConfig({ kubeconfig: kubeconfigFile }),
    metrics: { bindAddress: '0' },
    healthProbe: { bindAddress: '0' },
  }),
  {
    provider: new rt.KubeconfigSecretProvider({
      namespace: secretNamespace,
      clusterOptions: { cache: { defaultNamespaces: [namespace] } },
    }),
  },
);
const seen = new Set();
const firstIn = new Set();
let first;
let reported = false;
rt.newMultiClusterControllerManagedBy(mgr)
  .for(rt.ConfigMaps)
  .named('bench-multicluster')
  .complete({
    async reconcile(req) {
      try {
        await mgr.getCluster(req.cluster).getClient().get(rt.ConfigMaps, req);
      } catch (err) {
        if (!rt.isNotFound(err)) throw err;
      }
      if (!firstIn.has(req.cluster)) {
        firstIn.add(req.cluster);
        emit({ type: 'first', cluster: req.cluster, at: nowMs() });
      }
      first ??= performance.now();
      seen.add(`${req.cluster}/${req.namespace}/${req.name}`);
      if (expect > 0 && !reported && seen.size >= expect) {
        reported = true;
        emit({ type: 'throughput', reconciles: seen.size, firstToLastMs: performance.now() - first });
      }
      return {};
    },
  });

const ac = new AbortController();
createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line === 'rss') {
      globalThis.gc?.();
      const m = process.memoryUsage();
      emit({ type: 'rss', rssBytes: m.rss, heapBytes: m.heapUsed, clusters: firstIn.size });
    } else if (line === 'stop') ac.abort();
  })
  .on('close', () => ac.abort());
emit({ type: 'started', at: nowMs() });
await mgr.start(ac.signal);
process.exit(0);
