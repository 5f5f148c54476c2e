#!/usr/bin/env node
// `npm test` in scaffolded projects with KINDS kinds (default 1,5,10), each with a controller and a defaulting and
// validating webhook: wall time and CPU seconds of the whole `npm test` (pretest's `scaffold envtest use`, manifests,
// tsc, vitest) and of its vitest part alone (`vitest run --project unit`), how many kube-apiservers the run started,
// how many ran at once, and the largest process's peak RSS. Min of RUNS runs each (default 1).
// SCAFFOLD=<path of a bin/scaffold.js> scaffolds the projects with another checkout's CLI (and its packages, which it
// packs into the project's vendor/), e.g. one of main to compare before/after a template change; default this one.
// KEEP=1 keeps the projects (their paths are printed).
// Usage: npm run build && node bench/envtest-per-run.js
//        SCAFFOLD=/path/to/other/checkout/bin/scaffold.js KINDS=1,5,10 node bench/envtest-per-run.js
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const scaffold = resolve(process.env.SCAFFOLD ?? fileURLToPath(new URL('../bin/scaffold.js', import.meta.url)));
const kindCounts = (process.env.KINDS ?? '1,5,10').split(',').map(Number);
const runs = Number(process.env.RUNS ?? 1);
const KINDS = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf', 'Hotel', 'India', 'Juliet', 'Kilo'];
const TICK = Number(process.env.HZ ?? 100);

function must(cwd, cmd, args) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function project(kinds) {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-bench-envtest-'));
  const root = join(base, `fleet${kinds}`);
  mkdirSync(root);
  must(root, process.execPath, [scaffold, 'init', '--domain', 'example.com', '--skip-install']);
  for (const kind of KINDS.slice(0, kinds)) {
    must(root, process.execPath, [scaffold, 'create', 'api', '--group', 'fleet', '--version', 'v1', '--kind', kind]);
    must(root, process.execPath, [
      scaffold,
      ...['create', 'webhook', '--group', 'fleet', '--version', 'v1', '--kind', kind],
      ...['--defaulting', '--programmatic-validation'],
    ]);
  }
  must(root, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline']);
  // Obtaining the binaries (a download or a build, the first time) is not what is measured.
  must(root, 'npx', ['scaffold', 'envtest', 'use', '-p', 'path']);
  return { base, root };
}

/** Parent pid of each live process, and the names of the kube-apiservers (Linux /proc). */
function processTable() {
  const parents = new Map();
  const apiservers = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      parents.set(Number(pid), Number(stat.slice(close + 2).split(' ')[1]));
      if (comm === 'kube-apiserver') apiservers.push(Number(pid));
    } catch {
      // exited while we looked
    }
  }
  return { parents, apiservers };
}

function descends(pid, ancestor, parents) {
  for (let p = pid; p > 1; p = parents.get(p) ?? 0) if (p === ancestor) return true;
  return false;
}

/** Runs the command under /usr/bin/time, counting the kube-apiservers among its descendants. */
function timed(cwd, cmd, args) {
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %U %S %M', cmd, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (output += d));
    const seen = new Set();
    let peak = 0;
    const poll = setInterval(() => {
      const { parents, apiservers } = processTable();
      const ours = apiservers.filter((pid) => descends(pid, child.pid, parents));
      for (const pid of ours) seen.add(pid);
      peak = Math.max(peak, ours.length);
    }, TICK);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearInterval(poll);
      const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(output);
      if (code !== 0 || !m)
        return fail(new Error(`${cmd} ${args.join(' ')} failed (${code}):\n${output.slice(-4000)}`));
      done({ wall: +m[1], cpu: +m[2] + +m[3], maxRssMiB: +m[4] / 1024, apiservers: seen.size, peak });
    });
  });
}

const best = (results) => results.reduce((a, b) => (b.wall < a.wall ? b : a));
const row = (kinds, what, r) =>
  `| ${kinds} | ${what} | ${r.wall.toFixed(1)} | ${r.cpu.toFixed(1)} | ${r.apiservers} | ${r.peak} | ${r.maxRssMiB.toFixed(0)} |`;

console.log(`scaffolded by ${scaffold}; min of ${runs} run(s)`);
console.log('| kinds | command | wall s | CPU s | kube-apiservers started | at once | largest RSS MiB |');
console.log('|---:|---|---:|---:|---:|---:|---:|');
for (const kinds of kindCounts) {
  const { base, root } = project(kinds);
  try {
    const npmTest = [];
    const vitest = [];
    for (let i = 0; i < runs; i++) {
      npmTest.push(await timed(root, 'npm', ['test']));
      vitest.push(await timed(root, 'npx', ['vitest', 'run', '--project', 'unit']));
    }
    console.log(row(kinds, '`npm test`', best(npmTest)));
    console.log(row(kinds, '`vitest run --project unit`', best(vitest)));
  } finally {
    if (process.env.KEEP === '1') console.log(`kept ${root}`);
    else rmSync(base, { recursive: true, force: true });
  }
}
