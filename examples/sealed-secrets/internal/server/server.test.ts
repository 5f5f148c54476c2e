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

import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newLogger } from '@kubescaffold/runtime';
import { selfSignedCert } from '@kubescaffold/runtime/certs';
import type { SealedSecret } from '../../api/v1alpha1/sealedsecret_types.js';
import { sealValue } from '../crypto/seal.js';
import { KeyRegistry } from '../keys/registry.js';
import { unseal } from '../unseal/unseal.js';
import { sealingServer } from './server.js';

const log = newLogger({ sink: (line) => console.log(line) }).withName('test');

describe('the HTTP API', () => {
  const made = selfSignedCert({ commonName: 'sealer', usage: 'server', rsaModulusLength: 2048 });
  const keys = new KeyRegistry();
  keys.register({ secretName: 'k1', privateKey: createPrivateKey(made.keyPem), certPem: made.certPem, orderingTime: new Date(0) });
  const server = sealingServer({ keys, acceptV1Data: true, log }, '127.0.0.1:0');
  const stop = new AbortController();
  let running: Promise<void>;
  let base = '';

  beforeAll(async () => {
    running = server.start(stop.signal);
    while (!server.address()) await new Promise((resolve) => setImmediate(resolve));
    base = `http://127.0.0.1:${server.address()!.port}`;
  });
  afterAll(async () => {
    stop.abort();
    await running;
  });

  const sealed = (publicKey: Parameters<typeof sealValue>[0], values: Record<string, string>): SealedSecret => {
    const metadata = { name: 'db', namespace: 'prod' };
    return {
      apiVersion: 'bitnami.com/v1alpha1',
      kind: 'SealedSecret',
      metadata,
      spec: { encryptedData: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, sealValue(publicKey, metadata, v)])) },
    };
  };

  it('serves the newest certificate at /v1/cert.pem', async () => {
    const res = await fetch(`${base}/v1/cert.pem`);
    expect(res.headers.get('content-type')).toBe('application/x-pem-file');
    expect(await res.text()).toBe(made.certPem);
  });

  it('answers /v1/verify with 200 when every value opens, 409 when one does not', async () => {
    const mine = sealed(createPublicKey(keys.latest()!.privateKey), { a: '1' });
    const post = (ss: SealedSecret) => fetch(`${base}/v1/verify`, { method: 'POST', body: JSON.stringify(ss) });
    expect((await post(mine)).status).toBe(200);
    const foreign = sealed(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey, { b: '2' });
    expect((await post({ ...mine, spec: { encryptedData: { ...mine.spec.encryptedData, ...foreign.spec.encryptedData } } })).status).toBe(409);
  });

  it('seals a SealedSecret again for the newest key at /v1/rotate', async () => {
    const old = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keys.register({ secretName: 'k0', privateKey: old.privateKey, certPem: '', orderingTime: new Date(-1) });
    const res = await fetch(`${base}/v1/rotate`, { method: 'POST', body: JSON.stringify(sealed(old.publicKey, { a: '1' })) });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as SealedSecret;
    const secret = unseal({ ...rotated, metadata: { ...rotated.metadata, uid: 'u' } }, [keys.latest()!.privateKey], { acceptV1Data: false });
    expect(secret.data).toEqual({ a: Buffer.from('1').toString('base64') });
  });
});
