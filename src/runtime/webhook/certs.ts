/**
 * A throwaway certificate authority and a serving certificate it signed, for running webhooks outside a cluster:
 * the API server gets the CA as caBundle and verifies the serving certificate against it. Kept in memory and in a
 * temp dir only; a new pair is made on every start.
 */
import { TinyCA } from '../certs/tinyca.js';
import { net } from '../internal/builtins.js';

const { isIP } = net;

/** A generated CA and the serving certificate and key it signed, all PEM. */
export interface LocalServingCert {
  /** The CA certificate (PEM): what goes into caBundle. */
  caPem: string;
  /** The serving certificate (PEM) for the given hosts, signed by the CA. */
  certPem: string;
  /** Its PKCS#8 private key (PEM). */
  keyPem: string;
}

/** A CA (valid 10 years) and a serving certificate (1 year) for `hosts`: DNS names and IP addresses mixed. */
export function generateLocalServingCert(hosts: readonly string[]): LocalServingCert {
  const names = [...new Set(hosts.filter((h) => h !== ''))];
  const ca = TinyCA.create({ commonName: 'kubescaffold-webhook-ca' });
  const serving = ca.issue({
    commonName: names[0] ?? 'localhost',
    dnsNames: names.filter((n) => isIP(n) === 0),
    ipAddresses: names.filter((n) => isIP(n) !== 0),
    usage: 'server',
  });
  return { caPem: ca.certPem, ...serving };
}
