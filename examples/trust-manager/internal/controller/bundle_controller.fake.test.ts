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
import { newLogger, type KubeObject, type ReconcileContext } from '@kubescaffold/runtime';
import { TinyCA } from '@kubescaffold/runtime/certs';
import { FakeClient } from '@kubescaffold/runtime/fake';
import { ConfigMaps, Namespaces, Secrets, type PartialObjectMetadata } from '@kubescaffold/runtime/rest';
import { BundleReconciler, type BundleOptions } from './bundle_controller.js';
import type { Bundle } from '../../api/v1alpha1/bundle_types.js';
import { BundleResource } from '../../api/v1alpha1/zz_generated.resources.js';
import { CertPool } from '../pem/certpool.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler on an in-memory fake client: no control plane, milliseconds each. The fake keeps
// the API server's resourceVersions and status subresource, but no managedFields: each pass writes the targets again,
// which server-side apply makes harmless. The repository's equivalence test runs the port beside the original.
describe('BundleReconciler on a fake client', () => {
  const ca1 = TinyCA.create({ commonName: 'root-one' }).certPem;
  const ca2 = TinyCA.create({ commonName: 'root-two' }).certPem;
  const now = new Date('2026-12-07T10:00:00.123Z');
  const options: BundleOptions = { namespace: 'trust', targetNamespaces: [], filterExpiredCerts: false, filterNonCACerts: false };

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'bundles',
  });

  async function setup(opts: BundleOptions = options) {
    const client = new FakeClient({ statusSubresource: [BundleResource] });
    for (const [name, labels] of [['trust', {}], ['app-a', { env: 'prod' }], ['app-b', { env: 'dev' }]] as const) {
      await client.create(Namespaces, { metadata: { name, labels } });
    }
    const events: string[] = [];
    const recorder = {
      record: (obj: KubeObject, _related: unknown, type: string, reason: string, _action: string, note: string) =>
        events.push(`${type} ${reason} ${obj.metadata?.name}: ${note}`),
    };
    // The target cache's reads, served by the fake client.
    const targetCache = {
      getMetadata: (res: typeof ConfigMaps, key: { namespace?: string; name: string }) =>
        client.get(res, key) as Promise<PartialObjectMetadata>,
      listMetadata: async (res: typeof ConfigMaps, o: { labelSelector?: string } = {}) =>
        (await client.list(res, o)) as unknown as { items: PartialObjectMetadata[] },
    };
    const reconciler = new BundleReconciler(
      { client, targetCache: targetCache as never, recorder, now: () => now },
      opts,
    );
    return { client, events, reconciler };
  }

  const bundle = (name: string, spec: Bundle['spec']): Bundle => ({
    apiVersion: 'trust.cert-manager.io/v1alpha1',
    kind: 'Bundle',
    metadata: { name },
    spec,
  });

  it('writes the sources, deduplicated and in hash order, to every namespace, and sets Synced', async () => {
    const { client, events, reconciler } = await setup();
    await client.create(ConfigMaps, { metadata: { name: 'roots', namespace: 'trust' }, data: { 'ca.crt': ca1 } });
    await client.create(Secrets, {
      metadata: { name: 'more', namespace: 'trust' },
      data: { 'ca.crt': Buffer.from(ca2 + ca1).toString('base64') },
    });
    await client.create(
      BundleResource,
      bundle('trusted', {
        sources: [
          { configMap: { name: 'roots', key: 'ca.crt' } },
          { secret: { name: 'more', key: 'ca.crt' } },
          { inLine: ca2 },
        ],
        target: { configMap: { key: 'bundle.pem' } },
      }),
    );
    await expect(reconciler.reconcile({ namespace: '', name: 'trusted' }, context())).resolves.toEqual({});

    const expected = new CertPool();
    expected.addCertsFromPEM(ca1 + ca2);
    for (const ns of ['trust', 'app-a', 'app-b']) {
      const cm = await client.get(ConfigMaps, { namespace: ns, name: 'trusted' });
      expect(cm.data).toEqual({ 'bundle.pem': expected.pem() });
      expect(cm.metadata?.labels).toEqual({ 'trust.cert-manager.io/bundle': 'trusted' });
      expect(cm.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Bundle', name: 'trusted', controller: true });
    }
    expect(expected.size()).toBe(2);
    const status = (await client.get(BundleResource, { namespace: '', name: 'trusted' })).status;
    expect(status?.conditions).toEqual([
      {
        type: 'Synced',
        status: 'True',
        reason: 'Synced',
        message: 'Successfully synced Bundle to all namespaces',
        observedGeneration: 1,
        lastTransitionTime: '2026-12-07T10:00:00Z',
      },
    ]);
    expect(events).toEqual(['Normal Synced trusted: Successfully synced Bundle to all namespaces']);
  });

  it('moves the target when the namespace selector changes, deleting the one left empty', async () => {
    const { client, reconciler } = await setup();
    await client.create(
      BundleResource,
      bundle('prod', { sources: [{ inLine: ca1 }], target: { configMap: { key: 'ca.crt' }, namespaceSelector: { matchLabels: { env: 'prod' } } } }),
    );
    await reconciler.reconcile({ namespace: '', name: 'prod' }, context());
    expect((await client.list(ConfigMaps, {})).items.map((c) => c.metadata?.namespace)).toEqual(['app-a']);
    const b = await client.get(BundleResource, { namespace: '', name: 'prod' });
    expect(b.status?.conditions?.[0]?.message).toBe(
      'Successfully synced Bundle to namespaces that match this label selector: env=prod',
    );

    await client.update(BundleResource, { ...b, spec: { ...b.spec, target: { configMap: { key: 'ca.crt' }, namespaceSelector: { matchLabels: { env: 'dev' } } } } });
    await reconciler.reconcile({ namespace: '', name: 'prod' }, context());
    expect((await client.list(ConfigMaps, {})).items.map((c) => c.metadata?.namespace)).toEqual(['app-b']);
  });

  it('sets SourceNotFound for a missing source and SourceBuildError (retried) for one that is not PEM', async () => {
    const { client, events, reconciler } = await setup();
    await client.create(BundleResource, bundle('missing', { sources: [{ configMap: { name: 'nope', key: 'ca.crt' } }], target: { configMap: { key: 'ca.crt' } } }));
    await expect(reconciler.reconcile({ namespace: '', name: 'missing' }, context())).resolves.toEqual({});
    const missing = await client.get(BundleResource, { namespace: '', name: 'missing' });
    expect(missing.status?.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'SourceNotFound',
      message: 'Bundle source was not found: failed to get ConfigMap trust/nope: configmaps "nope" not found',
    });

    const key = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
    await client.create(BundleResource, bundle('bad', { sources: [{ inLine: key }], target: { configMap: { key: 'ca.crt' } } }));
    await expect(reconciler.reconcile({ namespace: '', name: 'bad' }, context())).rejects.toThrow(
      "failed to build bundle sources: inline source contains invalid PEM data: invalid PEM block in bundle: only CERTIFICATE blocks are permitted but found 'PRIVATE KEY'",
    );
    expect((await client.get(BundleResource, { namespace: '', name: 'bad' })).status?.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'SourceBuildError',
    });
    expect(events.filter((e) => e.startsWith('Warning'))).toHaveLength(2);
    expect((await client.list(ConfigMaps, {})).items).toEqual([]);
  });

  it('does nothing for a Bundle that no longer exists', async () => {
    const { reconciler } = await setup();
    await expect(reconciler.reconcile({ namespace: '', name: 'does-not-exist' }, context())).resolves.toEqual({});
  });
});
