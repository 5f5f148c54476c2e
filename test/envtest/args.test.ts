import { describe, expect, it } from 'vitest';
import { apiserverArgs } from '../../src/envtest/controlplane/apiserver.js';
import { checkAPIServerFlags, RESERVED_APISERVER_FLAGS } from '../../src/envtest/controlplane/apiserver-flags.js';
import { EnvtestError, TestEnvironment } from '../../src/envtest/index.js';
import { etcdArgs } from '../../src/envtest/controlplane/etcd.js';

describe('control plane flags', () => {
  it("gives kube-apiserver envtest's flags, sorted, with user overrides winning", () => {
    const args = apiserverArgs({
      binary: 'x',
      certDir: '/c',
      port: 6443,
      etcdURL: 'http://127.0.0.1:2379',
      flags: { 'authorization-mode': 'RBAC,Node', v: '2' },
    });
    expect(args).toEqual([
      '--allow-privileged=true',
      '--authorization-mode=RBAC,Node',
      '--bind-address=127.0.0.1',
      '--cert-dir=/c',
      '--client-ca-file=/c/client-cert-auth-ca.crt',
      '--disable-admission-plugins=ServiceAccount',
      '--etcd-servers=http://127.0.0.1:2379',
      '--secure-port=6443',
      '--service-account-issuer=https://127.0.0.1:6443/',
      '--service-account-key-file=/c/sa-signer.pub',
      '--service-account-signing-key-file=/c/sa-signer.key',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--v=2',
    ]);
  });

  it('lets the caller override every default but the port, certificates and etcd that envtest needs for itself', async () => {
    expect(Object.keys(RESERVED_APISERVER_FLAGS).sort()).toEqual([
      'cert-dir',
      'client-ca-file',
      'etcd-servers',
      'secure-port',
    ]);
    expect(() =>
      checkAPIServerFlags({ 'authorization-mode': 'RBAC,Node', 'bind-address': '0.0.0.0', 'feature-gates': 'A=true' }),
    ).not.toThrow();
    for (const name of Object.keys(RESERVED_APISERVER_FLAGS)) {
      expect(() => checkAPIServerFlags({ [name]: 'x' })).toThrow(
        new EnvtestError(`envtest sets --${name} itself: ${RESERVED_APISERVER_FLAGS[name]}`),
      );
    }
    expect(() => checkAPIServerFlags({ '--v': '2' })).toThrow(/without their dashes .*"--v"/);
    expect(() => checkAPIServerFlags({ '': '2' })).toThrow(/without their dashes/);
    // TestEnvironment.start refuses them before it looks for binaries or starts anything.
    await expect(
      TestEnvironment.start({ apiServerFlags: { 'secure-port': '6443' }, binaryAssetsDirectory: '/nonexistent' }),
    ).rejects.toThrow('envtest sets --secure-port itself');
  });

  it('adds an advertise address only when one is needed', () => {
    expect(apiserverArgs({ binary: 'x', certDir: '/c', port: 1, etcdURL: 'e' }, '192.0.2.9')).toContain(
      '--advertise-address=192.0.2.9',
    );
  });

  it('runs etcd on loopback only, without fsync', () => {
    const args = etcdArgs({ binary: 'etcd', dataDir: '/d', clientPort: 1000, peerPort: 1001 });
    expect(args).toEqual(
      expect.arrayContaining([
        '--data-dir=/d',
        '--listen-client-urls=http://127.0.0.1:1000',
        '--advertise-client-urls=http://127.0.0.1:1000',
        '--listen-peer-urls=http://127.0.0.1:1001',
        '--unsafe-no-fsync=true',
      ]),
    );
    expect(args.join(' ')).not.toMatch(/0\.0\.0\.0|localhost/);
  });
});
