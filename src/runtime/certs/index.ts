/**
 * Certificates made on node:crypto alone, as client-go's util/cert and envtest's TinyCA: a throwaway certificate
 * authority that issues serving and client certificates, and self-signed serving certificates. The manager uses them
 * for its metrics and webhook servers when no certificate is given; envtest uses them for its control plane.
 *
 * @module @kubescaffold/runtime/certs
 */
export {
  TinyCA,
  newKeyPair,
  selfSignedCert,
  type CertAndKey,
  type CertificateName,
  type LeafOptions,
} from './tinyca.js';
