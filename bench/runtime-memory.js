#!/usr/bin/env node
// Memory and start-up time of our Manager, unbundled and bundled, against a controller-runtime v0.25 manager, all run
// as a scaffolded project's config/default deploys them (metrics over HTTPS with authentication and authorization and
// a self-signed certificate, health probes, leader election), one peer at a time against one control plane (envtest).
// All run the reconciler of bench/runtime-reconcile.js (read a Thing from the cache, merge-patch its status). The peers:
// - ours: bench/runtime-reconcile-child.js, loading the runtime from its build (src/runtime/dist, or
//   KUBESCAFFOLD_DIST), as an image holding node_modules runs the manager;
// - bundled: bench/runtime-reconcile-bundled.js bundled by the scaffolded hack/bundle.js (templates/init/hack/
//   bundle.js.hbs, unchanged: esbuild, into bench/out/bundled-peer/bundle/), then copied with a package.json into a
//   fresh temp directory with no node_modules in or above it and run from there, as the image's /app runs it. It
//   bundles the runtime package this checkout resolves (node_modules/@kubescaffold/runtime: src/runtime/dist);
//   KUBESCAFFOLD_DIST does not apply to it;
// - controller-runtime: bench/go/reconcile, with the same flags.
// Our peers run with the node flags of the scaffolded Dockerfile's ENTRYPOINT and config/manager/manager.yaml's
// NODE_OPTIONS (resolved for its memory limit the way the kubelet resolves the Downward API), so what is measured is
// what users deploy.
//
// 1. Start → first reconcile: a namespace holding one Thing; RUNS (default 5) starts of each peer, alternating; the
//    time from spawning the process to its first reconcile. Median and best.
// 2. Idle: a peer started on an empty namespace; IDLE_MS (default 10000) later: RSS and live heap after a GC (V8
//    heapUsed; Go HeapAlloc), RSS split into the process's own pages and mapped files' (RssAnon, RssFile: the node
//    binary's code is most of the latter), and peak RSS (VmHWM) since start. With SOURCE_MAPS=1 (the default; 0 skips) the
//    bundled peer is also measured idle with --enable-source-maps, against the shipped lazy enableSourceMaps().
// 3. For each of SIZES (default 1000,10000): a namespace holding that many Things; a peer started with all of them
//    to reconcile (one status patch each); SETTLE_MS (default 5000) after the last patch: RSS, heap and peak RSS.
// PEERS (default ours,bundled,controller-runtime) picks the peers; ratios are against controller-runtime.
// SEMI_MB replaces manager.yaml's --max-semi-space-size for ours (the young generation's size).
// RSS and heap over a long churn run: bench/runtime-reconcile.js (DURATION).
// Usage: npm run build && node bench/runtime-memory.js
//        CHILD_NODE=/path/to/node22 node bench/runtime-memory.js   (the scaffolded image runs Node 22)
//        CHILD_NODE=/path/to/node22 RUNS=3 SIZES=1000 node bench/runtime-memory.js
import {
  Peer,
  THING,
  bundledPeer,
  createThings,
  deployedManagerResources,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  percentile,
  printTable,
  ratio,
  startControlPlane,
} from './runtime-lib.js';

const SIZES = (process.env.SIZES ?? '1000,10000')
  .split(',')
  .filter((x) => x.trim() !== '' && x.trim() !== '0')
  .map(Number);
const RUNS = Number(process.env.RUNS ?? 5);
const IDLE_MS = Number(process.env.IDLE_MS ?? 10_000);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 5_000);
const PEERS = (process.env.PEERS ?? 'ours,bundled,controller-runtime')
  .split(',')
  .map((x) => x.trim())
  .filter(Boolean);
