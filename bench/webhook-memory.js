#!/usr/bin/env node
// Webhook memory under concurrent large reviews: CONCURRENCY (default 10,20,40) AdmissionReviews of SIZE_MIB (default
// 6.5) each, an UPDATE of a ConfigMap carrying object and oldObject, sent at once to our webhook server
// (bench/webhook-memory-child.js) running with the scaffolded manager's Node flags and heap sizing (manager.yaml's
// NODE_OPTIONS under its memory limit). A 429 is sent again after its Retry-After, as the API server does. Reported
// per level, with the in-flight body budget off and at its default: the process's peak RSS (VmHWM) against the
// manifest's memory limit, reviews answered, 429s, and reviews that failed.
// Usage: npm run build && CHILD_NODE=<node 22> node bench/webhook-memory.js
import { spawn } from 'node:child_process';
import https from 'node:https';
import { createInterface } from 'node:readline';
import { childNode, deployedManagerResources, loadLine, machineLine, mib, printTable } from './runtime-lib.js';

const LEVELS = (process.env.CONCURRENCY ?? '10,20,40').split(',').map(Number);
const SIZE = Math.round(Number(process.env.SIZE_MIB ?? 6.5) * 1048576);
const child = new URL('./webhook-memory-child.js', import.meta.url).pathname;

console.log(machineLine());
const { limitBytes, nodeOptions } = await deployedManagerResources();
console.log(`manager.yaml: memory limit ${mib(limitBytes)} MiB; node ${nodeOptions.join(' ')}`);

// One ConfigMap of about half the review, twice (object and oldObject).
const half = Math.floor((SIZE - 2048) / 2);
const data = {};
for (let i = 0; (i + 1) * 65536 <= half; i++) data[`k${i}`] = 'x'.repeat(65536 - 16);
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'default' }, data };
const review = (uid) =>
  Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid,
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        operation: 'UPDATE',
        namespace: 'default',
        name: 'big',
        userInfo: { username: 'bench' },
        object: cm,
        oldObject: cm,
      },
    }),
  );

function post(port, body) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mutate--v1-configmap',
        method: 'POST',
        rejectUnauthorized: false,
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode, retryAfter: Number(res.headers['retry-after'] ?? 0), text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function level(concurrency, budget) {
  const proc = spawn(childNode(), [...nodeOptions, child, budget], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const ready = JSON.parse((await lines.next()).value);
  let refused = 0;
  let failed = 0;
  let answered = 0;
  const bytes = review('x').length;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const body = review(`uid-${i}`);
      for (let attempt = 0; attempt < 60; attempt++) {
        const r = await post(ready.port, body).catch((err) => ({ status: 0, text: String(err) }));
        if (r.status === 429) {
          refused++;
          await new Promise((resolve) => setTimeout(resolve, (r.retryAfter || 1) * 1000));
          continue;
        }
        const ok = r.status === 200 && JSON.parse(r.text).response?.allowed === true;
        if (ok) answered++;
        else failed++;
        return;
      }
      failed++;
    }),
  );
  proc.stdin.write('stop\n');
  const stopped = JSON.parse((await lines.next()).value);
  return { bytes, hwm: stopped.hwmBytes, answered, refused, failed };
}

const rows = [];
for (const budget of ['0', 'default']) {
  for (const c of LEVELS) {
    const r = await level(c, budget);
    rows.push([
      `${c} at once, budget ${budget === '0' ? 'off' : 'default'}`,
      mib(r.bytes),
      mib(r.hwm),
      `${((r.hwm / limitBytes) * 100).toFixed(0)}%`,
      r.answered,
      r.refused,
      r.failed,
    ]);
    console.error(`${c} at once, budget ${budget}: peak ${mib(r.hwm)} MiB, ${r.failed} failed`);
  }
}
printTable(['reviews', 'MiB each', 'peak RSS MiB', 'of limit', 'answered', '429s', 'failed'], rows);
console.log(loadLine());
