import { webcrypto } from 'node:crypto';
import { hostname } from 'node:os';
import * as x509 from '@peculiar/x509';

/** A PEM certificate and PKCS#8 key. */
export interface CertKeyPair {
  cert: string;
  key: string;
}

/**
 * A self-signed serving certificate for localhost, 127.0.0.1, ::1 and the host name, valid one year; what
 * controller-runtime's secure metrics server generates when it is given no certificate. Scrapers must skip
 * verification (insecureSkipVerify) unless a real certificate is mounted.
 */
export async function generateSelfSignedCert(extraNames: string[] = []): Promise<CertKeyPair> {
  type X509Crypto = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1];
  type X509Keys = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];
  const crypto = webcrypto;
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const host = hostname();
  const dns = [...new Set(['localhost', host, ...extraNames.filter((n) => !/^[\d.:]+$/.test(n))])];
  const ips = ['127.0.0.1', '::1', ...extraNames.filter((n) => /^[\d.:]+$/.test(n))];
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
      name: `CN=${host}@${Math.floor(notBefore.getTime() / 1000)}`,
      notBefore,
      notAfter: new Date(notBefore.getTime() + 365 * 24 * 3600 * 1000),
      signingAlgorithm: alg,
      keys: keys as unknown as X509Keys,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...dns.map((value) => ({ type: 'dns' as const, value })),
          ...ips.map((value) => ({ type: 'ip' as const, value })),
        ]),
      ],
    },
    crypto as unknown as X509Crypto,
  );
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(pkcs8).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n?$/, '\n')}-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem'), key };
}
