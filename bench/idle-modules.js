#!/usr/bin/env node
// What an idle bundled manager's memory is made of, module by module and then part by part of what it runs: the
// method behind the idle-RSS figures of bench/runtime-memory.js (its bundled peer, bench/runtime-reconcile-bundled.js,
// bundled by the scaffolded hack/bundle.js). Every process runs on CHILD_NODE (default this Node; the scaffolded image
// runs Node 22) with the node flags of the scaffolded Dockerfile's ENTRYPOINT and manager.yaml's NODE_OPTIONS, as
// runtime-memory.js runs its peers, plus --expose-gc.
//
// 1. Load stages, no API server. Each stage is an entry point that imports more of the runtime by package name (as a
//    scaffolded cmd/main.ts does), keeping every export reachable (so esbuild drops nothing the manager's bundle
//    keeps), plus bench/idle-modules-child.js; it is bundled by the scaffolded hack/bundle.js, unchanged, run from a
//    directory with no node_modules, and IDLE_MS (default 10000) later, after full GCs, reports RSS, RssAnon (the
//    process's own pages), RssFile (mapped files' pages: the node binary's code and data), V8's heap in use and
//    committed, V8's bytecode and its compiled code, and how many of Node's own modules are loaded. The stages add, in
//    order: the Node built-ins the manager's bundle imports (read from its import lines); runtime/rest; cache and
//    workqueue; client and controller; clientcmd (kubeconfig, js-yaml); logging and flags; metrics (prom-client, the
//    metrics server, authn/authz) and certs; leader election; the sharding ring and gate; the runtime's index and
//    runtime/manager; the reconcile peer itself (this stage is the module set of runtime-memory.js's bundle);
//    runtime/webhook. Parts without a subpath of their own are imported from the runtime's build (src/runtime/dist)
//    by path. Two more stages add a single package to the built-ins: js-yaml (kubeconfig files), and the prom-client
//    modules the runtime imports. A first row is bare Node running the reporter as a CommonJS script (node -e): what
//    an ES module entry point costs by itself.
// 2. Run stages, against a control plane (envtest): the bundled peer of runtime-memory.js on an empty namespace: its
//    manager and controller made but not started; then started with one controller and more of config/default's
//    manager each time: nothing else; + health probes;
//    + leader election; + metrics over plain HTTP; metrics over HTTPS with authentication and authorization and a
//    self-signed certificate instead (= config/default, runtime-memory.js's idle figure). The same figures, IDLE_MS
//    after the start, from the peer (after a GC) and its /proc/PID/status.
// 3. The manager's bundle by package and directory (esbuild's metafile, with hack/bundle.js's options): bytes in
//    manager.js, which is loaded at start, and in the chunks, loaded only when used.
// RUNS (default 3) of every stage, alternating; figures are medians. STAGES=load,run picks the parts (default both;
// load needs no control plane). RSS figures are sound on a loaded machine; nothing here is timed.
// Usage: npm run build && CHILD_NODE=/path/to/node22 node bench/idle-modules.js
//        CHILD_NODE=/path/to/node22 STAGES=load RUNS=1 node bench/idle-modules.js
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Peer,
  bundleOptions,
  bundledPeer,
  childNode,
  deployedManagerResources,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  percentile,
  printTable,
  startControlPlane,
} from './runtime-lib.js';

const RUNS = Number(process.env.RUNS ?? 3);
const IDLE_MS = Number(process.env.IDLE_MS ?? 10_000);
const PARTS = (process.env.STAGES ?? 'load,run').split(',').map((s) => s.trim());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const here = dirname(fileURLToPath(import.meta.url));
const entries = join(here, 'out', 'idle-modules', 'entries');

