import { hostname } from 'node:os';
import { selfSignedCert } from '../certs/tinyca.js';
import { net } from '../internal/builtins.js';

const { isIP } = net;

/** A PEM certificate and PKCS#8 key. */
export interface CertKeyPair {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PEM. */
  key: string;
}

/**
 * A self-signed serving certificate for localhost, 127.0.0.1, ::1 and the host name, valid one year; what
 * controller-runtime's secure metrics server generates when it is given no certificate. Scrapers must skip
 * verification (insecureSkipVerify) unless a real certificate is mounted.
 */
export function generateSelfSignedCert(extraNames: string[] = []): CertKeyPair {
  const host = hostname();
  const made = selfSignedCert({
    // client-go's certutil names it host@unix-seconds.
    commonName: `${host}@${Math.floor(Date.now() / 1000)}`,
    dnsNames: ['localhost', host, ...extraNames.filter((n) => isIP(n) === 0)],
    ipAddresses: ['127.0.0.1', '::1', ...extraNames.filter((n) => isIP(n) !== 0)],
    usage: 'server',
  });
  return { cert: made.certPem, key: made.keyPem };
}
