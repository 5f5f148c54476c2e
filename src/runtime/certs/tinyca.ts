/**
 * Every certificate kubescaffold makes: a throwaway certificate authority that issues serving and client
 * certificates (as envtest's TinyCA and controller-runtime's self-signed serving certificates), on node:crypto alone.
 * Keys are ECDSA P-256 and signatures ECDSA with SHA-256, as envtest's.
 */
import type { KeyObject } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  namedBits,
  nullValue,
  octetString,
  oid,
  pem,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
  type Der,
} from './der.js';
import { ConfigurationError } from '../errors.js';
import { crypto, net } from '../internal/builtins.js';

const { createHash, generateKeyPairSync, randomBytes, sign } = crypto;
const { isIP } = net;

const DAY = 24 * 3600 * 1000;
// Backdated so that a peer whose clock runs a little behind still accepts a certificate made just now.
const BACKDATE = 5 * 60 * 1000;

const OID = {
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

// KeyUsage bit numbers (RFC 5280 §4.2.1.3).
const DIGITAL_SIGNATURE = 0;
const KEY_ENCIPHERMENT = 2;
const KEY_CERT_SIGN = 5;

/** A PEM certificate and its PKCS#8 private key. */
export interface CertAndKey {
  /** The certificate, PEM. */
  certPem: string;
  /** Its private key, PKCS#8 PEM. */
  keyPem: string;
}

/** Who a certificate names: its Subject. */
export interface CertificateName {
  /** CN=, e.g. the admin user's name or a server's host name. */
  commonName: string;
  /** O= attributes, e.g. system:masters for a Kubernetes admin. */
  organizations?: readonly string[];
}

/** What a leaf certificate is for. */
export interface LeafOptions extends CertificateName {
  /** DNS names for its subjectAltName. */
  dnsNames?: readonly string[];
  /** IPv4 and IPv6 addresses for its subjectAltName. */
  ipAddresses?: readonly string[];
  /** TLS server, TLS client, or both. */
  usage: 'server' | 'client' | 'server+client';
  /** Validity from now; default 365 days. */
  validDays?: number;
  /**
   * selfSignedCert only: an RSA key of this many bits (e.g. 4096, for a key that also encrypts, as sealing keys do)
   * instead of the default ECDSA P-256 key; the certificate is then signed with SHA-256 and RSA.
   */
  rsaModulusLength?: number;
}

/** A fresh ECDSA P-256 key pair, as PEM: PKCS#8 private key and SPKI public key. */
export function newKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A self-signed certificate authority that issues leaf certificates. */
export class TinyCA {
  private constructor(
    /** The CA certificate (PEM): what clients trust, and what goes into a caBundle. */
    readonly certPem: string,
    private readonly name: Der,
    private readonly key: KeyObject,
    private readonly keyId: Buffer,
  ) {}

  /** A new CA valid for `validDays` (default 10 years). */
  static create(name: CertificateName, validDays = 3650): TinyCA {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const subject = encodeName(name);
    const keyId = subjectKeyId(publicKey);
    const der = buildCertificate({
      subject,
      issuer: subject,
      publicKey,
      signingKey: privateKey,
      validDays,
      extensions: [
        extension(OID.basicConstraints, true, sequence(boolean(true))),
        extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE, KEY_ENCIPHERMENT, KEY_CERT_SIGN])),
        extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
      ],
    });
    return new TinyCA(pem('CERTIFICATE', der), subject, privateKey, keyId);
  }

  /** The CA's private key (PKCS#8 PEM), for a signer that needs it (e.g. kube-controller-manager). */
  get keyPem(): string {
    return this.key.export({ type: 'pkcs8', format: 'pem' }).toString();
  }

  /** Issues a leaf certificate for a fresh key. */
  issue(opts: LeafOptions): CertAndKey {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const der = buildCertificate({
      subject: encodeName(opts),
      issuer: this.name,
      publicKey,
      signingKey: this.key,
      validDays: opts.validDays ?? 365,
      extensions: [
        ...leafExtensions(opts),
        extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, this.keyId))),
      ],
    });
    return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }
}

