#!/usr/bin/env node
// A V8 startup snapshot of the bundled manager (node --build-snapshot, Node 22), against the bundle the scaffolded
// image runs: idle memory and start → first reconcile. The peer is bench/runtime-memory.js's (the reconcile peer of
// bench/runtime-reconcile-peer.js, run as config/default deploys a manager: secure metrics, probes, leader election),
// with the node flags of the scaffolded Dockerfile's ENTRYPOINT and manager.yaml's NODE_OPTIONS, on CHILD_NODE
// (default this Node; the image runs Node 22), against one control plane (envtest). Peers:
// - esm: bench/runtime-reconcile-bundled.js bundled by the scaffolded hack/bundle.js, unchanged (what the image runs);
// - cjs: bench/manager-snapshot-entry.js bundled with the same esbuild options but as one CommonJS file (a snapshot's
//   entry must be one CommonJS script): the format alone, against esm;
// - cjs-lazy: the same, with every Node built-in the bundle imports (and every process.getBuiltinModule) replaced by
//   a proxy that loads the built-in on first use. A snapshot needs this: node:https (through node:http's HTTPParser)
//   cannot be in one (V8: "global handle not serialized"), and node:child_process, perf_hooks, readline, async_hooks
//   and module are not verified to work in one. Against cjs: what deferring the built-ins gives without a snapshot;
// - snapshot: cjs-lazy built into a snapshot blob (`node --snapshot-blob manager.blob --build-snapshot manager.js`,
//   with the same flags) and run with `node --snapshot-blob manager.blob`. At snapshot time the bundle only loads the
//   runtime; the peer starts in the deserialized main function (v8.startupSnapshot.setDeserializeMainFunction), where
//   it reads process.argv and process.env and opens its sockets and timers. A snapshot of cjs itself is attempted
//   first and its failure reported.
// 1. Start → first reconcile: a namespace holding one Thing, RUNS (default 5) starts of each peer, alternating, timed
//    from spawn to the peer's first reconcile (median, best). Timings on a loaded machine are only indicative.
// 2. Idle: each peer started on an empty namespace, IDLE_MS (default 10000) later: RSS, RssAnon, RssFile, peak, and V8's
//    heap in use, bytecode and code after a GC; medians of IDLE_RUNS (default 3), alternating.
// - esm-getbuiltin (only when named in PEERS): esm with every import of a built-in turned into a
//   process.getBuiltinModule call where it stands, as src/runtime/internal/builtins.ts takes node:http: what the
//   lazy exports that an ES module import of a built-in evaluates (node:fs's promises and streams, node:crypto's
//   webcrypto) cost a running manager.
// BASELINE_BUNDLE=<dir> adds a peer "baseline": a bundle/ directory kept from an earlier build (bench/out/bundled-peer/
// bundle, copied), run as esm is, for an A/B of two runtime builds in one run, alternating.
// PEERS (default esm,cjs,cjs-lazy,snapshot) picks the peers. LAZY_TRACE=1 has the lazy peers print each built-in as it
// is first loaded, and from where (reading a stack trace loads the bundle's source map, and with it node:module,
// node:url and node:fs: those three are the trace's own).
// Usage: npm run build && CHILD_NODE=/path/to/node22 node bench/manager-snapshot.js
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Peer,
  THING,
  bundleOptions,
  bundledPeer,
  childNode,
  createThings,
  deployedManagerResources,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  nodeModulesFreeDir,
  percentile,
  printTable,
  ratio,
  startControlPlane,
} from './runtime-lib.js';

const RUNS = Number(process.env.RUNS ?? 5);
const IDLE_RUNS = Number(process.env.IDLE_RUNS ?? 3);
const IDLE_MS = Number(process.env.IDLE_MS ?? 10_000);
const PEERS = (process.env.PEERS ?? 'esm,cjs,cjs-lazy,snapshot').split(',').map((s) => s.trim());
const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, 'out', 'manager-snapshot');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const shipped = await deployedManagerResources();
const nodeFlags = shipped.nodeOptions;
console.log(machineLine());
console.log(
  `peers run on ${childNode()} (${execFileSync(childNode(), ['--version'], { encoding: 'utf8' }).trim()}) with ${nodeFlags.join(' ')}`,
);

// The export names of every built-in on the child's Node: a lazy built-in's proxy lists them without loading it
// (esbuild's CommonJS interop copies a module's own property names).
const builtinNames = JSON.parse(
  execFileSync(
    childNode(),
    [
      '--no-deprecation',
      '--no-warnings',
      '-p',
      `JSON.stringify(Object.fromEntries(require('node:module').builtinModules.filter((m) => !m.startsWith('_')).map((m) => { try { return ['node:' + m, Object.getOwnPropertyNames(require(m))]; } catch { return ['node:' + m, []]; } })))`,
    ],
    { encoding: 'utf8' },
  ),
);

