/**
 * Where ensureBinaries takes kube-apiserver and etcd from, and in which order: KUBEBUILDER_ASSETS,
 * TEST_ASSET_*, binaryAssetsDirectory, the cache, a download, a build. The binaries are scripts that
 * answer --version; the index is served by a local mirror.
 */
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BinariesNotFoundError } from '../../src/envtest/binaries/find.js';
import { QuestionInterrupted } from '../../src/envtest/binaries/confirm.js';
import { EnvtestError } from '../../src/envtest/errors.js';
import { DownloadError } from '../../src/envtest/binaries/download-error.js';
import { ensureBinaries, type EnsureBinariesOptions } from '../../src/envtest/binaries/ensure.js';
import { listVersions } from '../../src/envtest/binaries/list.js';
import { hostPlatform } from '../../src/envtest/binaries/platform.js';
import { DEFAULT_INDEX_URL } from '../../src/envtest/binaries/release-index.js';
import { fakeBinaries, makeArchive, Mirror, writeFakeBinaries } from './mirror.js';

const here = hostPlatform();
let scratch: string;
let mirror: Mirror;
let cacheRoot: string;
let n = 0;
/** A port nothing listens on: connecting to it is refused at once. */
let closedPort: number;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'envtest-sources-test-'));
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedPort = (probe.address() as AddressInfo).port;
  probe.close();
  await once(probe, 'close');
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
afterEach(async () => {
  await mirror?.close();
});

/** A mirror publishing fake archives of `versions` for this platform, and an empty cache root. */
async function setup(versions: string[]): Promise<void> {
  const dir = join(scratch, `t${++n}`);
  await mkdir(dir);
  cacheRoot = join(dir, 'cache');
  mirror = await Mirror.start();
  const entries = [];
  for (const version of versions)
    entries.push({ version, ...here, body: await makeArchive(join(dir, `${version}.tar.gz`), fakeBinaries(version)) });
  mirror.publish(entries);
}

function opts(
  extra: Partial<EnsureBinariesOptions> & { env?: NodeJS.ProcessEnv },
): EnsureBinariesOptions & { lines: string[] } {
  const lines: string[] = [];
  return {
    cacheRoot,
    index: mirror.indexUrl,
    progress: (l) => lines.push(l),
    network: { timeoutMs: 5_000, attempts: 1 },
    lines,
    ...extra,
    env: { PATH: '/nonexistent', ...extra.env },
  };
}

describe('the order of the sources', () => {
  it('is KUBEBUILDER_ASSETS, TEST_ASSET_*, binaryAssetsDirectory, the cache, then a download', async () => {
    await setup(['1.34.0']);
    const dirs = {
      assets: join(scratch, 'assets'),
      testAsset: join(scratch, 'test-asset'),
      explicit: join(scratch, 'explicit'),
    };
    await writeFakeBinaries(dirs.assets, '1.30.0');
    await writeFakeBinaries(dirs.testAsset, '1.31.0');
    await writeFakeBinaries(dirs.explicit, '1.32.0');
    await writeFakeBinaries(join(cacheRoot, '1.33.0'), '1.33.0');
    const testAssets = {
      TEST_ASSET_KUBE_APISERVER: join(dirs.testAsset, 'kube-apiserver'),
      TEST_ASSET_ETCD: join(dirs.testAsset, 'etcd'),
    };

    const all = opts({ env: { KUBEBUILDER_ASSETS: dirs.assets, ...testAssets }, binaryAssetsDirectory: dirs.explicit });
    expect(await ensureBinaries(all)).toMatchObject({
      source: 'KUBEBUILDER_ASSETS',
      version: '1.30.0',
      dir: dirs.assets,
    });
    expect(all.lines).toEqual([
      'TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD ignored: KUBEBUILDER_ASSETS is set and comes first',
    ]);
    expect(await ensureBinaries(opts({ env: testAssets, binaryAssetsDirectory: dirs.explicit }))).toMatchObject({
      source: 'TEST_ASSET',
      version: '1.31.0',
      kubeApiserver: testAssets.TEST_ASSET_KUBE_APISERVER,
      etcd: testAssets.TEST_ASSET_ETCD,
    });
    expect(await ensureBinaries(opts({ binaryAssetsDirectory: dirs.explicit }))).toMatchObject({
      source: 'binaryAssetsDirectory',
      version: '1.32.0',
    });
    expect(await ensureBinaries(opts({}))).toMatchObject({ source: 'cache', version: '1.33.0' });
    expect(mirror.requests).toEqual([]); // nothing so far needed the index
    expect(await ensureBinaries(opts({ version: '1.34' }))).toMatchObject({
      source: 'download',
      version: '1.34.0',
      dir: join(cacheRoot, '1.34.0'),
    });
  });

  it('reports a TEST_ASSET_* pair with one half missing, naming the unset variable', async () => {
    await setup([]);
    const dir = join(scratch, 'half');
    await writeFakeBinaries(dir, '1.31.0');
    await expect(ensureBinaries(opts({ env: { TEST_ASSET_ETCD: join(dir, 'etcd') } }))).rejects.toThrow(
      'TEST_ASSET_ETCD is set but TEST_ASSET_KUBE_APISERVER is not',
    );
    await expect(
      ensureBinaries(
        opts({ env: { TEST_ASSET_ETCD: join(dir, 'etcd'), TEST_ASSET_KUBE_APISERVER: join(dir, 'nope') } }),
      ),
    ).rejects.toThrow(`TEST_ASSET_KUBE_APISERVER=${join(dir, 'nope')} is not an executable file`);
  });
});

