/**
 * A throwaway certificate authority and a serving certificate it signed, for running webhooks outside a cluster:
 * the API server gets the CA as caBundle and verifies the serving certificate against it (ECDSA P-256, as envtest's
 * TinyCA). Kept in memory and in a temp dir only; a new pair is made on every start.
 */
import { isIP } from 'node:net';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type X509Crypto = NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[1]>;
type X509Keys = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;
// Backdated so a client whose clock is a little behind still accepts it.
const BACKDATE = 5 * 60 * 1000;
const crypto = webcrypto as unknown as X509Crypto;

export interface LocalServingCert {
  /** The CA certificate (PEM): what goes into caBundle. */
  caPem: string;
  /** The serving certificate (PEM) for the given hosts, signed by the CA. */
  certPem: string;
  /** Its PKCS#8 private key (PEM). */
  keyPem: string;
}

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive, as RFC 5280 wants
  return Buffer.from(bytes).toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

/** A CA (valid 10 years) and a serving certificate (1 year) for `hosts`: DNS names and IP addresses mixed. */
export async function generateLocalServingCert(hosts: readonly string[]): Promise<LocalServingCert> {
  const names = [...new Set(hosts.filter((h) => h !== ''))];
  const now = Date.now();
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: 'CN=kubescaffold-webhook-ca',
      notBefore: new Date(now - BACKDATE),
      notAfter: new Date(now + 3650 * DAY),
      keys: caKeys as unknown as X509Keys,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey as never, false, crypto),
      ],
    },
    crypto,
  );
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: `CN=${names[0] ?? 'localhost'}`,
      issuer: ca.subject,
      notBefore: new Date(now - BACKDATE),
      notAfter: new Date(now + 365 * DAY),
      publicKey: keys.publicKey as never,
      signingKey: caKeys.privateKey as never,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey as never, false, crypto),
        new x509.SubjectAlternativeNameExtension(
          names.map((value) => (isIP(value) ? { type: 'ip' as const, value } : { type: 'dns' as const, value })),
        ),
      ],
    },
    crypto,
  );
  return {
    caPem: ca.toString('pem') + '\n',
    certPem: cert.toString('pem') + '\n',
    keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}
