import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateControlPlaneCerts } from '../../src/envtest/controlplane/certs.js';

describe('generateControlPlaneCerts', () => {
  const certs = generateControlPlaneCerts();
  const servingCA = new X509Certificate(certs.servingCA);
  const clientCA = new X509Certificate(certs.clientCA);

  it('issues a serving certificate for localhost and 127.0.0.1, signed by the serving CA', () => {
    const serving = new X509Certificate(certs.serving.certPem);
    expect(serving.verify(servingCA.publicKey)).toBe(true);
    expect(serving.checkHost('localhost')).toBe('localhost');
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkPrivateKey(createPrivateKey(certs.serving.keyPem))).toBe(true);
    expect(serving.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    expect(servingCA.ca).toBe(true);
    expect(serving.ca).toBe(false);
  });

  it('issues the admin client certificate (CN=admin, O=system:masters) from a separate client CA', () => {
    const admin = new X509Certificate(certs.admin.certPem);
    expect(admin.subject.split('\n').sort()).toEqual(['CN=admin', 'O=system:masters']);
    expect(admin.verify(clientCA.publicKey)).toBe(true);
    expect(admin.verify(servingCA.publicKey)).toBe(false);
    expect(admin.keyUsage).toContain('1.3.6.1.5.5.7.3.2'); // clientAuth
    expect(admin.checkPrivateKey(createPrivateKey(certs.admin.keyPem))).toBe(true);
  });

  it('makes a service-account signing key pair', () => {
    const priv = createPrivateKey(certs.serviceAccount.keyPem);
    const pub = createPublicKey(certs.serviceAccount.publicKeyPem);
    expect(priv.asymmetricKeyType).toBe('ec');
    expect(createPublicKey(priv).export({ format: 'pem', type: 'spki' })).toBe(
      pub.export({ format: 'pem', type: 'spki' }),
    );
  });
});
