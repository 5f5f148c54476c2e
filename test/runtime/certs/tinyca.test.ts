import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { TinyCA, ipBytes, newKeyPair, selfSignedCert } from '../../../src/runtime/certs/tinyca.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

describe('TinyCA', () => {
  const ca = TinyCA.create({ commonName: 'test-ca', organizations: ['kubescaffold'] });
  const caCert = new X509Certificate(ca.certPem);
  const dir = mkdtempSync(join(tmpdir(), 'tinyca-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a self-signed CA certificate that can sign', () => {
    expect(caCert.ca).toBe(true);
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(caCert.subject.split('\n').sort()).toEqual(['CN=test-ca', 'O=kubescaffold']);
    expect(caCert.issuer).toBe(caCert.subject);
    expect(caCert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
    expect(Date.parse(caCert.validTo) - Date.now()).toBeGreaterThan(3649 * 24 * 3600 * 1000);
  });

  it('issues a serving certificate with its DNS names and IPv4/IPv6 addresses, signed by the CA', () => {
    const leaf = ca.issue({
      commonName: 'localhost',
      dnsNames: ['localhost', 'svc.ns.svc'],
      ipAddresses: ['127.0.0.1', '::1'],
      usage: 'server',
    });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkHost('svc.ns.svc')).toBe('svc.ns.svc');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.keyUsage).toEqual([SERVER_AUTH]);
    expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
  });

  it('issues client certificates whose subject carries the organizations (Kubernetes groups)', () => {
    const leaf = ca.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=admin', 'O=system:masters']);
    expect(cert.keyUsage).toEqual([CLIENT_AUTH]);
    expect(cert.subjectAltName).toBeUndefined();
  });

  it('produces certificates that openssl verifies against the CA, with the extensions it names', () => {
    const leaf = ca.issue({
      commonName: 'web',
      dnsNames: ['web.example'],
      ipAddresses: ['10.0.0.1'],
      usage: 'server+client',
    });
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'leaf.pem'), leaf.certPem);
    const verify = execFileSync(
      'openssl',
      ['verify', '-CAfile', join(dir, 'ca.pem'), '-purpose', 'sslserver', join(dir, 'leaf.pem')],
      { encoding: 'utf8' },
    );
    expect(verify.trim()).toBe(`${join(dir, 'leaf.pem')}: OK`);
    const text = execFileSync('openssl', ['x509', '-noout', '-text', '-in', join(dir, 'leaf.pem')], {
      encoding: 'utf8',
    });
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toContain('ecdsa-with-SHA256');
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    expect(text).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Server Authentication, TLS Web Client Authentication/);
    expect(text).toMatch(/DNS:web\.example, IP Address:10\.0\.0\.1/);
    expect(text).toContain('X509v3 Authority Key Identifier');
  });

  it('serves TLS that a client trusting only the CA accepts, and authenticates a client certificate it issued', async () => {
    const serving = ca.issue({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], usage: 'server' });
    const client = ca.issue({ commonName: 'alice', usage: 'client' });
    const server = tls.createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      (s) => {
        s.end(`hello ${s.getPeerCertificate().subject.CN}`);
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = tls.connect({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        ca: ca.certPem,
        cert: client.certPem,
        key: client.keyPem,
      });
      let answer = '';
      socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
      await once(socket, 'end');
      expect(socket.authorized).toBe(true);
      expect(answer).toBe('hello alice');
    } finally {
      server.close();
    }
  });
});

describe('selfSignedCert', () => {
  it('makes a serving certificate signed by its own key', () => {
    const made = selfSignedCert({
      commonName: 'host@1',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    const cert = new X509Certificate(made.certPem);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkPrivateKey(createPrivateKey(made.keyPem))).toBe(true);
  });

  it('makes one for an RSA key of the size asked, signed with SHA-256 and RSA, when rsaModulusLength is given', () => {
    const made = selfSignedCert({ commonName: 'sealer', usage: 'server', rsaModulusLength: 2048 });
    const cert = new X509Certificate(made.certPem);
    const key = createPrivateKey(made.keyPem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(key)).toBe(true);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: made.certPem, encoding: 'utf8' });
    expect(text).toMatch(/Signature Algorithm: sha256WithRSAEncryption/);
  });
});

describe('newKeyPair', () => {
  it('returns a matching P-256 private and public key', () => {
    const { privateKeyPem, publicKeyPem } = newKeyPair();
    const priv = createPrivateKey(privateKeyPem);
    expect(priv.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(createPublicKey(priv).export({ type: 'spki', format: 'pem' })).toBe(publicKeyPem);
  });
});

describe('ipBytes', () => {
  it.each([
    ['127.0.0.1', '7f000001'],
    ['::1', '00000000000000000000000000000001'],
    ['::', '00000000000000000000000000000000'],
    ['fe80::1:2', 'fe800000000000000000000000010002'],
    ['2001:db8:0:0:0:0:2:1', '20010db8000000000000000000020001'],
    ['::ffff:192.0.2.1', '00000000000000000000ffffc0000201'],
    ['1::', '00010000000000000000000000000000'],
  ])('encodes %s', (ip, hex) => {
    expect(ipBytes(ip).toString('hex')).toBe(hex);
  });

  it('refuses what is not an IP address', () => {
    expect(() => ipBytes('localhost')).toThrow(/not an IP address: localhost/);
  });
});
