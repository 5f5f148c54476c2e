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

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newLogger } from '@kubescaffold/runtime';
import { FakeClient } from '@kubescaffold/runtime/fake';
import { Secrets } from '@kubescaffold/runtime/rest';
import { parseGoDuration } from './duration.js';
import { generateKey, loadKeyRegistry, SEALED_SECRETS_KEY_LABEL, type KeyOptions } from './registry.js';

const log = newLogger({ sink: (line) => console.log(line) }).withName('test');
const options: KeyOptions = {
  namespace: 'kube-system',
  prefix: 'sealed-secrets-key',
  keySize: 2048,
  validForMs: parseGoDuration('87600h'),
  commonName: '',
  order: 'CertNotBefore',
};

describe('the key registry', () => {
  it('writes a new key as a labelled kubernetes.io/tls Secret with a PKCS#1 key, which a restart reads back', async () => {
    const client = new FakeClient();
    const registry = await loadKeyRegistry(client, options, log);
    expect(registry.size).toBe(0);

    const made = await generateKey(client, registry, options, log);
    expect(made.secretName).toMatch(/^sealed-secrets-key[a-z0-9]{5}$/);
    const secret = await client.get(Secrets, { namespace: 'kube-system', name: made.secretName });
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(secret.metadata?.labels).toEqual({ [SEALED_SECRETS_KEY_LABEL]: 'active' });
    const keyPem = Buffer.from(secret.data?.['tls.key'] ?? '', 'base64').toString();
    expect(keyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const cert = new X509Certificate(Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64'));
    expect(cert.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    expect(Date.parse(cert.validTo) - Date.now()).toBeGreaterThan(3649 * 24 * 3600 * 1000);

    const reread = await loadKeyRegistry(client, options, log);
    expect(reread.size).toBe(1);
    expect(reread.latest()?.fingerprint).toBe(made.fingerprint);
  });

  it('reads the legacy Secret named as the prefix too, and takes the newest key as the one that seals', async () => {
    // Ordered by the Secrets' creation, on a clock that moves a minute between the two keys.
    let now = new Date('2026-01-01T00:00:00Z');
    const client = new FakeClient({ clock: () => now });
    const byCreation: KeyOptions = { ...options, order: 'SecretCreationTimestamp' };
    const first = await generateKey(client, await loadKeyRegistry(client, byCreation, log), byCreation, log);
    // An older release's key: named exactly as the prefix, unlabelled.
    const old = await client.get(Secrets, { namespace: 'kube-system', name: first.secretName });
    await client.create(Secrets, { metadata: { namespace: 'kube-system', name: 'sealed-secrets-key' }, type: old.type, data: old.data });
    await client.delete(Secrets, { namespace: 'kube-system', name: first.secretName });
    now = new Date('2026-01-01T00:01:00Z');
    const second = await generateKey(client, await loadKeyRegistry(client, byCreation, log), byCreation, log);

    const registry = await loadKeyRegistry(client, byCreation, log);
    expect(registry.size).toBe(2);
    expect(registry.latest()?.fingerprint).toBe(second.fingerprint);
    expect(registry.latest()?.secretName).not.toBe('sealed-secrets-key');
  });

  it("parses Go's durations", () => {
    expect(parseGoDuration('720h')).toBe(720 * 3600 * 1000);
    expect(parseGoDuration('1h30m0.5s')).toBe(5400.5 * 1000);
    expect(parseGoDuration('0')).toBe(0);
    expect(() => parseGoDuration('3 days')).toThrow('time: invalid duration "3 days"');
  });
});