describe('versions against the index', () => {
  it('takes the newest release for the default version when 1.37.1 is neither cached nor published', async () => {
    await setup(['1.33.0', '1.34.1', '1.34.0']);
    expect(await ensureBinaries(opts({}))).toMatchObject({ source: 'download', version: '1.34.1' });
  });

  it('prefers 1.37.1 for the default version when the index has it', async () => {
    await setup(['1.37.1', '1.38.0']);
    expect(await ensureBinaries(opts({}))).toMatchObject({ source: 'download', version: '1.37.1' });
  });

  it('checks the index for "latest" and "1.34!" even when the cache has a match', async () => {
    await setup(['1.34.1']);
    await writeFakeBinaries(join(cacheRoot, '1.34.0'), '1.34.0');
    expect(await ensureBinaries(opts({ version: '1.34' }))).toMatchObject({ source: 'cache', version: '1.34.0' });
    expect(mirror.requests).toEqual([]);
    expect(await ensureBinaries(opts({ version: '1.34!' }))).toMatchObject({ source: 'download', version: '1.34.1' });
    await writeFakeBinaries(join(cacheRoot, '1.35.0'), '1.35.0');
    expect(await ensureBinaries(opts({ version: 'latest' }))).toMatchObject({ source: 'cache', version: '1.35.0' }); // newer than the index's
  });

  it('rejects a version that is not one', async () => {
    await setup([]);
    await expect(ensureBinaries(opts({ version: 'newest' }))).rejects.toThrow(
      'invalid version "newest": expected latest, MAJOR.MINOR.PATCH or MAJOR.MINOR',
    );
  });
});

describe('--installed-only', () => {
  it('fails on an empty cache without contacting the index', async () => {
    await setup(['1.34.0']);
    const run = ensureBinaries(opts({ installedOnly: true }));
    await expect(run).rejects.toThrow(BinariesNotFoundError);
    await expect(run).rejects.toThrow(
      `No kube-apiserver/etcd for Kubernetes the default version (1.37.1, or the newest available) in ${cacheRoot}, and --installed-only`,
    );
    await expect(ensureBinaries(opts({ version: '1.34', env: { ENVTEST_INSTALLED_ONLY: 'true' } }))).rejects.toThrow(
      /--installed-only \(-i, or ENVTEST_INSTALLED_ONLY\)/,
    );
    expect(mirror.requests).toEqual([]);
  });

  it('takes the newest cached version for "latest" without contacting the index', async () => {
    await setup(['1.36.0']);
    await writeFakeBinaries(join(cacheRoot, '1.33.0'), '1.33.0');
    expect(await ensureBinaries(opts({ version: 'latest', installedOnly: true }))).toMatchObject({
      source: 'cache',
      version: '1.33.0',
    });
    expect(mirror.requests).toEqual([]);
  });
});

