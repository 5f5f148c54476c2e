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
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSample, createTestNamespace, sharedTestEnvironment } from '@kubescaffold/envtest';
import { newLogger, newClient, type KubeObject, type ReconcileContext } from '@kubescaffold/runtime';
import { Secrets, type RestClient } from '@kubescaffold/runtime/rest';
import { SealedSecretReconciler } from './sealedsecret_controller.js';
import { SealedSecretResource } from '../../api/v1alpha1/zz_generated.resources.js';
import { sealValue } from '../crypto/seal.js';
import { KeyRegistry } from '../keys/registry.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler against a real kube-apiserver and etcd, with the CRDs of config/crd/bases installed:
// the one test/envtest.setup.ts starts for the whole run, which other test files use at the same time.
describe('SealedSecretReconciler', () => {
  const env = sharedTestEnvironment(inject('envtest'));
  let client: RestClient;
  // A namespace of this file's own, created in beforeAll.
  let namespace: string;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keys = new KeyRegistry();
  keys.register({ secretName: 'sealed-secrets-key', privateKey, certPem: '', orderingTime: new Date() });
  const events: string[] = [];

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'sealedsecret',
  });
  const reconciler = (): SealedSecretReconciler =>
    new SealedSecretReconciler(
      {
        client,
        apiReader: client,
        recorder: { event: (obj: KubeObject, type, reason) => events.push(`${type} ${reason} ${obj.metadata?.name}`) },
        keys,
      },
      { updateStatus: true, acceptV1Data: true, skipRecreate: false, maxRetries: 5 },
    );

  beforeAll(async () => {
    client = newClient(env.kubeConfig);
    namespace = await createTestNamespace(client, 'sealedsecret');
  });

  afterAll(() => {
    client?.close();
  });

  it('unseals a SealedSecret into its Secret and writes Synced=True through the status subresource', async () => {
    const meta = { name: 'db', namespace };
    const ss = await client.create(SealedSecretResource, {
      apiVersion: 'bitnami.com/v1alpha1',
      kind: 'SealedSecret',
      metadata: meta,
      spec: { encryptedData: { password: sealValue(publicKey, meta, 'hunter2') }, template: { type: 'Opaque' } },
    });
    await expect(reconciler().reconcile(meta, context())).resolves.toEqual({});

    const secret = await client.get(Secrets, meta);
    expect(Buffer.from(secret.data?.password ?? '', 'base64').toString()).toBe('hunter2');
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'SealedSecret', uid: ss.metadata?.uid, controller: true });
    const { status } = await client.get(SealedSecretResource, meta);
    expect(status?.observedGeneration).toBe(1);
    expect(status?.conditions).toMatchObject([{ type: 'Synced', status: 'True' }]);
    expect(events).toContain('Normal Unsealed db');
    await client.delete(SealedSecretResource, meta);
  });

  it('reports Synced=False for the sample, which another key sealed', async () => {
    const name = 'test-sealedsecret';
    // The object is the sample's, which `kubectl apply -k config/samples` needs valid too.
    await createSample(client, SealedSecretResource, 'config/samples/bitnami_v1alpha1_sealedsecret.yaml', { name, namespace });

    await expect(reconciler().reconcile({ namespace, name }, context())).rejects.toThrow('no key could decrypt secret (password)');
    const { status } = await client.get(SealedSecretResource, { namespace, name });
    expect(status?.conditions).toMatchObject([{ type: 'Synced', status: 'False', message: 'no key could decrypt secret (password)' }]);

    await client.delete(SealedSecretResource, { namespace, name });
  });

  it('does nothing for a SealedSecret that no longer exists', async () => {
    await expect(reconciler().reconcile({ namespace, name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
