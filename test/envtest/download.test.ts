/**
 * Downloading envtest releases from a local mirror: an index and archives made from copies of the
 * cached binaries, served over HTTP from this test (these machines cannot reach the published index).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findBinaries, type Binaries } from '../../src/envtest/binaries/find.js';
import { DownloadError } from '../../src/envtest/binaries/download-error.js';
import { downloadFile } from '../../src/envtest/binaries/download.js';
import { ensureBinaries, type EnsureBinariesOptions } from '../../src/envtest/binaries/ensure.js';
import { hostPlatform } from '../../src/envtest/binaries/platform.js';
import { ArchiveError } from '../../src/envtest/binaries/unpack.js';
import { ConnectProxy, makeArchive, Mirror, sha512 } from './mirror.js';

const here = hostPlatform();
const archiveName = (version: string) => `envtest-v${version}-${here.os}-${here.arch}.tar.gz`;
const archivePath = (version: string) => `/archives/${archiveName(version)}`;

/** The cached binaries these archives are made from, whatever version the cache holds (1.37.1 when built). */
let cached: Binaries;
/** Its version, e.g. "1.37.1", and the selector of its minor, e.g. "1.37". */
let V: string;
let MINOR: string;
let scratch: string;
/** envtest-v<V> for this platform, from copies of the cached binaries. */
let realArchive: Buffer;
let mirror: Mirror;
let cacheRoot: string;