const shipped = await deployedManagerResources();
const nodeFlags = shipped.nodeOptions;
const childVersion = (await run(childNode(), ['--version'])).trim();
console.log(machineLine());
console.log(
  `children: node ${childVersion} ${['--expose-gc', ...nodeFlags].join(' ')}; IDLE_MS=${IDLE_MS}, RUNS=${RUNS}`,
);

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], ...opts });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}`))));
  });
}

/** Medians of every numeric field over samples. */
function medians(samples) {
  const out = {};
  for (const k of Object.keys(samples[0])) {
    if (typeof samples[0][k] === 'number')
      out[k] = percentile(
        samples.map((s) => s[k]),
        50,
      );
  }
  return out;
}

const signed = (bytes) => `${bytes >= 0 ? '+' : ''}${mib(bytes)}`;

// The manager's bundle, as runtime-memory.js builds it: its import lines name the built-ins it loads at start.
const peerBundle = bundledPeer();
const peerMain = readFileSync(peerBundle.script, 'utf8');
peerBundle.remove();
const builtins = [...new Set([...peerMain.matchAll(/^import .* from "(node:[^"]+)";$/gm)].map((m) => m[1]))].sort();
// Built-ins taken through process.getBuiltinModule at the top level (not those a function takes when first used).
const gotBuiltins = [
  ...new Set(
    [...peerMain.matchAll(/^(?:var|const|let) [\w$]+ = process\.getBuiltinModule\("(node:[^"]+)"\);$/gm)].map(
      (m) => m[1],
    ),
  ),
];

try {
  if (PARTS.includes('load')) await loadStages();
  if (PARTS.includes('run')) await runStages();
  await bundleBytes();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}

async function loadStages() {
  const rel = (p) => relative(entries, join(here, p));
  // Parts of the runtime that have no subpath of their own are imported from its build by path.
  const dist = (p) => relative(entries, join(here, '..', 'src', 'runtime', 'dist', p));
  const add = [
    ['node', 'bare Node (the reporter only)', []],
    [
      'builtins',
      `+ the ${builtins.length + gotBuiltins.length} Node built-ins the manager's bundle imports`,
      [...builtins, ...gotBuiltins.map((b) => `getBuiltinModule:${b}`)],
    ],
    ['rest', '+ runtime/rest', ['@kubescaffold/runtime/rest']],
    ['cache', '+ runtime/cache, workqueue', ['@kubescaffold/runtime/cache', '@kubescaffold/runtime/workqueue']],
    [
      'controller',
      '+ runtime/client, controller',
      ['@kubescaffold/runtime/client', '@kubescaffold/runtime/controller'],
    ],
    ['clientcmd', '+ runtime/clientcmd (with js-yaml)', ['@kubescaffold/runtime/clientcmd']],
    ['log', '+ logging, flags', [dist('log/index.js'), dist('flag/index.js')]],
    [
      'metrics',
      '+ runtime/metrics (prom-client, server, authn/authz), certs',
      ['@kubescaffold/runtime/metrics', '@kubescaffold/runtime/certs'],
    ],
    ['leader', '+ leader election', [dist('leaderelection/index.js')]],
    ['sharding', '+ the sharding ring and gate', [dist('sharding/ring.js'), dist('sharding/gate.js')]],
    ['manager', '+ runtime (index), runtime/manager', ['@kubescaffold/runtime', '@kubescaffold/runtime/manager']],
    ['peer', "+ the reconcile peer (= runtime-memory.js's bundle)", [rel('runtime-reconcile-peer.js')]],
    ['webhook', '+ runtime/webhook', ['@kubescaffold/runtime/webhook']],
  ];
  // Bare Node as a CommonJS script (node -e, as bench/README.md measured it before), beside the ES module stages.
  const stages = [{ name: 'node-cjs', label: 'bare Node, a CommonJS script (node -e)', specs: [] }];
  let cumulative = [];
  for (const [name, label, specs] of add) {
    cumulative = [...cumulative, ...specs];
    stages.push({ name, label, specs: cumulative, base: stages.at(-1)?.name });
  }
  const builtinSpecs = stages[2].specs;
  stages.push(
    { name: 'js-yaml', label: 'built-ins + js-yaml only', specs: [...builtinSpecs, 'js-yaml'], base: 'builtins' },
    {
      name: 'prom-client',
      label: 'built-ins + the prom-client modules the runtime imports only',
      specs: [
        ...builtinSpecs,
        ...['bucketGenerators', 'counter', 'gauge', 'histogram', 'registry'].map((m) => `prom-client/lib/${m}.js`),
      ],
      base: 'builtins',
    },
  );

  mkdirSync(entries, { recursive: true });
  const reporter = readFileSync(join(here, 'idle-modules-child.js'), 'utf8').replace(/^export /m, '');
  for (const s of stages) {
    if (s.name === 'node-cjs') {
      s.args = ['-e', `${reporter}\nreportIdle([]);\n`];
      s.mainBytes = 0;
      s.samples = [];
      continue;
    }
    const lines = [];
    const keep = [];
    s.specs.forEach((spec, i) => {
      if (spec.startsWith('getBuiltinModule:')) {
        keep.push(`process.getBuiltinModule(${JSON.stringify(spec.slice('getBuiltinModule:'.length))})`);
      } else {
        lines.push(`import * as m${i} from ${JSON.stringify(spec)};`);
        keep.push(`m${i}`);
      }
    });
    lines.push(`import { reportIdle } from ${JSON.stringify(rel('idle-modules-child.js'))};`);
    lines.push(`await reportIdle([${keep.join(', ')}]);`);
    const entry = join(entries, `${s.name}.js`);
    writeFileSync(entry, `${lines.join('\n')}\n`);
    s.bundle = bundledPeer({ entry, name: `idle-modules/${s.name}` });
    s.args = [s.bundle.script];
    s.mainBytes = readFileSync(s.bundle.script).length;
    s.samples = [];
  }
  try {
    for (let r = 0; r < RUNS; r++) {
      for (const s of r % 2 ? [...stages].reverse() : stages) {
        const out = await run(childNode(), ['--expose-gc', ...nodeFlags, ...s.args], {
          cwd: s.bundle?.dir,
          env: { ...process.env, IDLE_MODULES_MS: String(IDLE_MS) },
        });
        s.samples.push(JSON.parse(out.trim().split('\n').at(-1)));
      }
    }
  } finally {
    for (const s of stages) s.bundle?.remove();
  }
  const byName = Object.fromEntries(stages.map((s) => [s.name, { ...s, m: medians(s.samples) }]));
  console.log(
    `\n1. Load stages: idle ${IDLE_MS} ms after start, after full GCs, no API server (MiB; medians of ${RUNS}; ` +
      `Δ against the stage named in "over"; ${loadLine()})`,
  );
  printTable(
    [
      'stage',
      'manager.js KiB',
      'RSS',
      'RssAnon',
      'RssFile',
      'heap',
      'committed',
      'bytecode',
      'code',
      'built-ins',
      'over',
      'Δ RSS',
      'Δ anon',
      'Δ file',
      'Δ heap',
    ],
    stages.map((s) => {
      const m = byName[s.name].m;
      const b = s.base ? byName[s.base].m : undefined;
      return [
        s.label,
        s.bundle ? (s.mainBytes / 1024).toFixed(0) : '',
        mib(m.rssBytes),
        mib(m.anonBytes),
        mib(m.fileBytes),
        mib(m.heapBytes),
        mib(m.heapTotalBytes),
        mib(m.bytecodeBytes),
        mib(m.codeBytes),
        m.builtins,
        s.base ?? '',
        b ? signed(m.rssBytes - b.rssBytes) : '',
        b ? signed(m.anonBytes - b.anonBytes) : '',
        b ? signed(m.fileBytes - b.fileBytes) : '',
        b ? signed(m.heapBytes - b.heapBytes) : '',
      ];
    }),
  );
  console.log(
    `built-ins imported by the manager's bundle: ${[...builtins, ...gotBuiltins.map((b) => `${b} (getBuiltinModule)`)].join(', ')}`,
  );
}

