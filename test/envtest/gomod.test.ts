import { describe, expect, it } from 'vitest';
import {
  apiserverWrapperGoMod,
  etcdWrapperGoMod,
  goDirective,
  parseKubernetesGoMod,
} from '../../src/envtest/binaries/gomod.js';

// The shape of k8s.io/kubernetes' go.mod (abridged from v1.37.1).
const KK_GOMOD = `// This is a generated file. Do not edit directly.

module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
	github.com/blang/semver/v4 v4.0.0
	go.etcd.io/etcd/client/v3 v3.7.0
	k8s.io/api v0.0.0
	k8s.io/apiextensions-apiserver v0.0.0
	k8s.io/apimachinery v0.0.0
	k8s.io/klog/v2 v2.140.0
	k8s.io/kube-openapi v0.0.0-20260721132016-d427ff9ee9ad
	k8s.io/utils v0.0.0-20260626114624-be93311217bd
)

require (
	github.com/kylelemons/godebug v1.1.0 // indirect
	k8s.io/cri-streaming v0.0.0 // indirect
	k8s.io/api v0.0.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/apiextensions-apiserver => ./staging/src/k8s.io/apiextensions-apiserver
	k8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
	k8s.io/cri-streaming => ./staging/src/k8s.io/cri-streaming
)
`;

describe('parseKubernetesGoMod', () => {
  it('lists each staging module required at v0.0.0 once, sorted', () => {
    expect(parseKubernetesGoMod(KK_GOMOD).stagingModules).toEqual([
      'k8s.io/api',
      'k8s.io/apiextensions-apiserver',
      'k8s.io/apimachinery',
      'k8s.io/cri-streaming',
    ]);
  });
  it('ignores pseudo-versions and non-staging v0.0.0 look-alikes', () => {
    const mod = parseKubernetesGoMod(KK_GOMOD);
    expect(mod.stagingModules).not.toContain('k8s.io/kube-openapi');
    expect(mod.stagingModules).not.toContain('k8s.io/utils');
  });
  it('reads the go directive and godebug settings, in single-line and block form', () => {
    expect(parseKubernetesGoMod(KK_GOMOD)).toMatchObject({ goVersion: '1.26.0', godebug: ['default=go1.26'] });
    const block =
      'module k8s.io/kubernetes\ngo 1.24.0\ngodebug (\n\tdefault=go1.24\n\twinsymlink=0\n)\nrequire k8s.io/api v0.0.0\n';
    expect(parseKubernetesGoMod(block)).toEqual({
      goVersion: '1.24.0',
      godebug: ['default=go1.24', 'winsymlink=0'],
      stagingModules: ['k8s.io/api'],
    });
  });
  it('rejects a go.mod without staging requirements', () => {
    expect(() => parseKubernetesGoMod('module x\n\ngo 1.26.0\n')).toThrow(/no staging module/);
  });
});

describe('wrapper go.mod files', () => {
  it('requires k8s.io/kubernetes and points every staging module at its published version', () => {
    const text = apiserverWrapperGoMod({ major: 1, minor: 37, patch: 1 }, parseKubernetesGoMod(KK_GOMOD));
    expect(text).toBe(
      [
        'module example.local/kube-apiserver-build',
        '',
        'go 1.26.0',
        '',
        'godebug default=go1.26',
        '',
        'require k8s.io/kubernetes v1.37.1',
        '',
        'replace (',
        '\tk8s.io/api => k8s.io/api v0.37.1',
        '\tk8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.37.1',
        '\tk8s.io/apimachinery => k8s.io/apimachinery v0.37.1',
        '\tk8s.io/cri-streaming => k8s.io/cri-streaming v0.37.1',
        ')',
        '',
      ].join('\n'),
    );
  });
  it('builds etcd from its server module without replaces', () => {
    expect(etcdWrapperGoMod('1.25.0', '3.6.12')).toBe(
      'module example.local/etcd-build\n\ngo 1.25.0\n\nrequire go.etcd.io/etcd/server/v3 v3.6.12\n',
    );
    expect(goDirective('module go.etcd.io/etcd/server/v3\n\ngo 1.25.0\n\ntoolchain go1.25.5\n')).toBe('1.25.0');
  });
});