beforeAll(async () => {
  cached = await findBinaries({ env: {} });
  V = cached.version;
  MINOR = V.split('.').slice(0, 2).join('.');
  scratch = await mkdtemp(join(tmpdir(), 'envtest-download-test-'));
  realArchive = await makeArchive(join(scratch, archiveName(V)), {
    'kube-apiserver': cached.kubeApiserver,
    etcd: cached.etcd,
  });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let testNo = 0;
afterEach(async () => {
  await mirror?.close();
});

/** A fresh mirror serving `entries`, and an empty cache root; the real archive is built once for the file. */
async function freshMirror(entries: Parameters<Mirror['publish']>[0]): Promise<Mirror> {
  mirror = await Mirror.start();
  mirror.publish(entries);
  cacheRoot = join(scratch, `cache-${++testNo}`);
  await mkdir(cacheRoot);
  return mirror;
}

/**
 * The releases most tests publish: V for this machine plus decoys that must never be downloaded: an
 * older patch of the same minor (when there is one), the previous and the next minor, V for another platform.
 */
function standardEntries() {
  const decoy = Buffer.from('decoy');
  const [major, minor, patch] = V.split('.').map(Number) as [number, number, number];
  return [
    { version: `${major}.${minor - 1}.9`, ...here, body: decoy },
    ...(patch > 0 ? [{ version: `${major}.${minor}.${patch - 1}`, ...here, body: decoy }] : []),
    { version: V, ...here, body: realArchive },
    { version: `${major}.${minor + 1}.0`, ...here, body: decoy },
    { version: V, os: here.os === 'darwin' ? 'linux' : 'darwin', arch: 'arm64', body: decoy },
  ];
}

function opts(extra: Partial<EnsureBinariesOptions> = {}): EnsureBinariesOptions & { lines: string[] } {
  const lines: string[] = [];
  return {
    cacheRoot,
    index: mirror.indexUrl,
    env: { PATH: '/nonexistent' }, // no KUBEBUILDER_ASSETS, no proxy, no go
    progress: (l) => lines.push(l),
    network: { timeoutMs: 5_000, attempts: 2, retryDelayMs: () => 10 },
    lines,
    ...extra,
  };
}

/** What the cache root holds: complete version directories and nothing else (no temp dirs, no locks). */
async function cacheContents(): Promise<string[]> {
  return (await readdir(cacheRoot).catch(() => [] as string[])).sort();
}

async function fileSha(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

describe('downloading from the envtest release index', () => {
  it('resolves MAJOR.MINOR to the newest patch of that minor for this platform, downloads it, verifies it and caches it', async () => {
    await freshMirror(standardEntries());
    const o = opts({ version: MINOR });
    const bins = await ensureBinaries(o);
    expect(bins).toMatchObject({ version: V, source: 'download', dir: join(cacheRoot, V) });
    expect(await fileSha(bins.kubeApiserver)).toBe(await fileSha(cached.kubeApiserver));
    expect(await fileSha(bins.etcd)).toBe(await fileSha(cached.etcd));
    const info = JSON.parse(await readFile(join(bins.dir!, 'download-info.json'), 'utf8')) as Record<string, unknown>;
    expect(info).toMatchObject({
      kubernetes: V,
      url: mirror.archiveUrl(archiveName(V)),
      sha512: sha512(realArchive),
      index: mirror.indexUrl,
    });
    // Only the index and the one archive were fetched: the decoys were not.
    expect(mirror.requests).toEqual(['/envtest-releases.yaml', archivePath(V)]);
    // Not on a terminal: a line per 10%.
    const percents = o.lines.filter((l) => l.startsWith(archiveName(V))).map((l) => /: (\d+)%/.exec(l)?.[1]);
    expect(percents).toEqual(['10', '20', '30', '40', '50', '60', '70', '80', '90', '100']);
    expect(await cacheContents()).toEqual([V]);
  });

  it('uses the cached version afterwards without contacting the index', async () => {
    await freshMirror(standardEntries());
    await ensureBinaries(opts({ version: V }));
    const before = mirror.requests.length;
    const again = await ensureBinaries(opts({ version: MINOR }));
    expect(again).toMatchObject({ version: V, source: 'cache' });
    expect(mirror.requests.length).toBe(before);
  });

  it('rejects a tampered archive before unpacking it and caches nothing', async () => {
    await freshMirror(
      standardEntries().map((e) =>
        e.body === realArchive ? { ...e, hash: sha512(Buffer.from('something else')) } : e,
      ),
    );
    const run = ensureBinaries(opts({ version: V }));
    await expect(run).rejects.toThrow(DownloadError);
    await expect(run).rejects.toThrow(
      new RegExp(`checksum mismatch for ${mirror.archiveUrl(archiveName(V))}.*Nothing was unpacked`),
    );
    expect(mirror.count(archivePath(V))).toBe(1); // a wrong hash is not retried
    expect(await cacheContents()).toEqual([]);
  });

  it('retries a truncated body a bounded number of times, then fails naming the URL', async () => {
    await freshMirror(standardEntries());
    mirror.set(archivePath(V), { kind: 'truncate', body: realArchive, bytes: 1_000_000 });
    const run = ensureBinaries(opts({ version: V }));
    await expect(run).rejects.toThrow(
      new RegExp(`${mirror.archiveUrl(archiveName(V))}.*(broke off|ended after).*gave up after 2 attempts`),
    );
    expect(mirror.count(archivePath(V))).toBe(2);
    expect(await cacheContents()).toEqual([]);
  });

  it('reports a 404 for the archive without retrying', async () => {
    await freshMirror(standardEntries());
    mirror.set(archivePath(V), { kind: 'status', status: 404 });
    await expect(ensureBinaries(opts({ version: V }))).rejects.toThrow(
      `${mirror.archiveUrl(archiveName(V))} answered 404 Not Found`,
    );
    expect(mirror.count(archivePath(V))).toBe(1);
    expect(await cacheContents()).toEqual([]);
  });

  it('gives up on a server that never answers after the injected timeout', async () => {
    await freshMirror(standardEntries());
    mirror.set(archivePath(V), { kind: 'hang' });
    const started = Date.now();
    const run = ensureBinaries(opts({ version: V, network: { timeoutMs: 200, attempts: 2, retryDelayMs: () => 10 } }));
    await expect(run).rejects.toThrow(/timed out fetching .*: no response within 200 ms \(gave up after 2 attempts\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(mirror.count(archivePath(V))).toBe(2);
    expect(await cacheContents()).toEqual([]);
  });

  it('gives up on a body that stops arriving', async () => {
    await freshMirror(standardEntries());
    mirror.set(archivePath(V), { kind: 'stall', body: realArchive, bytes: 65_536 });
    const run = ensureBinaries(opts({ version: V, network: { timeoutMs: 200, attempts: 1 } }));
    await expect(run).rejects.toThrow(/no data for 200 ms while reading the body/);
    expect(await cacheContents()).toEqual([]);
  });

  it('leaves nothing in the cache when the download is interrupted', async () => {
    await freshMirror(standardEntries());
    mirror.set(archivePath(V), { kind: 'stall', body: realArchive, bytes: 1_000_000 });
    const ac = new AbortController();
    const interrupted = new Error('interrupted (SIGINT)');
    let drawn = '';
    // The interrupt comes once the progress bar shows bytes arriving, like a Ctrl-C during the download.
    const terminal = {
      columns: 120,
      write: (text: string) => {
        drawn += text;
        if (!ac.signal.aborted && /\d KiB|\d MiB/.test(text)) ac.abort(interrupted);
        return true;
      },
    };
    const run = ensureBinaries(opts({ version: V, signal: ac.signal, terminal, network: { timeoutMs: 30_000 } }));
    await expect(run).rejects.toBe(interrupted);
    expect(drawn).toMatch(new RegExp(`${archiveName(V).replace(/\./g, '\\.')} \\[#*\\.+\\] \\d+% `));
    expect(await cacheContents()).toEqual([]);
  });

  it('goes through an HTTP CONNECT proxy from HTTP_PROXY, and around it for NO_PROXY hosts', async () => {
    await freshMirror(standardEntries());
    const proxy = await ConnectProxy.start();
    try {
      const bins = await ensureBinaries(opts({ version: V, env: { PATH: '/nonexistent', HTTP_PROXY: proxy.url } }));
      expect(bins.source).toBe('download');
      const host = new URL(mirror.baseUrl).host;
      expect(proxy.targets).toEqual([host, host]); // the index and the archive, each through the tunnel

      await rm(join(cacheRoot, V), { recursive: true });
      await ensureBinaries(
        opts({ version: V, env: { PATH: '/nonexistent', HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } }),
      );
      expect(proxy.targets).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('reports an archive without the expected binaries, naming it, and caches nothing', async () => {
    const noEtcd = await makeArchive(join(scratch, 'no-etcd.tar.gz'), {
      'kube-apiserver': Buffer.from(`#!/bin/sh\necho "Kubernetes v${V}"\n`),
    });
    await freshMirror([{ version: V, ...here, body: noEtcd }]);
    const run = ensureBinaries(opts({ version: V }));
    await expect(run).rejects.toThrow(ArchiveError);
    await expect(run).rejects.toThrow(`${mirror.archiveUrl(archiveName(V))} holds no etcd`);
    expect(await cacheContents()).toEqual([]);
  });

  it('reports a truncated archive (whose hash the index lists) as damaged', async () => {
    const truncated = realArchive.subarray(0, 2_000_000);
    await freshMirror([{ version: V, ...here, body: truncated }]);
    await expect(ensureBinaries(opts({ version: V }))).rejects.toThrow(
      new RegExp(`could not unpack ${mirror.archiveUrl(archiveName(V))}: .*damaged`),
    );
    expect(await cacheContents()).toEqual([]);
  });

  it('reports binaries for another platform, or no program at all, as not running here', async () => {
    // An ELF header for a CPU other than this machine's.
    const elf = Buffer.alloc(64);
    elf.writeUInt32BE(0x7f454c46, 0);
    elf[4] = 2; // 64-bit
    elf[5] = 1; // little-endian
    elf.writeUInt16LE(here.arch === 'arm64' ? 0x3e : 0xb7, 18);
    const other = here.arch === 'arm64' ? 'linux/amd64' : 'linux/arm64';
    const foreign = await makeArchive(join(scratch, 'foreign.tar.gz'), { 'kube-apiserver': elf, etcd: elf });
    await freshMirror([{ version: V, ...here, body: foreign }]);
    await expect(ensureBinaries(opts({ version: V }))).rejects.toThrow(
      `kube-apiserver from ${mirror.archiveUrl(archiveName(V))} does not run here: it is a ${other} program and this machine is ${here.os}/${here.arch}`,
    );
    expect(await cacheContents()).toEqual([]);
    await mirror.close();

    const garbage = await makeArchive(join(scratch, 'garbage.tar.gz'), {
      'kube-apiserver': Buffer.alloc(4096, 0x41),
      etcd: Buffer.alloc(4096, 0x41),
    });
    await freshMirror([{ version: V, ...here, body: garbage }]);
    await expect(ensureBinaries(opts({ version: V }))).rejects.toThrow(
      /does not run here \(.*\): it is neither an ELF nor a Mach-O program/,
    );
    expect(await cacheContents()).toEqual([]);
  });

  it('reads the index from a file:// URL and KUBESCAFFOLD_ENVTEST_INDEX', async () => {
    await freshMirror(standardEntries());
    const indexFile = join(scratch, 'index.yaml');
    const res = await fetch(mirror.indexUrl);
    await writeFile(indexFile, Buffer.from(await res.arrayBuffer()));
    mirror.requests.length = 0;
    const bins = await ensureBinaries(
      opts({
        version: V,
        index: undefined,
        env: { PATH: '/nonexistent', KUBESCAFFOLD_ENVTEST_INDEX: `file://${indexFile}` },
      }),
    );
    expect(bins.source).toBe('download');
    expect(mirror.requests).toEqual([archivePath(V)]);
  });
});

describe('downloadFile', () => {
  it('reports a full disk naming the file it was writing', async () => {
    await freshMirror(standardEntries());
    const run = downloadFile(mirror.archiveUrl(archiveName(V)), '/dev/full', {
      sha512: sha512(realArchive),
      attempts: 1,
    });
    await expect(run).rejects.toThrow('no space left on the device while writing /dev/full');
  });
});