/** A leaf certificate signed by its own key, as controller-runtime's metrics server makes when given none. */
export function selfSignedCert(opts: LeafOptions): CertAndKey {
  const { privateKey, publicKey } =
    opts.rsaModulusLength === undefined
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      : generateKeyPairSync('rsa', { modulusLength: opts.rsaModulusLength });
  const name = encodeName(opts);
  const der = buildCertificate({
    subject: name,
    issuer: name,
    publicKey,
    signingKey: privateKey,
    validDays: opts.validDays ?? 365,
    extensions: leafExtensions(opts),
  });
  return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function leafExtensions(opts: LeafOptions): Der[] {
  const purposes =
    opts.usage === 'server'
      ? [OID.serverAuth]
      : opts.usage === 'client'
        ? [OID.clientAuth]
        : [OID.serverAuth, OID.clientAuth];
  const out = [
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE, KEY_ENCIPHERMENT])),
    extension(OID.extKeyUsage, false, sequence(...purposes.map(oid))),
  ];
  const names = [
    ...[...new Set(opts.dnsNames ?? [])]
      .filter((n) => n !== '')
      .map((n) => implicitPrimitive(2, Buffer.from(n, 'ascii'))),
    ...[...new Set(opts.ipAddresses ?? [])].map((ip) => implicitPrimitive(7, ipBytes(ip))),
  ];
  if (names.length > 0) out.push(extension(OID.subjectAltName, false, sequence(...names)));
  return out;
}

interface CertificateParts {
  subject: Der;
  issuer: Der;
  publicKey: KeyObject;
  signingKey: KeyObject;
  validDays: number;
  extensions: Der[];
}

function buildCertificate(p: CertificateParts): Buffer {
  const now = Date.now();
  // RSA's AlgorithmIdentifier carries an explicit NULL parameter (RFC 4055 §5); ECDSA's has none (RFC 5758 §3.2).
  const algorithm =
    p.signingKey.asymmetricKeyType === 'rsa'
      ? sequence(oid(OID.sha256WithRSAEncryption), nullValue())
      : sequence(oid(OID.ecdsaWithSHA256));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serialNumber()),
    algorithm,
    p.issuer,
    sequence(time(new Date(now - BACKDATE)), time(new Date(now + p.validDays * DAY))),
    p.subject,
    p.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...p.extensions)),
  );
  // ECDSA signatures come DER-encoded (dsaEncoding 'der' is node's default), as X.509 wants them; RSA's PKCS#1 v1.5.
  return sequence(tbs, algorithm, bitString(sign('sha256', tbs, p.signingKey)));
}

function extension(id: string, critical: boolean, value: Der): Der {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

function encodeName(n: CertificateName): Der {
  const rdn = (type: string, value: string): Der => set(sequence(oid(type), utf8String(value)));
  return sequence(...(n.organizations ?? []).map((o) => rdn(OID.organization, o)), rdn(OID.commonName, n.commonName));
}

// RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits (the uncompressed EC point).
function subjectKeyId(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
  return createHash('sha1').update(point).digest();
}

// A positive 127-bit serial: random, as RFC 5280 recommends, and never zero.
function serialNumber(): Buffer {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b;
}

/** The 4 or 16 bytes of an IP address, for an iPAddress subjectAltName. */
export function ipBytes(ip: string): Buffer {
  const family = isIP(ip);
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  if (family !== 6) throw new ConfigurationError(`not an IP address: ${ip}`);
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two hex words, then '::' expands to the missing zeros.
  const text = ip
    .replace(/%.*$/, '')
    .replace(
      /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
      (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`,
    );
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const out = Buffer.alloc(16);
  words.forEach((w, i) => out.writeUInt16BE(w, i * 2));
  return out;
}
