// The reconcile peer of bench/go/reconcile, run by bench/runtime-reconcile-child.js (the runtime loaded from its
// build, unbundled) and by bench/runtime-reconcile-bundled.js (bundled with the runtime, as a scaffolded image holds
// its manager): a Manager with one controller for Things in one namespace, driven by bench/runtime-reconcile.js and
// bench/runtime-memory.js over the same line protocol (see bench/go/reconcile/main.go). Arguments (process.argv):
//   <kubeconfig> <namespace> <token> <expect> <workers> [deployed | <parts>]
// "deployed" runs the manager as a scaffolded project's config/default deploys it: metrics served over HTTPS with
// authentication and authorization (a self-signed certificate), health probes, and leader election. <parts> turns on
// some of that, comma-separated: probes, leader, metrics (plain HTTP), secure-metrics (HTTPS with authn/authz); "none"
// is none, and "unstarted" makes the manager and its controller without starting them (bench/idle-modules.js
// measures each).
// Reconciler: read the Thing through the manager's (cached) client; if its bench.kubescaffold.dev/sent annotation
// (microseconds since the epoch) is new, record now - sent as an event-to-reconcile latency; then, unless status
// already holds {token, observedGeneration, stamp}, merge-patch status to it.
import { createInterface } from 'node:readline';
import { getHeapCodeStatistics, writeHeapSnapshot } from 'node:v8';
import { SENT_ANNOTATION, THING } from './runtime-thing.js';

/**
 * Runs the peer until told to stop, then exits the process. loadRuntime() resolves to the runtime's entry point
 * merged with its rest subpath; it is called once, after the start time is taken.
 */
export async function runReconcilePeer(loadRuntime) {
  const [kubeconfig, namespace, token, expectArg, workersArg, mode] = process.argv.slice(2);
  const expect = Number(expectArg);
  const workers = Number(workersArg ?? 1);
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

  const nowUs = () => (performance.timeOrigin + performance.now()) * 1000;
  const emit = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);

  const startedAt = performance.now();
  const startUs = nowUs();
  const rt = await loadRuntime();
  // As a scaffolded cmd/main.ts does: stack traces mapped to the sources, the maps read when a trace is first printed.
  rt.enableSourceMaps?.();
  rt.configureLog({ level: 'error' });
  const Things = rt.defineResource(THING);
  const kc = rt.loadKubeConfig({ kubeconfig });

  const parts = new Set(mode === 'deployed' ? ['secure-metrics', 'probes', 'leader'] : (mode ?? '').split(','));
  const deployed = {
    ...(parts.has('metrics') || parts.has('secure-metrics')
      ? { metrics: { bindAddress: ':0', secureServing: parts.has('secure-metrics') } }
      : {}),
    ...(parts.has('probes') ? { healthProbe: { bindAddress: ':0' } } : {}),
    ...(parts.has('leader') ? { leaderElection: { enabled: true, id: `lease-${token}`, namespace } } : {}),
  };
  const mgr = new rt.Manager({ kubeConfig: kc, cache: { defaultNamespaces: [namespace] }, ...deployed });
  if (parts.has('probes')) {
    mgr.addHealthzCheck('healthz', rt.ping);
    mgr.addReadyzCheck('readyz', rt.ping);
  }
  const client = mgr.getClient();

  const lastStamp = new Map();
  let samples = [];
  let stamps = [];
  let patched = expect > 0 ? new Set() : undefined; // undefined once the throughput phase is over
  let firstAt;
  let lastAt;
  let reconciles = 0;
  let patches = 0;
  let errors = 0;

  const reconciler = {
    async reconcile(req) {
      if (++reconciles === 1) emit({ type: 'first', sinceStartMs: performance.now() - startedAt });
      lastAt = performance.now();
      const key = `${req.namespace}/${req.name}`;
      let t;
      try {
        t = await client.get(Things, req);
      } catch (e) {
        if (rt.isNotFound(e)) {
          lastStamp.delete(key);
          return {};
        }
        errors++;
        throw e;
      }
      const seenUs = nowUs();
      firstAt ??= performance.now();
      const stamp = t.metadata.annotations?.[SENT_ANNOTATION] ?? '';
      if (stamp !== '' && lastStamp.get(key) !== stamp) {
        lastStamp.set(key, stamp);
        // Stamps from before this process started belong to an earlier run.
        const us = Number(stamp);
        if (us > startUs) {
          samples.push((seenUs - us) / 1000);
          stamps.push(stamp);
        }
      }
      const s = t.status;
      if (s?.token === token && s.observedGeneration === t.metadata.generation && (s.stamp ?? '') === stamp) return {};
      try {
        await client
          .status()
          .patch(
            Things,
            req,
            { status: { token, observedGeneration: t.metadata.generation, stamp, phase: 'Ready' } },
            { type: 'merge' },
          );
      } catch (e) {
        if (rt.isNotFound(e)) return {};
        errors++;
        throw e;
      }
      patches++;
      if (patched) {
        patched.add(key);
        if (patched.size === expect) {
          const now = performance.now();
          emit({
            type: 'throughput',
            objects: expect,
            firstToLastMs: now - firstAt,
            startToLastMs: now - startedAt,
            reconciles,
            patches,
            errors,
          });
          patched = undefined;
        }
      }
      return {};
    },
  };

  rt.newControllerManagedBy(mgr)
    .for(Things)
    .named('thing')
    .withOptions({ maxConcurrentReconciles: workers })
    .complete(reconciler);

  const ac = new AbortController();
  createInterface({ input: process.stdin })
    .on('line', (line) => {
      switch (line.trim()) {
        case 'latency':
          emit({ type: 'latency', samples, stamps, reconciles, errors });
          samples = [];
          stamps = [];
          break;
        case 'status':
          emit({
            type: 'status',
            reconciles,
            patches,
            errors,
            firstToLastReconcileMs: firstAt === undefined ? 0 : lastAt - firstAt,
            cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
          });
          break;
        case 'heap': {
          globalThis.gc();
          const m = process.memoryUsage();
          const code = getHeapCodeStatistics();
          emit({
            type: 'heap',
            heapBytes: m.heapUsed,
            rssBytes: m.rss,
            heapTotalBytes: m.heapTotal,
            externalBytes: m.external,
            bytecodeBytes: code.bytecode_and_metadata_size,
            codeBytes: code.code_and_metadata_size,
            scriptSourceBytes: code.external_script_source_size,
            reconciles,
          });
          break;
        }
        case 'stop':
          ac.abort();
          break;
        default:
          // "snapshot <file>": a V8 heap snapshot for bench/runtime-heapdiff.js.
          if (line.startsWith('snapshot ')) {
            globalThis.gc();
            emit({ type: 'snapshot', path: writeHeapSnapshot(line.slice('snapshot '.length).trim()) });
          }
      }
    })
    .on('close', () => ac.abort());

  // "unstarted": the manager and its controller are made but not started (what loading and setting up cost).
  if (parts.has('unstarted')) await new Promise((resolve) => ac.signal.addEventListener('abort', resolve));
  else await mgr.start(ac.signal);
  emit({ type: 'stopped', reconciles, patches, errors });
  process.exit(0);
}