const SOURCE_MAPS = process.env.SOURCE_MAPS !== '0' && PEERS.includes('bundled');
const CR = 'controller-runtime';
const LABELS = {
  ours: 'ours, unbundled',
  bundled: 'ours, bundled',
  [CR]: CR,
  'bundled+maps': 'ours, bundled, --enable-source-maps',
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const shipped = await deployedManagerResources();
// SEMI_MB replaces manager.yaml's --max-semi-space-size for ours, to measure what the young generation's size costs.
const SEMI_MB = process.env.SEMI_MB;
const nodeFlags =
  SEMI_MB === undefined
    ? shipped.nodeOptions
    : [
        ...shipped.nodeOptions.filter((f) => !f.startsWith('--max-semi-space-size=')),
        `--max-semi-space-size=${SEMI_MB}`,
      ];
console.log(machineLine());
console.log(
  `scaffolded manager.yaml: requests ${mib(shipped.requestBytes)} MiB, limit ${mib(shipped.limitBytes)} MiB; ` +
    `our peers run with the node flags of the scaffolded Dockerfile's ENTRYPOINT and manager.yaml's NODE_OPTIONS: ${nodeFlags.join(' ') || '(none)'}`,
);

const bundle = PEERS.includes('bundled') ? bundledPeer() : undefined;
if (bundle) {
  console.log(
    `bundled peer: ${bundle.script}, ${bundle.files} files, ${(bundle.bytes / 1024).toFixed(0)} KiB with package.json (no node_modules in or above ${bundle.dir})`,
  );
  if (process.env.KUBESCAFFOLD_DIST)
    console.log(
      "note: KUBESCAFFOLD_DIST applies to the unbundled peer only; the bundle holds this checkout's runtime package",
    );
}

const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);
const Things = rt.defineResource(THING);
const Namespaces = rt.Namespaces;
let nsCount = 0;

async function namespaceWith(n, prefix) {
  const ns = `mem-${prefix}-${++nsCount}`;
  await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (n > 0) await createThings(client, Things, ns, 0, n);
  return ns;
}

// `bundled+maps` is the bundled peer with --enable-source-maps added.
function spawnPeer(name, namespace, expect) {
  const bundled = name.startsWith('bundled');
  return new Peer(bundled ? 'bundled' : name, {
    kubeconfig: cp.kubeconfigPath,
    namespace,
    token: `mem-${name.replace('+', '-')}-${Date.now()}`,
    expect,
    deployed: true,
    nodeFlags: name === 'bundled+maps' ? [...nodeFlags, '--enable-source-maps'] : nodeFlags,
    ...(bundled ? { script: bundle.script, cwd: bundle.dir } : {}),
  });
}

async function sample(peer) {
  const h = await peer.ask('heap');
  return {
    heap: h.heapBytes,
    rss: h.rssBytes,
    peak: peer.peakRssBytes(),
    anon: peer.statusBytes('RssAnon'),
    file: peer.statusBytes('RssFile'),
  };
}

