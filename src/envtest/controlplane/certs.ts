/**
 * The certificates a control plane needs, as envtest makes them: a serving CA and the apiserver's serving
 * certificate for localhost/127.0.0.1/::1, a separate client CA with an admin certificate (CN=admin,
 * O=system:masters), and a service-account signing key.
 */
import { TinyCA, newKeyPair, type CertAndKey } from '@kubescaffold/runtime/certs';

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

export function generateControlPlaneCerts(): ControlPlaneCerts {
  const servingCA = TinyCA.create({ commonName: 'envtest-environment', organizations: ['envtest'] });
  const clientCA = TinyCA.create({ commonName: 'envtest-client-ca', organizations: ['envtest'] });
  const sa = newKeyPair();
  return {
    servingCA: servingCA.certPem,
    serving: servingCA.issue({
      commonName: 'localhost',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1', '::1'],
      usage: 'server',
    }),
    clientCA: clientCA.certPem,
    admin: clientCA.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' }),
    serviceAccount: { keyPem: sa.privateKeyPem, publicKeyPem: sa.publicKeyPem },
  };
}
