#!/usr/bin/env node
// Wall time of the CLI's hot paths: `scaffold --version`, `scaffold init --skip-install`, `scaffold create api`.
// Median of RUNS runs each (default 9). With KUBEBUILDER=/path/to/kubebuilder set, the same steps of kubebuilder run
// side by side (init with --fetch-deps=false --skip-go-version-check; create api with --make=false) for a ratio.
// Usage: npm run bench   or   node bench/cli-startup.js
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.env.RUNS ?? 9);
const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));

function timed(cmd, args, cwd) {
  const start = process.hrtime.bigint();
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${result.stderr}${result.stdout}`);
  return ms;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function measure(tool) {
  const version = [],
    init = [],
    createApi = [];
  for (let i = 0; i < runs; i++) {
    const base = mkdtempSync(join(tmpdir(), 'bench-cli-'));
    const dir = join(base, 'project');
    spawnSync('mkdir', [dir]);
    try {
      version.push(timed(tool.cmd, [...tool.pre, '--version'], dir));
      init.push(timed(tool.cmd, [...tool.pre, 'init', '--domain', 'example.com', ...tool.initFlags], dir));
      createApi.push(
        timed(
          tool.cmd,
          [
            ...tool.pre,
            'create',
            'api',
            '--group',
            'crew',
            '--version',
            'v1',
            '--kind',
            'Captain',
            '--resource',
            '--controller',
            ...tool.apiFlags,
          ],
          dir,
        ),
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  return { version: median(version), init: median(init), createApi: median(createApi) };
}

const ours = measure({ cmd: process.execPath, pre: [scaffold], initFlags: ['--skip-install'], apiFlags: [] });
const rows = [
  ['scaffold --version', ours.version],
  ['scaffold init --skip-install', ours.init],
  ['scaffold create api', ours.createApi],
];
let peer;
if (process.env.KUBEBUILDER) {
  peer = measure({
    cmd: process.env.KUBEBUILDER,
    pre: [],
    initFlags: ['--fetch-deps=false', '--skip-go-version-check', '--repo', 'example.com/project'],
    apiFlags: ['--make=false'],
  });
}
console.log(`CLI wall time, median of ${runs} runs (node ${process.version})`);
const keys = ['version', 'init', 'createApi'];
rows.forEach(([name, ms], i) => {
  const peerMs = peer?.[keys[i]];
  console.log(
    `  ${name.padEnd(30)} ${ms.toFixed(0).padStart(6)} ms${peerMs ? `   kubebuilder ${peerMs.toFixed(0).padStart(6)} ms   ratio ${(ms / peerMs).toFixed(2)}` : ''}`,
  );
});