try {
  // 1. Start → first reconcile.
  const startNs = await namespaceWith(1, 'start');
  const starts = Object.fromEntries(PEERS.map((name) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const name of PEERS) {
      const peer = spawnPeer(name, startNs, 0);
      const first = await peer.next('first', 120_000);
      starts[name].push(first.receivedAt - peer.spawnedAt);
      await peer.stop();
    }
  }
  console.log(
    `\nStart → first reconcile (process spawn to its first reconcile; ${RUNS} runs each, alternating; ${loadLine()})`,
  );
  const med = (name) => percentile(starts[name] ?? [], 50);
  printTable(
    ['peer', 'median ms', 'best ms', '÷ c-r (median)', '÷ unbundled (median)'],
    PEERS.map((name) => [
      LABELS[name] ?? name,
      med(name).toFixed(0),
      Math.min(...starts[name]).toFixed(0),
      name === CR ? '' : ratio(med(name), med(CR)),
      name === 'bundled' ? ratio(med(name), med('ours')) : '',
    ]),
  );

  // 2. Idle, and 3. at each size.
  const results = {};
  const idlePeers = [...PEERS, ...(SOURCE_MAPS ? ['bundled+maps'] : [])];
  const idleNs = await namespaceWith(0, 'idle');
  for (const name of idlePeers) {
    const peer = spawnPeer(name, idleNs, 0);
    await sleep(IDLE_MS);
    results[`idle/${name}`] = await sample(peer);
    await peer.stop();
  }
  for (const n of SIZES) {
    const ns = await namespaceWith(n, String(n));
    for (const name of PEERS) {
      const peer = spawnPeer(name, ns, n);
      await peer.next('throughput');
      await sleep(SETTLE_MS);
      results[`${n}/${name}`] = await sample(peer);
      await peer.stop();
    }
  }
  const rows = [];
  for (const phase of ['idle', ...SIZES.map(String)]) {
    const g = results[`${phase}/${CR}`];
    for (const name of phase === 'idle' ? idlePeers : PEERS) {
      const o = results[`${phase}/${name}`];
      rows.push([
        phase === 'idle' ? 'idle, no objects' : `${Number(phase).toLocaleString('en')} objects`,
        LABELS[name] ?? name,
        mib(o.rss),
        name === CR || !g ? '' : ratio(o.rss, g.rss),
        mib(o.peak),
        name === CR || !g ? '' : ratio(o.peak, g.peak),
        mib(o.heap),
        name === CR || !g ? '' : ratio(o.heap, g.heap),
        mib(o.anon),
        mib(o.file),
      ]);
    }
  }
  console.log(
    `\nMemory (MiB; RSS and heap after a GC; peak = VmHWM since start; ratios ÷ controller-runtime; RSS = RssAnon, the ` +
      `process's own pages, + RssFile, pages of mapped files such as the node binary, + RssShmem; ${loadLine()})`,
  );
  printTable(['phase', 'peer', 'RSS', 'ratio', 'peak RSS', 'ratio', 'heap', 'ratio', 'RssAnon', 'RssFile'], rows);

  const goals = [];
  const ok = (cond) => (cond ? 'met' : 'not met');
  const ourPeers = PEERS.filter((name) => name !== CR);
  for (const name of ourPeers) {
    const idle = results[`idle/${name}`];
    goals.push(`${LABELS[name]}: idle RSS ≤ 50 MiB: ${mib(idle.rss)} MiB (${ok(idle.rss <= 50 * 1048576)})`);
  }
  if (PEERS.includes('bundled')) {
    const vs = [PEERS.includes('ours') && ['unbundled', 'ours'], PEERS.includes(CR) && [CR, CR]].filter(Boolean);
    goals.push(
      `bundled start → first reconcile no slower than ${vs.map(([label]) => label).join(' and ')}: ` +
        vs
          .map(
            ([label, name]) =>
              `${ratio(med('bundled'), med(name))} ${label}'s median (${ok(med('bundled') <= med(name))})`,
          )
          .join(', '),
    );
  }
  if (PEERS.includes(CR)) {
    for (const name of ourPeers) {
      goals.push(
        `${LABELS[name]}: RSS ≤ 1.5× controller-runtime at ${SIZES.join(' and ')} objects: ` +
          SIZES.map((n) => ratio(results[`${n}/${name}`].rss, results[`${n}/${CR}`].rss)).join(', '),
      );
    }
  }
  if (SIZES.length) {
    goals.push(
      `peak at ${SIZES[0]} objects within the manifest's limit (${mib(shipped.limitBytes)} MiB): ` +
        ourPeers.map((name) => `${LABELS[name]} ${mib(results[`${SIZES[0]}/${name}`].peak)} MiB`).join(', '),
    );
  }
  console.log(`\nGoals:\n- ${goals.join('\n- ')}`);
  if (SOURCE_MAPS) {
    const a = results['idle/bundled'];
    const b = results['idle/bundled+maps'];
    console.log(
      `\n--enable-source-maps on the bundled peer, idle: RSS ${mib(a.rss)} → ${mib(b.rss)} MiB (${b.rss - a.rss >= 0 ? '+' : ''}${mib(b.rss - a.rss)}), ` +
        `heap ${mib(a.heap)} → ${mib(b.heap)} MiB (${b.heap - a.heap >= 0 ? '+' : ''}${mib(b.heap - a.heap)}), peak ${mib(a.peak)} → ${mib(b.peak)} MiB`,
    );
  }
} finally {
  client.close();
  await cp.stop();
  bundle?.remove();
}