// Defines globalThis.__lazyBuiltin, and makes process.getBuiltinModule return the same proxies.
const lazyBanner = `globalThis.__lazyBuiltin ??= (() => {
  const real = process.getBuiltinModule;
  const lazy = (id, names = []) => {
    let mod;
    const load = () => {
      if (!mod && process.env.LAZY_TRACE) console.error('lazy built-in loaded:', id, new Error().stack.split(String.fromCharCode(10))[3].trim());
      return (mod ??= real(id));
    };
    return new Proxy({}, {
      get: (_, k) => load()[k],
      has: (_, k) => k in load(),
      set: (_, k, v) => ((load()[k] = v), true),
      ownKeys: () => names,
    });
  };
  process.getBuiltinModule = (id) => lazy(id.startsWith('node:') ? id : 'node:' + id);
  return lazy;
})();`;

const removers = [];

const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/0-9]+$/ }, (args) => {
      const id = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      // node:v8 stays: the entry asks it whether a snapshot is being built.
      if (!isBuiltin(id) || id === 'node:v8') return undefined;
      return { path: id, namespace: 'lazy-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = globalThis.__lazyBuiltin(${JSON.stringify(args.path)}, ${JSON.stringify(builtinNames[args.path] ?? [])});`,
      loader: 'js',
    }));
  },
};

async function cjsBundle(name, lazy) {
  const { build } = await import('esbuild');
  const { banner: _esmBanner, splitting: _s, chunkNames: _c, ...options } = bundleOptions();
  const out = join(outDir, name);
  await build({
    ...options,
    entryPoints: { manager: join(here, 'manager-snapshot-entry.js') },
    outdir: out,
    format: 'cjs',
    logLevel: 'error',
    ...(lazy ? { plugins: [lazyBuiltins], banner: { js: lazyBanner } } : {}),
  });
  const dir = nodeModulesFreeDir();
  removers.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-manager', private: true, type: 'commonjs' })}\n`,
  );
  cpSync(out, dir, { recursive: true });
  return { dir, script: join(dir, 'manager.js'), bytes: statSync(join(dir, 'manager.js')).size };
}

// Every built-in the bundle imports taken through process.getBuiltinModule where it is imported (not on first use):
// an ES module import of a built-in evaluates all of its lazy exports (node:fs's promises and streams, node:crypto's
// webcrypto, node:net's BlockList), getBuiltinModule none.
const builtinsViaGetBuiltinModule = {
  name: 'builtins-via-getBuiltinModule',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/0-9]+$/ }, (args) => {
      const id = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return isBuiltin(id) ? { path: id, namespace: 'getbuiltin' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'getbuiltin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

async function esmGetBuiltinBundle() {
  const { build } = await import('esbuild');
  const out = join(outDir, 'esm-getbuiltin');
  rmSync(out, { recursive: true, force: true });
  await build({
    ...bundleOptions(),
    entryPoints: { manager: join(here, 'runtime-reconcile-bundled.js') },
    outdir: out,
    logLevel: 'error',
    plugins: [builtinsViaGetBuiltinModule],
  });
  const dir = nodeModulesFreeDir();
  removers.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-manager', private: true, type: 'module' })}\n`,
  );
  cpSync(out, dir, { recursive: true });
  return { dir, script: join(dir, 'manager.js'), bytes: statSync(join(dir, 'manager.js')).size };
}

function buildSnapshot(bundle) {
  const blob = join(bundle.dir, 'manager.blob');
  const t = performance.now();
  const r = spawnSync(childNode(), [...nodeFlags, '--snapshot-blob', blob, '--build-snapshot', bundle.script], {
    cwd: bundle.dir,
    encoding: 'utf8',
  });
  const ms = performance.now() - t;
  if (r.status !== 0) {
    const why = `${r.stderr}`.split('\n').find((l) => /not serialized|Error|failed/.test(l)) ?? `exit ${r.status}`;
    return { ok: false, why: why.trim(), warnings: warnings(r.stderr) };
  }
  return { ok: true, blob, blobBytes: statSync(blob).size, ms, warnings: warnings(r.stderr) };
}

const warnings = (stderr) =>
  [...`${stderr}`.matchAll(/built-in module "([^"]+)" works in user snapshot/g)].map((m) => m[1]).join(', ');

const peers = {};
if (PEERS.includes('esm')) {
  const b = bundledPeer();
  removers.push(b.remove);
  peers.esm = {
    label: 'esm (hack/bundle.js, shipped)',
    script: b.script,
    dir: b.dir,
    flags: [],
    bytes: statSync(b.script).size,
  };
}
if (process.env.BASELINE_BUNDLE) {
  const dir = nodeModulesFreeDir();
  removers.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-manager', private: true, type: 'module' })}\n`,
  );
  cpSync(process.env.BASELINE_BUNDLE, dir, { recursive: true });
  const script = join(dir, 'manager.js');
  peers.baseline = {
    label: `baseline (${process.env.BASELINE_BUNDLE})`,
    script,
    dir,
    flags: [],
    bytes: statSync(script).size,
  };
}
if (PEERS.includes('esm-getbuiltin')) {
  const b = await esmGetBuiltinBundle();
  peers['esm-getbuiltin'] = { label: 'esm, built-ins by getBuiltinModule', ...b, flags: [] };
}
if (PEERS.includes('cjs')) {
  const b = await cjsBundle('cjs', false);
  peers.cjs = { label: 'cjs (one CommonJS file)', ...b, flags: [] };
  const s = buildSnapshot(b);
  console.log(
    `snapshot of cjs: ${s.ok ? `built (${(s.blobBytes / 1048576).toFixed(1)} MiB)` : `fails: ${s.why}`}` +
      (s.warnings ? `; Node warns that these built-ins are not verified in a snapshot: ${s.warnings}` : ''),
  );
}
if (PEERS.includes('cjs-lazy') || PEERS.includes('snapshot')) {
  const b = await cjsBundle('cjs-lazy', true);
  if (PEERS.includes('cjs-lazy')) peers['cjs-lazy'] = { label: 'cjs, built-ins loaded on first use', ...b, flags: [] };
  if (PEERS.includes('snapshot')) {
    const s = buildSnapshot(b);
    if (!s.ok) throw new Error(`the snapshot of cjs-lazy could not be built: ${s.why}`);
    console.log(
      `snapshot of cjs-lazy: ${(s.blobBytes / 1048576).toFixed(1)} MiB blob, built in ${s.ms.toFixed(0)} ms` +
        (s.warnings ? `; not verified in a snapshot: ${s.warnings}` : ''),
    );
    // argv[1] is the script's path when a script runs; a deserialized main gets none, so the path is passed too.
    peers.snapshot = {
      label: 'snapshot of cjs-lazy (--snapshot-blob)',
      ...b,
      flags: ['--snapshot-blob', s.blob],
      blobBytes: s.blobBytes,
    };
  }
}
for (const [name, p] of Object.entries(peers)) {
  console.log(
    `${name}: ${p.script}, ${(p.bytes / 1024).toFixed(0)} KiB of manager.js${p.blobBytes ? ` + ${(p.blobBytes / 1024).toFixed(0)} KiB blob` : ''}`,
  );
}

