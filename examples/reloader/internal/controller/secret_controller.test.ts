/*
Copyright 2026 The Reloader port's authors.

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

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '@kubescaffold/envtest';
import { newLogger, newClient, type Client, type ReconcileContext } from '@kubescaffold/runtime';
import { SecretReconciler } from './secret_controller.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler against a real kube-apiserver and etcd, with the CRDs of config/crd/bases installed.
describe('SecretReconciler', () => {
  let env: TestEnvironment;
  let client: Client;
  const namespace = 'default';

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'secret',
  });

  beforeAll(async () => {
    env = await TestEnvironment.start({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: false });
    client = newClient(env.kubeConfig);
  });

  afterAll(async () => {
    await env?.stop();
  });

  it('does nothing for a Secret that no longer exists', async () => {
    const reconciler = new SecretReconciler(client);
    await expect(reconciler.reconcile({ namespace, name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