async function runStages() {
  const bundle = bundledPeer();
  const rt = await importRuntime('rest');
  rt.configureLog({ level: 'error' });
  const cp = await startControlPlane();
  const client = rt.newClient(cp.env.kubeConfig);
  const modes = [
    ['unstarted', 'loaded, manager and controller made, not started'],
    ['none', 'manager started, one controller, nothing else'],
    ['probes', '+ health probes'],
    ['probes,leader', '+ leader election'],
    ['probes,leader,metrics', '+ metrics over HTTP'],
    ['deployed', 'metrics over HTTPS, authn/authz, self-signed cert (config/default)'],
  ];
  const samples = Object.fromEntries(modes.map(([m]) => [m, []]));
  try {
    const ns = `idle-modules-${Date.now()}`;
    await client.create(rt.Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    let n = 0;
    for (let r = 0; r < RUNS; r++) {
      for (const [mode] of r % 2 ? [...modes].reverse() : modes) {
        const peer = new Peer('bundled', {
          kubeconfig: cp.kubeconfigPath,
          namespace: ns,
          token: `idle-${++n}-${Date.now()}`,
          expect: 0,
          mode,
          nodeFlags,
          script: bundle.script,
          cwd: bundle.dir,
        });
        await sleep(IDLE_MS);
        samples[mode].push(await peer.memory());
        await peer.stop();
      }
    }
  } finally {
    client.close();
    await cp.stop();
    bundle.remove();
  }
  console.log(
    `\n2. Run stages: runtime-memory.js's bundled peer on an empty namespace, idle ${IDLE_MS} ms after start, after ` +
      `a GC (MiB; medians of ${RUNS}; Δ against the row above; ${loadLine()})`,
  );
  let prev;
  const rows = [];
  for (const [mode, label] of modes) {
    const m = medians(samples[mode]);
    rows.push([
      label,
      mib(m.rssBytes),
      mib(m.anonBytes),
      mib(m.fileBytes),
      mib(m.heapBytes),
      mib(m.heapTotalBytes),
      mib(m.bytecodeBytes),
      mib(m.codeBytes),
      mib(m.peakBytes),
      prev ? signed(m.rssBytes - prev.rssBytes) : '',
      prev ? signed(m.anonBytes - prev.anonBytes) : '',
      prev ? signed(m.fileBytes - prev.fileBytes) : '',
      prev ? signed(m.heapBytes - prev.heapBytes) : '',
    ]);
    prev = m;
  }
  printTable(
    [
      'configuration',
      'RSS',
      'RssAnon',
      'RssFile',
      'heap',
      'committed',
      'bytecode',
      'code',
      'peak',
      'Δ RSS',
      'Δ anon',
      'Δ file',
      'Δ heap',
    ],
    rows,
  );
}

async function bundleBytes() {
  const { build } = await import('esbuild');
  const result = await build({
    ...bundleOptions(),
    entryPoints: { manager: join(here, 'runtime-reconcile-bundled.js') },
    outdir: join(here, 'out', 'idle-modules', 'metafile'),
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const groups = new Map();
  for (const [file, o] of Object.entries(result.metafile.outputs)) {
    if (file.endsWith('.map')) continue;
    const where = /\/manager\.js$/.test(file) ? 'main' : 'chunks';
    for (const [input, v] of Object.entries(o.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      const key = pkg
        ? pkg
        : input.includes('src/runtime/')
          ? `runtime ${input.replace(/.*src\/runtime\/(dist\/)?/, '').replace(/\/[^/]*$|\.js$/, '')}`
          : 'bench';
      const g = groups.get(key) ?? { main: 0, chunks: 0 };
      g[where] += v.bytesInOutput;
      groups.set(key, g);
    }
  }
  const rows = [...groups].sort((a, b) => b[1].main + b[1].chunks - (a[1].main + a[1].chunks));
  console.log("\n3. The manager's bundle (runtime-memory.js's peer) by package and runtime directory: KiB of output");
  printTable(
    ['package or directory', 'in manager.js', 'in chunks (loaded when used)'],
    rows.map(([k, g]) => [k, (g.main / 1024).toFixed(1), (g.chunks / 1024).toFixed(1)]),
  );
  const total = rows.reduce((a, [, g]) => a + g.main, 0);
  console.log(
    `manager.js: ${(total / 1024).toFixed(0)} KiB of modules; files in bundle/: ${readdirSync(join(here, 'out', 'bundled-peer', 'bundle'), { recursive: true }).length}`,
  );
}
