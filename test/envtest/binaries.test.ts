import { describe, expect, it } from 'vitest';
import { resolveBinaries, type DirectoryProbe } from '../../src/envtest/binaries.js';
import { goEnv } from '../../src/envtest/build.js';

/** A fake filesystem: `dirs` maps a directory to its entries; `complete` lists the ones holding both binaries. */
function probe(complete: string[], dirs: Record<string, string[]> = {}): DirectoryProbe {
  return { hasBinaries: (d) => complete.includes(d), list: (d) => dirs[d] ?? [] };
}
const root = '/cache';

describe('resolveBinaries', () => {
  it('prefers KUBEBUILDER_ASSETS over everything else', () => {
    const r = resolveBinaries(
      { env: { KUBEBUILDER_ASSETS: '/assets' }, binaryAssetsDirectory: '/explicit', cacheRoot: root },
      probe(['/assets', '/explicit', '/cache/1.37.1'], { [root]: ['1.37.1'] }),
    );
    expect(r).toEqual({ kind: 'found', dir: '/assets', source: 'KUBEBUILDER_ASSETS' });
  });
  it('reports a KUBEBUILDER_ASSETS directory without binaries instead of falling back', () => {
    const r = resolveBinaries({ env: { KUBEBUILDER_ASSETS: '/empty' }, cacheRoot: root }, probe(['/cache/1.37.1'], { [root]: ['1.37.1'] }));
    expect(r).toEqual({ kind: 'invalid', dir: '/empty', source: 'KUBEBUILDER_ASSETS' });
  });
  it('uses binaryAssetsDirectory when KUBEBUILDER_ASSETS is unset', () => {
    const r = resolveBinaries({ env: {}, binaryAssetsDirectory: '/explicit', cacheRoot: root }, probe(['/explicit']));
    expect(r).toEqual({ kind: 'found', dir: '/explicit', source: 'binaryAssetsDirectory' });
  });
  it('takes the default version from the cache when present', () => {
    const r = resolveBinaries({ env: {}, cacheRoot: root }, probe(['/cache/1.37.1', '/cache/1.38.0'], { [root]: ['1.38.0', '1.37.1'] }));
    expect(r).toEqual({ kind: 'found', dir: '/cache/1.37.1', source: 'cache', version: '1.37.1' });
  });
  it('falls back to the newest complete cached version, ignoring build dirs and incomplete entries', () => {
    const dirs = { [root]: ['1.34.1', '1.36.3', '1.36.9', '.build-1.37.1-x', 'logs'] };
    const r = resolveBinaries({ env: {}, cacheRoot: root }, probe(['/cache/1.34.1', '/cache/1.36.3'], dirs));
    expect(r).toEqual({ kind: 'found', dir: '/cache/1.36.3', source: 'cache', version: '1.36.3' });
  });
  it('honours an exact or minor version request', () => {
    const p = probe(['/cache/1.36.3', '/cache/1.37.1'], { [root]: ['1.36.3', '1.37.1'] });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: 'v1.36.3' }, p)).toMatchObject({ kind: 'found', version: '1.36.3' });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: '1.36' }, p)).toMatchObject({ kind: 'found', version: '1.36.3' });
    expect(resolveBinaries({ env: {}, cacheRoot: root, version: '1.35.0' }, p)).toEqual({
      kind: 'missing',
      wanted: { major: 1, minor: 35, patch: 0 },
      cacheRoot: root,
    });
  });
  it('reports the default version as missing on an empty cache', () => {
    expect(resolveBinaries({ env: {}, cacheRoot: root }, probe([]))).toEqual({
      kind: 'missing',
      wanted: { major: 1, minor: 37, patch: 1 },
      cacheRoot: root,
    });
  });
});

describe('goEnv', () => {
  it('builds in module mode without a workspace, cgo, or toolchain downloads, keeping other GOFLAGS', () => {
    const env = goEnv({ GOFLAGS: '-buildvcs=false -mod=vendor', HOME: '/root' });
    expect(env).toMatchObject({ GOWORK: 'off', GOFLAGS: '-buildvcs=false -mod=mod', CGO_ENABLED: '0', GOTOOLCHAIN: 'local', HOME: '/root' });
  });
});
