/*
Copyright 2026 The trust-manager port's authors.

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

import { describe, expect, it } from 'vitest';
import { newLogger, type ReconcileContext } from '@kubescaffold/runtime';
import { FakeClient } from '@kubescaffold/runtime/fake';
import { createSample } from '@kubescaffold/envtest';
import { BundleReconciler } from './bundle_controller.js';
import { BundleResource } from '../../api/v1alpha1/zz_generated.resources.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler on an in-memory fake client: no control plane, milliseconds each. The fake keeps
// the API server's resourceVersions, status subresource and finalizers, but runs no webhooks, schema validation or
// garbage collection: bundle_controller.test.ts runs the reconciler against a real API server for those.
describe('BundleReconciler on a fake client', () => {
  const namespace = '';

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'bundle',
  });

  it('reconciles an existing Bundle', async () => {
    const name = 'test-resource';
    const client = new FakeClient({ statusSubresource: [BundleResource] });
    // The object is the sample's (config/samples), as in bundle_controller.test.ts.
    await createSample(client, BundleResource, 'config/samples/trust_v1alpha1_bundle.yaml', { name });

    const reconciler = new BundleReconciler(client);
    await expect(reconciler.reconcile({ namespace, name }, context())).resolves.toEqual({});
    // TODO(user): add assertions for what your reconciler should have done, e.g. the status it wrote:
    // expect((await client.get(BundleResource, { namespace, name })).status).toEqual({ ... });
  });

  it('does nothing for a Bundle that no longer exists', async () => {
    const client = new FakeClient({ statusSubresource: [BundleResource] });
    const reconciler = new BundleReconciler(client);
    await expect(reconciler.reconcile({ namespace, name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
