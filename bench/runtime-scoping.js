#!/usr/bin/env node
// What caching an owned kind costs, ours against controller-runtime v0.25 (bench/go/scoping): a controller that
// reconciles ConfigMaps and owns Secrets, in a namespace holding SECRETS (default 10,000) Secrets of SIZE_KIB (default
// 10) KiB each, SELECTED (default 100) of them labelled as the operator's own. Three ways to cache the Secrets:
// whole (owns), metadata only (owns with onlyMetadata / builder.OnlyMetadata), and only the labelled ones (byObject
// label selector / cache.Options.ByObject). Reported once each peer's cache has synced, after a GC: live heap (V8
// heapUsed; Go HeapAlloc) and RSS, each peer run alone, one after the other.
// Usage: npm run build && node bench/runtime-scoping.js
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  childNode,
  goBinary,
  importRuntime,
  loadLine,
  machineLine,
  mib,
  printTable,
  ratio,
  startControlPlane,
} from './runtime-lib.js';

const SECRETS = Number(process.env.SECRETS ?? 10_000);
const SIZE_KIB = Number(process.env.SIZE_KIB ?? 10);
const SELECTED = Number(process.env.SELECTED ?? 100);
const NS = 'scoping';
const LABEL = 'app.kubernetes.io/managed-by';
const SELECTOR = `${LABEL}=bench-operator`;
const child = fileURLToPath(new URL('./runtime-scoping-child.js', import.meta.url));

console.log(machineLine());
const rt = await importRuntime('rest');
rt.configureLog({ level: 'error' });
const cp = await startControlPlane();
const client = rt.newClient(cp.env.kubeConfig);

function run(peer, mode) {
  const proc =
    peer === 'ours'
      ? spawn(childNode(), ['--expose-gc', child, cp.kubeconfigPath, NS, mode, SELECTOR], {
          stdio: ['pipe', 'pipe', 'inherit'],
        })
      : spawn(
          goBinary('scoping'),
          ['-kubeconfig-file', cp.kubeconfigPath, '-namespace', NS, '-mode', mode, '-selector', SELECTOR],
          { stdio: ['pipe', 'pipe', 'inherit'] },
        );
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => code !== 0 && reject(new Error(`${peer} ${mode} exited with ${code}`)));
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.type !== 'synced') return;
      proc.stdin.end('stop\n');
      proc.on('exit', () => resolve(msg));
    });
  });
}

try {
  await client.create(rt.Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const value = 'x'.repeat(SIZE_KIB * 1024);
  const t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < SECRETS) {
        const i = next++;
        const labels = i < SELECTED ? { [LABEL]: 'bench-operator' } : { app: `tenant-${i % 50}` };
        await client.create(rt.Secrets, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `s-${String(i).padStart(6, '0')}`, namespace: NS, labels },
          stringData: { data: value },
        });
      }
    }),
  );
  console.log(
    `created ${SECRETS} Secrets of ${SIZE_KIB} KiB (${SELECTED} labelled ${SELECTOR}) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const rows = [];
  for (const mode of ['full', 'metadata', 'selected']) {
    const ours = await run('ours', mode);
    const theirs = await run('controller-runtime', mode);
    rows.push([
      mode,
      ours.secrets,
      mib(ours.heapBytes),
      mib(theirs.heapBytes),
      ratio(ours.heapBytes, theirs.heapBytes),
      mib(ours.rssBytes),
      mib(theirs.rssBytes),
      ratio(ours.rssBytes, theirs.rssBytes),
    ]);
  }
  console.log(`\nSecrets cached three ways (MiB after a GC; ${loadLine()})`);
  printTable(['cache', 'secrets seen', 'heap ours', 'heap c-r', 'ratio', 'RSS ours', 'RSS c-r', 'ratio'], rows);
} finally {
  client.close();
  await cp.stop();
}
