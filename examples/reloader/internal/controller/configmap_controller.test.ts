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
import { newLogger, newClient, type Client, type KubeObject, type ReconcileContext } from '@kubescaffold/runtime';
import { ConfigMaps, Deployments } from '@kubescaffold/runtime/rest';
import { ConfigMapReconciler } from './configmap_controller.js';
import { Reloader } from '../reload/reloader.js';
import { operatorFlags, optionsFromFlags } from '../../cmd/flags.js';
import { parseFlags } from '@kubescaffold/runtime';
import { configMapHash } from '../reload/source.js';

// Through console, where vitest shows a test's log lines with it, and only if it fails (silent in vitest.config.ts).
const testLog = newLogger({ sink: (line) => console.log(line) }).withName('test');

// These tests run the reconciler against a real kube-apiserver and etcd.
describe('ConfigMapReconciler', () => {
  let env: TestEnvironment;
  let client: Client;
  const namespace = 'default';
  const opts = optionsFromFlags(parseFlags(operatorFlags, ['--reload-on-delete=true']).values);
  const events: string[] = [];

  const context = (): ReconcileContext => ({
    signal: AbortSignal.timeout(30_000),
    log: testLog,
    reconcileID: 'test',
    controller: 'configmaps',
  });
  const reconciler = (): ConfigMapReconciler =>
    new ConfigMapReconciler(
      client,
      new Reloader({
        reader: client,
        writer: client,
        recorder: { event: (obj: KubeObject, type, reason) => events.push(`${type} ${reason} ${obj.metadata?.name}`) },
        opts,
        log: testLog,
      }),
      opts,
    );

  beforeAll(async () => {
    env = await TestEnvironment.start();
    client = newClient(env.kubeConfig);
  });

  afterAll(async () => {
    await env?.stop();
  });

  it("writes the ConfigMap's hash into the env var of the container that reads it, and removes it once it is deleted", async () => {
    const cm = await client.create(ConfigMaps, {
      metadata: { name: 'app-config', namespace },
      data: { level: 'info' },
    });
    await client.create(Deployments, {
      metadata: { name: 'app', namespace, annotations: { 'reloader.stakater.com/auto': 'true' } },
      spec: {
        selector: { matchLabels: { app: 'app' } },
        template: {
          metadata: { labels: { app: 'app' } },
          spec: {
            containers: [
              { name: 'sidecar', image: 'busybox' },
              { name: 'app', image: 'busybox', envFrom: [{ configMapRef: { name: 'app-config' } }] },
            ],
          },
        },
      },
    });
    const envOf = async () =>
      (await client.get(Deployments, { namespace, name: 'app' })).spec!.template.spec!.containers.map((c) => c.env);

    await expect(reconciler().reconcile({ namespace, name: 'app-config' }, context())).resolves.toEqual({});
    expect(await envOf()).toEqual([undefined, [{ name: 'STAKATER_APP_CONFIG_CONFIGMAP', value: configMapHash(cm) }]]);
    expect(events).toEqual(['Normal Reloaded app']);

    await client.delete(ConfigMaps, { namespace, name: 'app-config' });
    await reconciler().reconcile({ namespace, name: 'app-config' }, context());
    expect(await envOf()).toEqual([undefined, undefined]);
  });
});