const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);
let n = 0;
const names = Object.keys(peers);

function spawnPeer(name, namespace) {
  const p = peers[name];
  return new Peer(name, {
    kubeconfig: cp.kubeconfigPath,
    namespace,
    token: `snap-${name}-${++n}-${Date.now()}`,
    expect: 0,
    deployed: true,
    nodeFlags: [...nodeFlags, ...p.flags],
    script: p.script,
    cwd: p.dir,
  });
}

async function namespaceWith(things) {
  const ns = `snap-${things}-${Date.now()}`;
  await client.create(rt.Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (things > 0) await createThings(client, rt.defineResource(THING), ns, 0, things);
  return ns;
}

try {
  const startNs = await namespaceWith(1);
  const starts = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const name of r % 2 ? [...names].reverse() : names) {
      const peer = spawnPeer(name, startNs);
      const first = await peer.next('first', 120_000);
      starts[name].push(first.receivedAt - peer.spawnedAt);
      await peer.stop();
    }
  }
  const idleNs = await namespaceWith(0);
  const idle = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < IDLE_RUNS; r++) {
    for (const name of r % 2 ? [...names].reverse() : names) {
      const peer = spawnPeer(name, idleNs);
      await sleep(IDLE_MS);
      idle[name].push(await peer.memory());
      await peer.stop();
    }
  }
  const med = (name, k) =>
    percentile(
      idle[name].map((s) => s[k]),
      50,
    );
  const startMed = (name) => percentile(starts[name], 50);
  console.log(
    `\nIdle (config/default: secure metrics, probes, leader election; ${IDLE_MS} ms after start, after a GC; MiB, medians ` +
      `of ${IDLE_RUNS}) and start → first reconcile (ms, ${RUNS} runs; timings on a loaded machine are indicative; ${loadLine()})`,
  );
  printTable(
    ['peer', 'RSS', 'RssAnon', 'RssFile', 'peak', 'heap', 'bytecode', 'code', 'start median', 'best', '÷ esm'],
    names.map((name) => [
      peers[name].label,
      mib(med(name, 'rssBytes')),
      mib(med(name, 'anonBytes')),
      mib(med(name, 'fileBytes')),
      mib(med(name, 'peakBytes')),
      mib(med(name, 'heapBytes')),
      mib(med(name, 'bytecodeBytes')),
      mib(med(name, 'codeBytes')),
      startMed(name).toFixed(0),
      Math.min(...starts[name]).toFixed(0),
      peers.esm ? ratio(startMed(name), startMed('esm')) : '',
    ]),
  );
} finally {
  client.close();
  await cp.stop();
  for (const r of removers) r();
}
