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

import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isTerminalError, newLogger, type KubeObject, type ReconcileContext } from '@kubescaffold/runtime';
import { FakeClient } from '@kubescaffold/runtime/fake';
import { Secrets } from '@kubescaffold/runtime/rest';
import { SealedSecretReconciler, type SealedSecretReconcilerOptions } from './sealedsecret_controller.js';
import type { SealedSecret } from '../../api/v1alpha1/sealedsecret_types.js';
import { SealedSecretResource } from '../../api/v1alpha1/zz_generated.resources.js';
import { sealValue } from '../crypto/seal.js';
import { KeyRegistry } from '../keys/registry.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler on an in-memory fake client: no control plane, milliseconds each. The fake keeps
// the API server's resourceVersions, status subresource and finalizers, but runs no webhooks, schema validation or
// garbage collection: sealedsecret_controller.test.ts runs the reconciler against a real API server for those.
describe('SealedSecretReconciler on a fake client', () => {
  const namespace = 'default';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keys = new KeyRegistry();
  keys.register({ secretName: 'sealed-secrets-keyabcde', privateKey, certPem: '', orderingTime: new Date(0) });
  const now = new Date('2026-12-07T10:00:00.123Z');
  const options: SealedSecretReconcilerOptions = { updateStatus: true, acceptV1Data: true, skipRecreate: false, maxRetries: 1, now: () => now };

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'sealedsecret',
  });

  function setup(opts: SealedSecretReconcilerOptions = options) {
    const client = new FakeClient({ statusSubresource: [SealedSecretResource] });
    const events: string[] = [];
    const recorder = { event: (obj: KubeObject, type: string, reason: string, message: string) => events.push(`${type} ${reason} ${obj.metadata?.name}: ${message}`) };
    const reconciler = new SealedSecretReconciler({ client, apiReader: client, recorder, keys }, opts);
    return { client, events, reconciler };
  }

  const sealedSecret = (name: string, values: Record<string, string>): SealedSecret => {
    const meta = { name, namespace };
    return {
      apiVersion: 'bitnami.com/v1alpha1',
      kind: 'SealedSecret',
      metadata: meta,
      spec: { encryptedData: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, sealValue(publicKey, meta, v)])) },
    };
  };

  it('unseals into an owned Secret, sets Synced=True and records Unsealed', async () => {
    const { client, events, reconciler } = setup();
    const ss = await client.create(SealedSecretResource, sealedSecret('db', { password: 'hunter2' }));
    await expect(reconciler.reconcile({ namespace, name: 'db' }, context())).resolves.toEqual({});

    const secret = await client.get(Secrets, { namespace, name: 'db' });
    expect(secret.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    expect(secret.metadata?.ownerReferences).toEqual([
      { apiVersion: 'bitnami.com/v1alpha1', kind: 'SealedSecret', name: 'db', uid: ss.metadata?.uid, controller: true },
    ]);
    const { status } = await client.get(SealedSecretResource, { namespace, name: 'db' });
    expect(status).toEqual({
      observedGeneration: 1,
      conditions: [{ type: 'Synced', status: 'True', lastUpdateTime: '2026-12-07T10:00:00Z', lastTransitionTime: '2026-12-07T10:00:00Z' }],
    });
    expect(events).toEqual(['Normal Unsealed db: SealedSecret unsealed successfully']);
  });

  it('sets Synced=False with the error and records ErrUnsealFailed when no key opens a value, then gives up', async () => {
    const { client, events, reconciler } = setup();
    const ss = sealedSecret('db', { password: 'x' });
    ss.spec.encryptedData.token = sealValue(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey, ss.metadata!, 'y');
    await client.create(SealedSecretResource, ss);

    // Retried (maxRetries: 1), then dropped until the SealedSecret changes.
    const first = await reconciler.reconcile({ namespace, name: 'db' }, context()).catch((err: unknown) => err);
    expect(isTerminalError(first)).toBe(false);
    const second = await reconciler.reconcile({ namespace, name: 'db' }, context()).catch((err: unknown) => err);
    expect(isTerminalError(second)).toBe(true);

    const { status } = await client.get(SealedSecretResource, { namespace, name: 'db' });
    expect(status?.conditions).toEqual([
      { type: 'Synced', status: 'False', message: 'no key could decrypt secret (token)', lastUpdateTime: '2026-12-07T10:00:00Z', lastTransitionTime: '2026-12-07T10:00:00Z' },
    ]);
    expect(events).toEqual([
      'Warning ErrUnsealFailed db: Failed to unseal: no key could decrypt secret (token)',
      'Warning ErrUnsealFailed db: Failed to unseal: no key could decrypt secret (token)',
    ]);
    await expect(client.get(Secrets, { namespace, name: 'db' })).rejects.toThrow();
  });

  it('leaves a Secret it does not manage alone, and says so', async () => {
    const { client, events, reconciler } = setup();
    await client.create(Secrets, { metadata: { name: 'db', namespace }, data: { mine: 'eA==' } });
    await client.create(SealedSecretResource, sealedSecret('db', { password: 'x' }));
    await expect(reconciler.reconcile({ namespace, name: 'db' }, context())).rejects.toThrow(
      'failed update: Resource "db" already exists and is not managed by SealedSecret',
    );
    expect((await client.get(Secrets, { namespace, name: 'db' })).data).toEqual({ mine: 'eA==' });
    expect(events).toEqual(['Warning ErrUpdateFailed db: Resource "db" already exists and is not managed by SealedSecret']);
  });

  it('adds its keys to a Secret annotated to be patched, keeping the others', async () => {
    const { client, reconciler } = setup();
    await client.create(Secrets, {
      metadata: { name: 'db', namespace, annotations: { 'sealedsecrets.bitnami.com/patch': 'true' } },
      data: { mine: 'eA==' },
    });
    await client.create(SealedSecretResource, sealedSecret('db', { password: 'x' }));
    await expect(reconciler.reconcile({ namespace, name: 'db' }, context())).resolves.toEqual({});
    expect((await client.get(Secrets, { namespace, name: 'db' })).data).toEqual({ mine: 'eA==', password: 'eA==' });
  });

  it('writes no status with --update-status=false', async () => {
    const { client, reconciler } = setup({ ...options, updateStatus: false });
    await client.create(SealedSecretResource, sealedSecret('db', { password: 'x' }));
    await reconciler.reconcile({ namespace, name: 'db' }, context());
    expect((await client.get(SealedSecretResource, { namespace, name: 'db' })).status).toBeUndefined();
  });

  it('does nothing for a SealedSecret that no longer exists', async () => {
    const { reconciler } = setup();
    await expect(reconciler.reconcile({ namespace, name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
