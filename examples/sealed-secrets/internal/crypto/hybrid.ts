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

// sealed-secrets' pkg/crypto: the hybrid scheme every sealed value is written in. A fresh 32-byte AES-256-GCM key
// seals the value (with a zero nonce, as the key is used once); RSA-OAEP with SHA-256 seals that key, with a label
// that pins the value to its scope (namespace/name, the namespace, or nothing). On the wire:
//
//   uint16 big-endian length of the RSA ciphertext || RSA ciphertext || AES-GCM ciphertext and tag

import { constants, createCipheriv, createDecipheriv, createHash, privateDecrypt, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';

const SESSION_KEY_BYTES = 32;
const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;

/** SealedSecret data is too short to be valid (crypto.ErrTooShort). */
export const errTooShort = 'SealedSecret data is too short';

/** Seals `plaintext` for `publicKey` under `label` (crypto.HybridEncrypt); kubeseal's half, used by tests and tools. */
export function hybridEncrypt(publicKey: KeyObject, plaintext: Buffer, label: Buffer): Buffer {
  const sessionKey = randomBytes(SESSION_KEY_BYTES);
  const rsaCiphertext = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256', oaepLabel: label }, sessionKey);
  const cipher = createCipheriv('aes-256-gcm', sessionKey, Buffer.alloc(GCM_NONCE_BYTES));
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(rsaCiphertext.length);
  return Buffer.concat([length, rsaCiphertext, sealed]);
}

/**
 * Opens `ciphertext` with the first of `privateKeys` that can (crypto.HybridDecrypt); throws "no key could decrypt
 * secret" when none can, whatever each key's own failure was, as the original does.
 */
export function hybridDecrypt(privateKeys: Iterable<KeyObject>, ciphertext: Buffer, label: Buffer): Buffer {
  for (const key of privateKeys) {
    const plaintext = singleDecrypt(key, ciphertext, label);
    if (plaintext) return plaintext;
  }
  throw new Error('no key could decrypt secret');
}

function singleDecrypt(privateKey: KeyObject, ciphertext: Buffer, label: Buffer): Buffer | undefined {
  if (ciphertext.length < 2) return undefined;
  const rsaLength = ciphertext.readUInt16BE(0);
  if (ciphertext.length < rsaLength + 2) return undefined;
  try {
    const sessionKey = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256', oaepLabel: label },
      ciphertext.subarray(2, rsaLength + 2),
    );
    const sealed = ciphertext.subarray(rsaLength + 2);
    if (sessionKey.length !== SESSION_KEY_BYTES || sealed.length < GCM_TAG_BYTES) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', sessionKey, Buffer.alloc(GCM_NONCE_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG_BYTES)), decipher.final()]);
  } catch {
    // A wrong key or label fails OAEP's check; tampered data fails GCM's tag: either way, try the next key.
    return undefined;
  }
}

/** The key's SSH SHA-256 fingerprint (crypto.PublicKeyFingerprint), `SHA256:` and unpadded base64, as ssh-keygen -l. */
export function publicKeyFingerprint(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || !jwk.n || !jwk.e) throw new Error('private key is not an RSA key');
  const sshString = (b: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  };
  // An SSH mpint is big-endian two's complement: a leading zero byte keeps a high bit from reading as negative.
  const mpint = (b64url: string): Buffer => {
    const b = Buffer.from(b64url, 'base64url');
    return sshString(b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
  };
  const wire = Buffer.concat([sshString(Buffer.from('ssh-rsa')), mpint(jwk.e), mpint(jwk.n)]);
  return `SHA256:${createHash('sha256').update(wire).digest('base64').replace(/=+$/, '')}`;
}
