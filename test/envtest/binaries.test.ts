import { describe, expect, it } from 'vitest';
import { resolveBinaries, type DirectoryProbe } from '../../src/envtest/binaries/find.js';
import { goEnv } from '../../src/envtest/binaries/build.js';

/** A fake filesystem: `dirs` maps a directory to its entries; each of `complete` holds executable kube-apiserver and etcd. */
function probe(complete: string[], dirs: Record<string, string[]> = {}, files: string[] = []): DirectoryProbe {
  const executables = new Set([...files, ...complete.flatMap((d) => [`${d}/kube-apiserver`, `${d}/etcd`])]);
  return { isExecutable: (p) => executables.has(p), list: (d) => dirs[d] ?? [] };
}
const root = '/cache';
const entry = (dir: string, source: string, version?: string) => ({
  dir,
  kubeApiserver: `${dir}/kube-apiserver`,
  etcd: `${dir}/etcd`,
  source,
  ...(version ? { version } : {}),
});

describe('resolveBinaries', () => {
  it('prefers KUBEBUILDER_ASSETS over everything else, and says which variables it ignored', () => {
    const env = {
      KUBEBUILDER_ASSETS: '/assets',
      TEST_ASSET_ETCD: '/t/etcd',
      TEST_ASSET_KUBE_APISERVER: '/t/kube-apiserver',
    };
    const r = resolveBinaries(
      { env, binaryAssetsDirectory: '/explicit', cacheRoot: root },
      probe(['/assets', '/explicit', '/cache/1.37.1', '/t'], { [root]: ['1.37.1'] }),
    );
    expect(r).toEqual({
      kind: 'found',
      binaries: entry('/assets', 'KUBEBUILDER_ASSETS'),
      notes: ['TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD ignored: KUBEBUILDER_ASSETS is set and comes first'],
    });
  });
  it('reports a KUBEBUILDER_ASSETS directory without binaries instead of falling back', () => {
    const r = resolveBinaries(
      { env: { KUBEBUILDER_ASSETS: '/empty' }, cacheRoot: root },
      probe(['/cache/1.37.1'], { [root]: ['1.37.1'] }),
    );
    expect(r).toEqual({
      kind: 'invalid',
      message: 'KUBEBUILDER_ASSETS=/empty does not contain executable kube-apiserver and etcd.',
    });
  });
  it('takes TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD next, even from two directories', () => {
    const env = { TEST_ASSET_KUBE_APISERVER: '/a/kube-apiserver-1.37', TEST_ASSET_ETCD: '/b/etcd' };
    const r = resolveBinaries(
      { env, binaryAssetsDirectory: '/explicit', cacheRoot: root },
      probe(['/explicit'], {}, ['/a/kube-apiserver-1.37', '/b/etcd']),
    );
    expect(r).toEqual({
      kind: 'found',
      binaries: { dir: undefined, kubeApiserver: '/a/kube-apiserver-1.37', etcd: '/b/etcd', source: 'TEST_ASSET' },
      notes: [],
    });
    const same = resolveBinaries(
      { env: { TEST_ASSET_KUBE_APISERVER: '/t/kube-apiserver', TEST_ASSET_ETCD: '/t/etcd' }, cacheRoot: root },
      probe(['/t']),
    );
    expect(same).toMatchObject({ kind: 'found', binaries: { dir: '/t', source: 'TEST_ASSET' } });
  });
  it('uses binaryAssetsDirectory when KUBEBUILDER_ASSETS and TEST_ASSET_* are unset', () => {
    const r = resolveBinaries({ env: {}, binaryAssetsDirectory: '/explicit', cacheRoot: root }, probe(['/explicit']));
    expect(r).toEqual({ kind: 'found', binaries: entry('/explicit', 'binaryAssetsDirectory'), notes: [] });
  });
  it('takes the default version from the cache when present', () => {
    const r = resolveBinaries(
      { env: {}, cacheRoot: root },
      probe(['/cache/1.37.1', '/cache/1.38.0'], { [root]: ['1.38.0', '1.37.1'] }),
    );
    expect(r).toEqual({ kind: 'found', binaries: entry('/cache/1.37.1', 'cache', '1.37.1'), notes: [] });
  });
  it('falls back to the newest complete cached version, ignoring build and download dirs and incomplete entries', () => {
    const dirs = { [root]: ['1.34.1', '1.36.3', '1.36.9', '.build-1.37.1-x', '.download-1.38.0-y', 'logs'] };
    const r = resolveBinaries(
      { env: {}, cacheRoot: root },
      probe(['/cache/1.34.1', '/cache/1.36.3', '/cache/.download-1.38.0-y'], dirs),
    );
    expect(r).toEqual({ kind: 'found', binaries: entry('/cache/1.36.3', 'cache', '1.36.3'), notes: [] });
  });
  it('honours an exact, minor or latest version request', () => {
    const p = probe(['/cache/1.36.3', '/cache/1.37.1', '/cache/1.38.0'], { [root]: ['1.36.3', '1.37.1', '1.38.0'] });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: 'v1.36.3' }, p)).toMatchObject({
      kind: 'found',
      binaries: { version: '1.36.3' },
    });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: '1.36' }, p)).toMatchObject({
      kind: 'found',
      binaries: { version: '1.36.3' },
    });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: 'latest' }, p)).toMatchObject({
      kind: 'found',
      binaries: { version: '1.38.0' },
    });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: '1.35.0' }, p)).toEqual({
      kind: 'missing',
      request: { kind: 'selector', version: { major: 1, minor: 35, patch: 0 }, checkIndex: false },
      cacheRoot: root,
    });
  });
  it('reports the default version as missing on an empty cache', () => {
    expect(resolveBinaries({ env: {}, cacheRoot: root }, probe([]))).toEqual({
      kind: 'missing',
      request: { kind: 'default' },
      cacheRoot: root,
    });
  });
});

describe('goEnv', () => {
  it('builds in module mode without a workspace, cgo, or toolchain downloads, keeping other GOFLAGS', () => {
    const env = goEnv({ GOFLAGS: '-buildvcs=false -mod=vendor', HOME: '/root' });
    expect(env).toMatchObject({
      GOWORK: 'off',
      GOFLAGS: '-buildvcs=false -mod=mod',
      CGO_ENABLED: '0',
      GOTOOLCHAIN: 'local',
      HOME: '/root',
    });
  });
});
