#!/usr/bin/env node
// Empty cache → ready control plane, with the binaries downloaded from an envtest release mirror served by
// this script on 127.0.0.1 (these machines cannot reach the published index). The mirror holds an
// envtest-releases.yaml and one tar.gz made, like controller-tools' archives, from copies of the cached
// kube-apiserver and etcd (gzip level 6, not timed). Each run times ensureBinaries() into a fresh temp
// cache (index, download, sha512, unpack, --version checks, rename) and TestEnvironment.start() until ready.
// Median of RUNS runs (default 3). Also prints how long the cached binaries took to build (build-info.json).
// Usage: npm run build && node bench/envtest-download.js
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { create } from 'tar';
import { stringify } from 'yaml';
import { ensureBinaries, findBinaries, TestEnvironment } from '../src/envtest/dist/index.js';
import { hostPlatform } from '../src/envtest/dist/platform.js';

const runs = Number(process.env.RUNS ?? 3);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (values) =>
  `median ${(median(values) / 1000).toFixed(2).padStart(6)} s   (min ${(Math.min(...values) / 1000).toFixed(2)}, max ${(Math.max(...values) / 1000).toFixed(2)})`;

const bins = await findBinaries();
const { os, arch } = hostPlatform();
const name = `envtest-v${bins.version}-${os}-${arch}.tar.gz`;
const work = await mkdtemp(join(tmpdir(), 'bench-envtest-download-'));
const server = createServer();
try {
  // The archive, as controller-tools lays it out: controller-tools/envtest/{kube-apiserver,etcd}.
  const staging = join(work, 'staging', 'controller-tools', 'envtest');
  await mkdir(staging, { recursive: true });
  await copyFile(bins.kubeApiserver, join(staging, 'kube-apiserver'));
  await copyFile(bins.etcd, join(staging, 'etcd'));
  const archivePath = join(work, name);
  await create({ gzip: { level: 6 }, file: archivePath, cwd: join(work, 'staging'), portable: true }, [
    'controller-tools',
  ]);
  const archive = await readFile(archivePath);

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${server.address().port}`;
  const index = stringify({
    releases: {
      [`v${bins.version}`]: {
        [name]: { hash: createHash('sha512').update(archive).digest('hex'), selfLink: `${base}/${name}` },
      },
    },
  });
  server.on('request', (req, res) => {
    const body =
      req.url === '/envtest-releases.yaml' ? Buffer.from(index) : req.url === `/${name}` ? archive : undefined;
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });

  const obtain = [],
    start = [],
    total = [];
  for (let i = 0; i < runs; i++) {
    const cacheRoot = join(work, `cache-${i}`);
    const t0 = performance.now();
    const got = await ensureBinaries({
      cacheRoot,
      index: `${base}/envtest-releases.yaml`,
      version: bins.version,
      env: {},
      progress: () => undefined,
    });
    const t1 = performance.now();
    const env = await TestEnvironment.start({ binaryAssetsDirectory: got.dir });
    const t2 = performance.now();
    await env.stop();
    if (got.source !== 'download') throw new Error(`expected a download, got ${got.source}`);
    obtain.push(t1 - t0);
    start.push(t2 - t1);
    total.push(t2 - t0);
    await rm(cacheRoot, { recursive: true, force: true });
  }

  let build = '';
  try {
    const info = JSON.parse(await readFile(join(bins.dir, 'build-info.json'), 'utf8'));
    if (info.buildSeconds !== undefined)
      build = `  for comparison, building these binaries from the Go module proxy took ${info.buildSeconds} s (${info.go}, build-info.json)`;
  } catch {
    // not built by scaffold envtest use
  }
  console.log(
    `envtest from an empty cache: Kubernetes ${bins.version} (${os}/${arch}), archive ${(archive.length / 1024 / 1024).toFixed(1)} MiB from a local mirror`,
  );
  console.log(`  ${runs} runs (node ${process.version})`);
  console.log(`  obtain binaries (index, download, sha512, unpack, check)  ${fmt(obtain)}`);
  console.log(`  start → ready                                            ${fmt(start)}`);
  console.log(`  empty cache → ready control plane                        ${fmt(total)}`);
  if (build) console.log(build);
} finally {
  server.close();
  await rm(work, { recursive: true, force: true });
}
