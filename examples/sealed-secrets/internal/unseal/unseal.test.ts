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

import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SealedSecretNamespaceWideAnnotation, SealedSecretSkipSetOwnerReferencesAnnotation } from '../../api/v1alpha1/scope.js';
import type { SealedSecret } from '../../api/v1alpha1/sealedsecret_types.js';
import { decodeStdBase64 } from '../crypto/base64.js';
import { hybridDecrypt, hybridEncrypt, publicKeyFingerprint } from '../crypto/hybrid.js';
import { sealValue } from '../crypto/seal.js';
import { renderTemplate } from './template.js';
import { formatTaggedErrors, unseal } from './unseal.js';

const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function sealed(meta: SealedSecret['metadata'], values: Record<string, string>, spec: Partial<SealedSecret['spec']> = {}): SealedSecret {
  const encryptedData = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, sealValue(key.publicKey, meta ?? {}, v)]));
  return { apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', metadata: { uid: 'u-1', ...meta }, spec: { encryptedData, ...spec } };
}

describe('the hybrid scheme', () => {
  it('opens what it sealed, with the same label, and with no other key or label', () => {
    const box = hybridEncrypt(key.publicKey, Buffer.from('s3cr3t'), Buffer.from('ns/name'));
    expect(hybridDecrypt([other.privateKey, key.privateKey], box, Buffer.from('ns/name')).toString()).toBe('s3cr3t');
    expect(() => hybridDecrypt([other.privateKey], box, Buffer.from('ns/name'))).toThrow('no key could decrypt secret');
    expect(() => hybridDecrypt([key.privateKey], box, Buffer.from('ns/other'))).toThrow('no key could decrypt secret');
    expect(() => hybridDecrypt([key.privateKey], box.subarray(0, 10), Buffer.from('ns/name'))).toThrow('no key could decrypt secret');
  });

  it('names a key by its SSH SHA-256 fingerprint, as ssh-keygen prints it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sealed-secrets-fingerprint-'));
    try {
      const pemFile = join(dir, 'key.pem');
      writeFileSync(pemFile, key.publicKey.export({ type: 'spki', format: 'pem' }));
      const sshFile = join(dir, 'key.pub');
      writeFileSync(sshFile, execFileSync('ssh-keygen', ['-i', '-m', 'PKCS8', '-f', pemFile], { encoding: 'utf8' }));
      const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', sshFile], { encoding: 'utf8' });
      expect(printed.split(' ')[1]).toBe(publicKeyFingerprint(key.publicKey));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("decodes base64 as Go's StdEncoding does, errors included", () => {
    expect(decodeStdBase64('aGk=\n').toString()).toBe('hi');
    expect(() => decodeStdBase64('a*Gk=')).toThrow('illegal base64 data at input byte 1');
    expect(() => decodeStdBase64('aGk')).toThrow('illegal base64 data at input byte 0');
  });
});

describe('unseal', () => {
  it('makes the Secret of the template, with the unsealed data, owned by its SealedSecret', () => {
    const ss = sealed({ name: 'db', namespace: 'prod' }, { password: 'hunter2' }, {
      template: { type: 'Opaque', metadata: { labels: { app: 'db' }, annotations: { team: 'a' } }, immutable: true },
    });
    expect(unseal(ss, [key.privateKey], { acceptV1Data: true })).toEqual({
      metadata: {
        name: 'db',
        namespace: 'prod',
        labels: { app: 'db' },
        annotations: { team: 'a' },
        ownerReferences: [{ apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', name: 'db', uid: 'u-1', controller: true }],
      },
      type: 'Opaque',
      immutable: true,
      data: { password: b64('hunter2') },
    });
  });

  it('opens a value only where its scope allows: renamed, a strict one fails; a namespace-wide one does not', () => {
    const strict = sealed({ name: 'db', namespace: 'prod' }, { password: 'x' });
    strict.metadata!.name = 'db2';
    expect(() => unseal(strict, [key.privateKey], { acceptV1Data: true })).toThrow('no key could decrypt secret (password)');
    const wide = sealed({ name: 'db', namespace: 'prod', annotations: { [SealedSecretNamespaceWideAnnotation]: 'true' } }, { password: 'x' });
    wide.metadata!.name = 'db2';
    expect(unseal(wide, [key.privateKey], { acceptV1Data: true }).data).toEqual({ password: b64('x') });
  });

  it("renders template data over the unsealed values, and drops a key set to null", () => {
    const ss = sealed({ name: 'db', namespace: 'prod' }, { user: 'admin', password: 'p', token: 't' }, {
      template: { data: { dsn: 'postgres://{{ .user }}:{{ index . "password" }}@db', token: null as unknown as string } },
    });
    expect(unseal(ss, [key.privateKey], { acceptV1Data: true }).data).toEqual({
      user: b64('admin'),
      password: b64('p'),
      dsn: b64('postgres://admin:p@db'),
    });
  });

  it('sets no owner reference when the template asks not to', () => {
    const ss = sealed({ name: 'db', namespace: 'prod' }, { a: 'b' }, {
      template: { metadata: { annotations: { [SealedSecretSkipSetOwnerReferencesAnnotation]: 'true' } } },
    });
    expect(unseal(ss, [key.privateKey], { acceptV1Data: true }).metadata?.ownerReferences).toBeUndefined();
  });

  it('opens the deprecated whole-Secret data only when accepted', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'prod' }, data: { a: b64('b') } };
    const data = hybridEncrypt(key.publicKey, Buffer.from(JSON.stringify(secret)), Buffer.from('prod/db')).toString('base64');
    const ss: SealedSecret = { metadata: { name: 'db', namespace: 'prod', uid: 'u' }, spec: { data, encryptedData: {} } };
    expect(unseal(ss, [key.privateKey], { acceptV1Data: true }).data).toEqual({ a: b64('b') });
    expect(() => unseal(ss, [key.privateKey], { acceptV1Data: false })).toThrow("using deprecated 'data' field");
  });

  it("words the errors of several keys as Go's multierror does", () => {
    expect(
      formatTaggedErrors([
        { message: 'no key could decrypt secret', tag: 'a' },
        { message: 'illegal base64 data at input byte 3', tag: 'b' },
        { message: 'no key could decrypt secret', tag: 'c' },
      ]),
    ).toBe('no key could decrypt secret (a, c); illegal base64 data at input byte 3 (b)');
  });
});

describe('renderTemplate', () => {
  it("prints values, trims as Go's {{- -}} do, and prints <no value> for a missing one", () => {
    expect(renderTemplate('a {{- .x -}} b {{.missing}}', { x: '1' })).toBe('a1b <no value>');
  });

  it('refuses actions this port does not render', () => {
    expect(() => renderTemplate('{{ .x | upper }}', { x: '1' })).toThrow('unsupported action');
  });
});
