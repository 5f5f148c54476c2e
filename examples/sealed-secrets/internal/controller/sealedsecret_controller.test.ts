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

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSample, createTestNamespace, sharedTestEnvironment } from '@kubescaffold/envtest';
import { newLogger, newClient, type ReconcileContext } from '@kubescaffold/runtime';
import type { RestClient } from '@kubescaffold/runtime/rest';
import { SealedSecretReconciler } from './sealedsecret_controller.js';
import { SealedSecretResource } from '../../api/v1alpha1/zz_generated.resources.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler against a real kube-apiserver and etcd, with the CRDs of config/crd/bases installed:
// the one test/envtest.setup.ts starts for the whole run, which other test files use at the same time.
describe('SealedSecretReconciler', () => {
  const env = sharedTestEnvironment(inject('envtest'));
  let client: RestClient;
  // A namespace of this file's own, created in beforeAll.
  let namespace: string;

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'sealedsecret',
  });

  beforeAll(async () => {
    client = newClient(env.kubeConfig);
    namespace = await createTestNamespace(client, 'sealedsecret');
  });

  afterAll(() => {
    client?.close();
  });

  it('reconciles an existing SealedSecret', async () => {
    const name = 'test-sealedsecret';
    // The object is the sample's, which `kubectl apply -k config/samples` needs valid too: a required field added to
    // the spec goes there, and this test names the field if the sample lacks it.
    await createSample(client, SealedSecretResource, 'config/samples/bitnami_v1alpha1_sealedsecret.yaml', { name, namespace });

    const reconciler = new SealedSecretReconciler(client);
    await expect(reconciler.reconcile({ namespace, name }, context())).resolves.toEqual({});
    // TODO(user): add assertions for what your reconciler should have done, e.g. the status it wrote.

    await client.delete(SealedSecretResource, { namespace, name });
  });

  it('does nothing for a SealedSecret that no longer exists', async () => {
    const reconciler = new SealedSecretReconciler(client);
    await expect(reconciler.reconcile({ namespace, name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
