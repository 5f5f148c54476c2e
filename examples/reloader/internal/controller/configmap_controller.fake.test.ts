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

import { describe, expect, it } from 'vitest';
import { newLogger, parseFlags, type k8s, type KubeObject, type ReconcileContext } from '@kubescaffold/runtime';
import { FakeClient } from '@kubescaffold/runtime/fake';
import { ConfigMaps, Deployments } from '@kubescaffold/runtime/rest';
import { operatorFlags, optionsFromFlags } from '../../cmd/flags.js';
import { configMapHash, secretHash } from '../reload/source.js';
import { Reloader } from '../reload/reloader.js';
import { ConfigMapReconciler } from './configmap_controller.js';
import { SecretReconciler } from './secret_controller.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconcilers on an in-memory fake client: no control plane, milliseconds each. The fake applies
// strategic merge patches as the API server does (lists merged by the keys of the built-in kinds' schemas), so the
// write path, Reloader's patches of a Deployment's pod template, is tested here; configmap_controller.test.ts runs
// the same path against a real API server.
describe('the reconcilers on a fake client', () => {
  const namespace = 'default';

  const context = (controller: string): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller,
  });

  /** The reconcilers of both kinds on one fake client holding `objects`, and the Events they record. */
  function setup(objects: KubeObject[], args: string[] = []) {
    const client = new FakeClient({ objects });
    const opts = optionsFromFlags(parseFlags(operatorFlags, args).values);
    const events: string[] = [];
    const reloader = new Reloader({
      reader: client,
      writer: client,
      recorder: { event: (obj: KubeObject, type, reason) => events.push(`${type} ${reason} ${obj.metadata?.name}`) },
      opts,
      log: testLog,
    });
    return {
      client,
      events,
      configMaps: new ConfigMapReconciler(client, reloader, opts),
      secrets: new SecretReconciler(client, reloader, opts),
      podSpec: async (name: string) => (await client.get(Deployments, { namespace, name })).spec!.template.spec!,
    };
  }

  const configMap = (level: string): k8s.V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app-config', namespace },
    data: { level },
  });

  /** A Deployment that follows its ConfigMaps and Secrets; `app` reads app-config, and has an env var of its own. */
  const deployment = (annotations: Record<string, string>, podSpec: Partial<k8s.V1PodSpec> = {}): k8s.V1Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'app', namespace, annotations },
    spec: {
      selector: { matchLabels: { app: 'app' } },
      template: {
        metadata: { labels: { app: 'app' } },
        spec: {
          containers: [
            { name: 'sidecar', image: 'busybox' },
            {
              name: 'app',
              image: 'busybox',
              envFrom: [{ configMapRef: { name: 'app-config' } }],
              env: [{ name: 'MODE', value: 'server' }],
            },
          ],
          ...podSpec,
        },
      },
    },
  });

  it("patches the ConfigMap's hash into the env of the container that reads it, in place once it changes again, and removes it on delete", async () => {
    const { client, events, configMaps, podSpec } = setup(
      [configMap('info'), deployment({ 'reloader.stakater.com/auto': 'true' })],
      ['--reload-on-delete=true'],
    );
    const key = { namespace, name: 'app-config' };

    await expect(configMaps.reconcile(key, context('configmaps'))).resolves.toEqual({});
    // The strategic merge patch merges the containers by name and their env by name: the new var comes first, as
    // the API server puts it, the container's own stays, the sidecar is left alone.
    const hash = (level: string) => configMapHash(configMap(level));
    expect((await podSpec('app')).containers.map((c) => c.env)).toEqual([
      undefined,
      [
        { name: 'STAKATER_APP_CONFIG_CONFIGMAP', value: hash('info') },
        { name: 'MODE', value: 'server' },
      ],
    ]);

    await client.patch(ConfigMaps, key, { data: { level: 'debug' } }, { type: 'merge' });
    await configMaps.reconcile(key, context('configmaps'));
    expect((await podSpec('app')).containers[1]!.env).toEqual([
      { name: 'STAKATER_APP_CONFIG_CONFIGMAP', value: hash('debug') },
      { name: 'MODE', value: 'server' },
    ]);

    // Nothing changed: the env var holds the hash already, so nothing is written and no Event recorded.
    await configMaps.reconcile(key, context('configmaps'));
    expect(events).toEqual(['Normal Reloaded app', 'Normal Reloaded app']);

    // Deleted: the JSON patch removes the env var by its index.
    await client.delete(ConfigMaps, key);
    await configMaps.reconcile(key, context('configmaps'));
    expect((await podSpec('app')).containers[1]!.env).toEqual([{ name: 'MODE', value: 'server' }]);
    expect(events).toEqual(['Normal Reloaded app', 'Normal Reloaded app', 'Normal Reloaded app']);
  });

  it("patches a Secret's hash into the container that mounts it, named by the reload annotation", async () => {
    const secret: k8s.V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace },
      data: { token: Buffer.from('one').toString('base64') },
    };
    const { events, secrets, podSpec } = setup([
      secret,
      deployment(
        { 'secret.reloader.stakater.com/reload': 'creds' },
        {
          volumes: [{ name: 'creds', secret: { secretName: 'creds' } }],
          containers: [
            { name: 'first', image: 'busybox' },
            { name: 'mounts', image: 'busybox', volumeMounts: [{ name: 'creds', mountPath: '/creds' }] },
          ],
        },
      ),
    ]);

    await secrets.reconcile({ namespace, name: 'creds' }, context('secrets'));
    const spec = await podSpec('app');
    expect(spec.containers.map((c) => c.env)).toEqual([
      undefined,
      [{ name: 'STAKATER_CREDS_SECRET', value: secretHash(secret) }],
    ]);
    expect(spec.volumes).toEqual([{ name: 'creds', secret: { secretName: 'creds' } }]);
    expect(events).toEqual(['Normal Reloaded app']);
  });

  it('with --reload-strategy=annotations, patches the pod template an annotation and leaves the containers alone', async () => {
    const { events, configMaps, client } = setup(
      [configMap('info'), deployment({ 'configmap.reloader.stakater.com/reload': 'app-config' })],
      ['--reload-strategy=annotations'],
    );

    await configMaps.reconcile({ namespace, name: 'app-config' }, context('configmaps'));
    const template = (await client.get(Deployments, { namespace, name: 'app' })).spec!.template;
    expect(template.metadata?.labels).toEqual({ app: 'app' });
    const annotation = JSON.parse(template.metadata?.annotations?.['reloader.stakater.com/last-reloaded-from'] ?? '{}');
    expect(annotation).toMatchObject({
      type: 'CONFIGMAP',
      name: 'app-config',
      namespace,
      hash: configMapHash(configMap('info')),
      containerRefs: ['app'],
    });
    expect(template.spec!.containers.map((c) => c.env)).toEqual([undefined, [{ name: 'MODE', value: 'server' }]]);
    expect(events).toEqual(['Normal Reloaded app']);
  });

  it('writes nothing to a Deployment that does not follow the ConfigMap', async () => {
    const { client, events, configMaps } = setup([configMap('info'), deployment({})]);
    const before = await client.get(Deployments, { namespace, name: 'app' });

    await configMaps.reconcile({ namespace, name: 'app-config' }, context('configmaps'));
    const after = await client.get(Deployments, { namespace, name: 'app' });
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(events).toEqual([]);
  });
});
