/*
Copyright 2026 The Sealed Secrets port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// sealed-secrets' KeyRegistry (pkg/controller/keyregistry.go, keys.go and main.go's initKeyRegistry): the sealing
// keys, each an RSA private key with its certificate in a kubernetes.io/tls Secret of the controller's namespace
// labelled sealedsecrets.bitnami.com/sealed-secrets-key=active. Every key can open; the newest seals (kubeseal fetches
// its certificate).

import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { isNotFound, type Client, type k8s, type Logger } from '@kubescaffold/runtime';
import { selfSignedCert } from '@kubescaffold/runtime/certs';
import { Secrets } from '@kubescaffold/runtime/rest';
import { publicKeyFingerprint } from '../crypto/hybrid.js';

/** The label that marks a Secret as holding a sealing key (SealedSecretsKeyLabel). */
export const SEALED_SECRETS_KEY_LABEL = 'sealedsecrets.bitnami.com/sealed-secrets-key';

/** What orders the keys, so that the newest seals: the certificate's NotBefore, or the Secret's creation. */
export type KeyOrderPriority = 'CertNotBefore' | 'SecretCreationTimestamp';

/** One sealing key. */
export interface SealingKey {
  /** The Secret it was read from, or written to. */
  secretName: string;
  privateKey: KeyObject;
  /** Its certificate, PEM (what kubeseal seals for). */
  certPem: string;
  fingerprint: string;
  orderingTime: Date;
}

/** The sealing keys by fingerprint, and the newest of them. */
export class KeyRegistry {
  private readonly keys = new Map<string, SealingKey>();
  private newest: SealingKey | undefined;

  /** Adds a key (registerNewKey); it becomes the newest if it is younger than the newest so far. */
  register(key: Omit<SealingKey, 'fingerprint'>): SealingKey {
    const k = { ...key, fingerprint: publicKeyFingerprint(key.privateKey) };
    this.keys.set(k.fingerprint, k);
    if (!this.newest || this.newest.orderingTime < k.orderingTime) this.newest = k;
    return k;
  }

  /** Reads the key and certificate of a sealing-key Secret and adds them (registryNewKeyWithSecret). */
  registerSecret(secret: k8s.V1Secret, order: KeyOrderPriority): SealingKey {
    const data = secret.data ?? {};
    const privateKey = createPrivateKey(Buffer.from(data['tls.key'] ?? '', 'base64'));
    if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('private key is not an RSA key');
    const certPem = Buffer.from(data['tls.crt'] ?? '', 'base64').toString('utf8');
    const cert = new X509Certificate(certPem);
    const orderingTime =
      order === 'SecretCreationTimestamp' ? new Date(secret.metadata?.creationTimestamp ?? 0) : new Date(cert.validFrom);
    return this.register({ secretName: secret.metadata?.name ?? '', privateKey, certPem, orderingTime });
  }

  /** Every key, to try in turn when opening a value. */
  privateKeys(): KeyObject[] {
    return [...this.keys.values()].map((k) => k.privateKey);
  }

  /** The newest key, or undefined while there is none. */
  latest(): SealingKey | undefined {
    return this.newest;
  }

  /** How many keys there are. */
  get size(): number {
    return this.keys.size;
  }
}

/** Where the keys live and how they are made. */
export interface KeyOptions {
  /** The controller's namespace. */
  namespace: string;
  /** --key-prefix: the generateName of new key Secrets, and the name of a key Secret of old releases. */
  prefix: string;
  /** --key-size, in bits. */
  keySize: number;
  /** --key-ttl: how long a new key's certificate is valid. */
  validForMs: number;
  /** --my-cn: the common name of a new key's certificate. */
  commonName: string;
  /** --key-order-priority. */
  order: KeyOrderPriority;
}

/**
 * The keys already in the cluster (initKeyRegistry): the labelled Secrets, and one named exactly as the prefix, which
 * older releases wrote; registered oldest first by creation, at the second, as Go sorts them.
 */
export async function loadKeyRegistry(reader: Client, opts: KeyOptions, log: Logger): Promise<KeyRegistry> {
  log.info('Searching for existing private keys');
  const list = await reader.list(Secrets, { namespace: opts.namespace, labelSelector: `${SEALED_SECRETS_KEY_LABEL}=active` });
  const items = [...list.items];
  const legacy = await reader.get(Secrets, { namespace: opts.namespace, name: opts.prefix }).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (legacy) items.push(legacy);
  const seconds = (s: k8s.V1Secret): number => Math.floor(new Date(s.metadata?.creationTimestamp ?? 0).getTime() / 1000);
  items.sort((a, b) => seconds(a) - seconds(b));
  const registry = new KeyRegistry();
  for (const secret of items) {
    try {
      registry.registerSecret(secret, opts.order);
      log.info('registered private key', { secretname: secret.metadata?.name });
    } catch (err) {
      log.error(err, 'Error reading key', { secret: secret.metadata?.name });
    }
  }
  return registry;
}

/**
 * Makes a new key and its self-signed certificate, writes them to a new Secret (writeKey) and registers them
 * (generateKey): at start when there is no key, or the newest is older than --key-cutoff-time, and each
 * --key-renew-period.
 */
export async function generateKey(writer: Client, registry: KeyRegistry, opts: KeyOptions, log: Logger): Promise<SealingKey> {
  const { certPem, keyPem } = selfSignedCert({
    commonName: opts.commonName,
    usage: 'server',
    validDays: opts.validForMs / (24 * 3600 * 1000),
    rsaModulusLength: opts.keySize,
  });
  const privateKey = createPrivateKey(keyPem);
  const created = await writer.create(Secrets, {
    metadata: { namespace: opts.namespace, generateName: opts.prefix, labels: { [SEALED_SECRETS_KEY_LABEL]: 'active' } },
    type: 'kubernetes.io/tls',
    data: {
      // PKCS#1, as Go's x509.MarshalPKCS1PrivateKey writes it, so that the original reads the Secret too.
      'tls.key': Buffer.from(privateKey.export({ type: 'pkcs1', format: 'pem' })).toString('base64'),
      'tls.crt': Buffer.from(certPem).toString('base64'),
    },
  });
  const key = registry.register({ secretName: created.metadata?.name ?? '', privateKey, certPem, orderingTime: new Date() });
  log.info('New key written', { namespace: opts.namespace, name: key.secretName });
  return key;
}
