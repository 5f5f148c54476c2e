import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  noReleaseReason,
  parseReleaseIndex,
  ReleaseIndexError,
  selectRelease,
} from '../../src/envtest/binaries/release-index.js';
import { parseVersion } from '../../src/envtest/versions.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'envtest-releases.yaml');
const INDEX_URL = 'https://example.invalid/envtest-releases.yaml';
const linuxAmd64 = { os: 'linux', arch: 'amd64' };

describe('parseReleaseIndex on the published envtest-releases.yaml (fixture excerpt)', () => {
  const releases = parseReleaseIndex(readFileSync(FIXTURE, 'utf8'), INDEX_URL);

  it('reads every versioned archive with its platform, sha512 and URL, newest first, skipping pre-releases', () => {
    expect(new Set(releases.map((r) => r.version))).toEqual(new Set(['1.36.2', '1.35.0']));
    expect(releases[0]?.version).toBe('1.36.2');
    expect(
      releases
        .filter((r) => r.version === '1.36.2')
        .map((r) => `${r.platform.os}/${r.platform.arch}`)
        .sort(),
    ).toEqual([
      'darwin/amd64',
      'darwin/arm64',
      'linux/amd64',
      'linux/arm64',
      'linux/ppc64le',
      'linux/s390x',
      'windows/amd64',
      'windows/arm64',
    ]);
  });

  it('selects the newest release of a minor for a platform, with the published hash and link', () => {
    expect(selectRelease(releases, parseVersion('1.36'), linuxAmd64)).toEqual({
      version: '1.36.2',
      platform: linuxAmd64,
      archiveName: 'envtest-v1.36.2-linux-amd64.tar.gz',
      sha512:
        'ea743186c8a799f5cf8faf16969f86189d003cb7d130e0ac4b58789f1e5748dcf30ebe91c837a10d5ac415383da3e10b9e64d65785c938c23e739781cfb76f08',
      url: 'https://github.com/kubernetes-sigs/controller-tools/releases/download/envtest-v1.36.2/envtest-v1.36.2-linux-amd64.tar.gz',
    });
    expect(selectRelease(releases, undefined, { os: 'darwin', arch: 'arm64' })?.archiveName).toBe(
      'envtest-v1.36.2-darwin-arm64.tar.gz',
    );
    expect(selectRelease(releases, parseVersion('1.35.0'), linuxAmd64)?.version).toBe('1.35.0');
    expect(selectRelease(releases, parseVersion('1.37'), linuxAmd64)).toBeUndefined();
  });

  it('says why nothing matched: no such version, or no archive for the platform', () => {
    expect(noReleaseReason(releases, parseVersion('1.37'), linuxAmd64, INDEX_URL)).toBe(
      `the envtest release index ${INDEX_URL} has no 1.37.x for linux/amd64 (newest: 1.36.2, 1.35.0)`,
    );
    expect(noReleaseReason(releases, undefined, { os: 'freebsd', arch: 'amd64' }, INDEX_URL)).toBe(
      `the envtest release index ${INDEX_URL} has no archive for freebsd/amd64`,
    );
  });
});

describe('parseReleaseIndex on bad input', () => {
  it('names the index and what is wrong with it', () => {
    expect(() => parseReleaseIndex('releases: [', INDEX_URL)).toThrow(
      new RegExp(`^the envtest release index ${INDEX_URL} is not valid YAML`),
    );
    expect(() => parseReleaseIndex('<html>404</html>', INDEX_URL)).toThrow(ReleaseIndexError);
    expect(() => parseReleaseIndex('<html>404</html>', INDEX_URL)).toThrow(
      `the envtest release index ${INDEX_URL} has no "releases" map`,
    );
    const noHash =
      'releases:\n  v1.36.2:\n    envtest-v1.36.2-linux-amd64.tar.gz:\n      selfLink: https://x/a.tar.gz\n';
    expect(() => parseReleaseIndex(noHash, INDEX_URL)).toThrow(
      `${INDEX_URL}: releases.v1.36.2.envtest-v1.36.2-linux-amd64.tar.gz needs a "hash" and a "selfLink"`,
    );
    const shortHash =
      'releases:\n  v1.36.2:\n    envtest-v1.36.2-linux-amd64.tar.gz:\n      hash: abc\n      selfLink: https://x/a.tar.gz\n';
    expect(() => parseReleaseIndex(shortHash, INDEX_URL)).toThrow('"hash" is not a hex sha512');
  });

  it('resolves a selfLink relative to the index, as a mirror may write it', () => {
    const hash = 'a'.repeat(128);
    const text = `releases:\n  v1.36.2:\n    envtest-v1.36.2-linux-amd64.tar.gz:\n      hash: ${hash}\n      selfLink: archives/envtest-v1.36.2-linux-amd64.tar.gz\n`;
    expect(parseReleaseIndex(text, 'http://127.0.0.1:8080/mirror/index.yaml')[0]?.url).toBe(
      'http://127.0.0.1:8080/mirror/archives/envtest-v1.36.2-linux-amd64.tar.gz',
    );
  });
});
