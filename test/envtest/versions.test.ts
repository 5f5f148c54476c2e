import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  goSatisfies,
  newestMatching,
  parseApiserverVersionOutput,
  parseEtcdVersionOutput,
  parseGoVersion,
  parseVersion,
  parseVersionRequest,
  stagingModuleVersion,
} from '../../src/envtest/versions.js';

describe('parseVersion', () => {
  it('accepts exact versions with or without a leading v', () => {
    expect(parseVersion('1.37.1')).toEqual({ major: 1, minor: 37, patch: 1 });
    expect(parseVersion('v1.34.0')).toEqual({ major: 1, minor: 34, patch: 0 });
  });
  it('treats MAJOR.MINOR and MAJOR.MINOR.x as minor selectors', () => {
    expect(parseVersion('1.36')).toEqual({ major: 1, minor: 36 });
    expect(parseVersion('1.36.x')).toEqual({ major: 1, minor: 36 });
  });
  it('rejects anything else', () => {
    expect(() => parseVersion('latest')).toThrow(/invalid version "latest"/);
    expect(() => parseVersion('1.37.1-rc.0')).toThrow();
  });
});

describe('version ordering and selection', () => {
  it('compares numerically, not as text', () => {
    expect(compareVersions(parseVersion('1.9.0'), parseVersion('1.10.0'))).toBeLessThan(0);
    expect(compareVersions(parseVersion('1.37.10'), parseVersion('1.37.9'))).toBeGreaterThan(0);
  });
  it('picks the newest candidate the selector matches, skipping non-versions', () => {
    const names = ['1.36.3', '1.37.1', '1.37.10', 'logs', '.build-1.37.2-abc', '1.38.0'];
    expect(newestMatching(parseVersion('1.37'), names)).toBe('1.37.10');
    expect(newestMatching(parseVersion('1.36.3'), names)).toBe('1.36.3');
    expect(newestMatching(undefined, names)).toBe('1.38.0');
    expect(newestMatching(parseVersion('1.35'), names)).toBeUndefined();
  });
  it('maps Kubernetes v1.Y.Z to staging module v0.Y.Z', () => {
    expect(stagingModuleVersion({ major: 1, minor: 37, patch: 1 })).toBe('v0.37.1');
  });
});

describe('Go toolchain versions', () => {
  it('parses go env GOVERSION output and go directives', () => {
    expect(parseGoVersion('go1.26.8')).toEqual({ major: 1, minor: 26, patch: 8 });
    expect(parseGoVersion('1.26.0')).toEqual({ major: 1, minor: 26, patch: 0 });
    expect(parseGoVersion('go1.26')).toEqual({ major: 1, minor: 26, patch: 0 });
    expect(parseGoVersion('go1.27rc1')).toEqual({ major: 1, minor: 27, patch: -1 });
  });
  it('decides whether a toolchain can build a module', () => {
    expect(goSatisfies('go1.26.8', '1.26.0')).toBe(true);
    expect(goSatisfies('go1.26.0', '1.26.0')).toBe(true);
    expect(goSatisfies('go1.25.9', '1.26.0')).toBe(false);
    expect(goSatisfies('go1.27rc1', '1.27.0')).toBe(false);
  });
});

describe('binary --version output', () => {
  it('reads the Kubernetes version from kube-apiserver', () => {
    expect(parseApiserverVersionOutput('Kubernetes v1.37.1\n')).toBe('1.37.1');
    expect(parseApiserverVersionOutput('Kubernetes v0.0.0-master+$Format:%H$')).toBe('0.0.0');
    expect(parseApiserverVersionOutput('usage: ...')).toBeUndefined();
  });
  it('reads the etcd version', () => {
    expect(parseEtcdVersionOutput('etcd Version: 3.6.12\nGit SHA: GitNotFound\nGo Version: go1.26.8\n')).toBe('3.6.12');
  });
});

describe('parseVersionRequest', () => {
  it('reads nothing, latest, selectors and the "check the index" suffix', () => {
    expect(parseVersionRequest(undefined)).toEqual({ kind: 'default' });
    expect(parseVersionRequest('')).toEqual({ kind: 'default' });
    expect(parseVersionRequest('latest')).toEqual({ kind: 'latest' });
    expect(parseVersionRequest('1.37')).toEqual({
      kind: 'selector',
      version: { major: 1, minor: 37 },
      checkIndex: false,
    });
    expect(parseVersionRequest('v1.36.2!')).toEqual({
      kind: 'selector',
      version: { major: 1, minor: 36, patch: 2 },
      checkIndex: true,
    });
  });
  it('rejects anything else, saying what is accepted', () => {
    expect(() => parseVersionRequest('newest')).toThrow(
      'invalid version "newest": expected latest, MAJOR.MINOR.PATCH or MAJOR.MINOR',
    );
  });
});
