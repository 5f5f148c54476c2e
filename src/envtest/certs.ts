/**
 * The certificates a control plane needs, made the way envtest's TinyCA does (ECDSA P-256):
 * a serving CA and the apiserver's serving certificate for localhost/127.0.0.1, a separate client CA
 * with an admin certificate (CN=admin, O=system:masters), and a service-account signing key.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// @peculiar/x509 needs a WebCrypto implementation; Node's is complete.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;
/** Allows for small clock differences between us and the apiserver's view of "now". */
const BACKDATE = 5 * 60 * 1000;

export interface CertAndKey {
  certPem: string;
  keyPem: string;
}

export interface IssueOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client';
  validDays?: number;
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // keep it positive, as RFC 5280 wants
  return Buffer.from(bytes).toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', key));
}

function subject(cn: string, organizations: string[] = []): x509.JsonName {
  return [{ CN: [cn] }, ...organizations.map((o) => ({ O: [o] }))];
}

/** A self-signed certificate authority that issues leaf certificates. */
export class TinyCA {
  private constructor(
    private readonly cert: x509.X509Certificate,
    private readonly keys: CryptoKeyPair,
  ) {}

  static async create(commonName: string, organization?: string): Promise<TinyCA> {
    const keys = await newKeys();
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name: subject(commonName, organization ? [organization] : []),
      notBefore: new Date(now - BACKDATE),
      notAfter: new Date(now + 3650 * DAY),
      keys,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return new TinyCA(cert, keys);
  }

  get certPem(): string {
    return this.cert.toString('pem') + '\n';
  }

  async keyPem(): Promise<string> {
    return privateKeyPem(this.keys.privateKey);
  }

  /** Issues a leaf certificate with a fresh key. */
  async issue(opts: IssueOptions): Promise<CertAndKey> {
    const keys = await newKeys();
    const now = Date.now();
    const names: x509.JsonGeneralName[] = [
      ...(opts.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
      ...(opts.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ];
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([opts.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(this.cert),
    ];
    if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: subject(opts.commonName, opts.organizations),
      issuer: this.cert.subject,
      notBefore: new Date(now - BACKDATE),
      notAfter: new Date(now + (opts.validDays ?? 365) * DAY),
      publicKey: keys.publicKey,
      signingKey: this.keys.privateKey,
      signingAlgorithm: ALG,
      extensions,
    });
    return { certPem: cert.toString('pem') + '\n', keyPem: await privateKeyPem(keys.privateKey) };
  }
}

export interface ControlPlaneCerts {
  /** CA that signed the serving certificate: what clients trust. */
  servingCA: string;
  /** kube-apiserver's serving certificate for localhost and 127.0.0.1. */
  serving: CertAndKey;
  /** CA for --client-ca-file. */
  clientCA: string;
  /** Admin user: CN=admin, O=system:masters, signed by the client CA. */
  admin: CertAndKey;
  /** Service-account token signing key (private, PKCS#8) and its public key (SPKI). */
  serviceAccount: { keyPem: string; publicKeyPem: string };
}

export async function generateControlPlaneCerts(): Promise<ControlPlaneCerts> {
  const [servingCA, clientCA, saKeys] = await Promise.all([
    TinyCA.create('envtest-environment', 'envtest'),
    TinyCA.create('envtest-client-ca', 'envtest'),
    newKeys(),
  ]);
  const [serving, admin, saKeyPem, saPub] = await Promise.all([
    servingCA.issue({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'], usage: 'server' }),
    clientCA.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' }),
    privateKeyPem(saKeys.privateKey),
    webcrypto.subtle.exportKey('spki', saKeys.publicKey),
  ]);
  return {
    servingCA: servingCA.certPem,
    serving,
    clientCA: clientCA.certPem,
    admin,
    serviceAccount: { keyPem: saKeyPem, publicKeyPem: pem('PUBLIC KEY', saPub) },
  };
}