describe('building from source comes last', () => {
  /** A directory with an executable named `go` that must never run: the tests stop before building. */
  async function fakeGoPath(): Promise<string> {
    const dir = join(scratch, `go-${++n}`);
    await mkdir(dir);
    await writeFile(join(dir, 'go'), '#!/bin/sh\necho "this test must not run go" >&2\nexit 3\n', { mode: 0o755 });
    return dir;
  }

  it('asks before building when the index has no matching release, and stops when declined', async () => {
    await setup(['1.34.0']);
    const questions: string[] = [];
    const o = opts({
      version: '1.35.2',
      env: { PATH: await fakeGoPath() },
      confirmBuild: async (q) => (questions.push(q), false),
    });
    await expect(ensureBinaries(o)).rejects.toThrow('Not building Kubernetes 1.35.2 from source: declined.');
    expect(questions).toEqual([
      'Build kube-apiserver 1.35.2 and etcd from the Go module proxy instead? It takes about 20 minutes on 2 cores.',
    ]);
    expect(o.lines).toContain(
      `The envtest release index ${mirror.indexUrl} has no 1.35.2 for ${here.os}/${here.arch} (newest: 1.34.0).`,
    );
  });

  it('stops with one line and exit code 130, building nothing, when the question is answered with Ctrl-C', async () => {
    await setup(['1.34.0']);
    const o = opts({
      version: '1.35.2',
      env: { PATH: await fakeGoPath() },
      confirmBuild: () => Promise.reject(new QuestionInterrupted()),
    });
    const run = ensureBinaries(o);
    await expect(run).rejects.toBeInstanceOf(EnvtestError);
    await expect(run).rejects.toMatchObject({
      message: 'Not building Kubernetes 1.35.2 from source: interrupted at the question (Ctrl-C).',
      exitCode: 130,
    });
    expect((await listVersions({ cacheRoot, installedOnly: true })).installed).toEqual([]);
  });

  it('says what is missing when there is no release and no Go', async () => {
    await setup(['1.34.0']);
    await expect(ensureBinaries(opts({ version: '1.35' }))).rejects.toThrow(
      `No kube-apiserver/etcd for Kubernetes 1.35.x in ${cacheRoot}: the envtest release index ${mirror.indexUrl} has no 1.35.x for ${here.os}/${here.arch} (newest: 1.34.0), and there is no \`go\` on PATH`,
    );
  });

  it('never builds for TestEnvironment (build: never)', async () => {
    await setup(['1.34.0']);
    const run = ensureBinaries(
      opts({
        version: '1.35',
        build: 'never',
        env: { PATH: await fakeGoPath() },
        confirmBuild: async () => expect.fail('must not ask'),
      }),
    );
    await expect(run).rejects.toThrow(/has no 1\.35\.x/);
  });

  it('falls back from an unreachable default index to a build, or to the cache', async () => {
    await setup([]);
    const offline = { HTTPS_PROXY: `http://127.0.0.1:${closedPort}` }; // the default index fails at once, without real network
    const questions: string[] = [];
    const o = opts({
      index: undefined,
      env: { ...offline, PATH: await fakeGoPath() },
      confirmBuild: async (q) => (questions.push(q), false),
    });
    await expect(ensureBinaries(o)).rejects.toThrow('declined');
    expect(o.lines[0]).toMatch(
      new RegExp(
        `^The envtest release index could not be read: could not fetch ${DEFAULT_INDEX_URL.replace(/[.?]/g, '\\$&')} through the proxy .*ECONNREFUSED`,
      ),
    );
    expect(questions).toHaveLength(1);

    await writeFakeBinaries(join(cacheRoot, '1.33.0'), '1.33.0');
    const latest = opts({ index: undefined, version: 'latest', env: offline });
    expect(await ensureBinaries(latest)).toMatchObject({ source: 'cache', version: '1.33.0' });
    expect(latest.lines[0]).toMatch(/could not be read.*; using the cached Kubernetes 1\.33\.0$/);
  });

  it('does not fall back when an index that was asked for cannot be read', async () => {
    await setup([]);
    const index = `http://127.0.0.1:${closedPort}/envtest-releases.yaml`;
    const run = ensureBinaries(
      opts({ index, env: { PATH: await fakeGoPath() }, confirmBuild: async () => expect.fail('must not ask') }),
    );
    await expect(run).rejects.toThrow(DownloadError);
    await expect(run).rejects.toThrow(
      `could not fetch ${index}: connect ECONNREFUSED 127.0.0.1:${closedPort} (no network?`,
    );
  });
});

describe('listVersions', () => {
  it('lists the cached versions and what the index offers for this platform, newest first', async () => {
    await setup(['1.33.0', '1.34.1']);
    await writeFakeBinaries(join(cacheRoot, '1.33.0'), '1.33.0');
    await writeFakeBinaries(join(cacheRoot, '1.37.1'), '1.37.1');
    await writeFile(join(cacheRoot, '1.37.1', 'build-info.json'), '{}');
    await mkdir(join(cacheRoot, '.download-1.34.1-abc')); // a temp dir is not a version
    const listing = await listVersions({ cacheRoot, index: mirror.indexUrl, env: {} });
    expect(listing.installed.map((i) => [i.version, i.origin])).toEqual([
      ['1.37.1', 'build'],
      ['1.33.0', 'unknown'],
    ]);
    expect(listing.available?.map((r) => r.version)).toEqual(['1.34.1', '1.33.0']);
    const only = await listVersions({ cacheRoot, installedOnly: true, selector: { major: 1, minor: 33 }, env: {} });
    expect(only.installed.map((i) => i.version)).toEqual(['1.33.0']);
    expect(only.available).toBeUndefined();
  });
});
