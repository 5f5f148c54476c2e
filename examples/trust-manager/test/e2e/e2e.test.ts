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

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { defineResource, loadKubeConfig, newClient, type Client, type KubeObject, type Resource } from '@kubescaffold/runtime';
import { CustomResourceDefinitions } from '@kubescaffold/runtime/rest';

// End-to-end tests: the built manager (dist/cmd/main.js) runs as a process against the cluster of $KUBECONFIG, with
// the CRDs of config/crd/bases installed. `make test-e2e` starts a local control plane for them (setup-test-e2e), builds,
// runs them, and stops it (cleanup-test-e2e). They are not part of `npm test`.
const namespace = 'default';
const startTimeoutMs = 60_000;

interface Sample {
  file: string;
  resource: Resource<KubeObject>;
  object: KubeObject;
  /** Whether the sample is of its CRD's storage version. */
  storage: boolean;
}

/**
 * Server-side applies the CRDs of config/crd/bases and waits until the API server serves them. These are the bases,
 * without config/crd's conversion webhook patches: a local run has no webhook Service to point them at.
 */
async function installCRDs(client: Client): Promise<void> {
  const names: string[] = [];
  for (const file of readdirSync('config/crd/bases').filter((f) => f.endsWith('.yaml'))) {
    const crd = parse(readFileSync(join('config/crd/bases', file), 'utf8')) as KubeObject;
    await client.patch(CustomResourceDefinitions, { name: crd.metadata!.name! }, crd, { type: 'apply', fieldManager: 'e2e', force: true });
    names.push(crd.metadata!.name!);
  }
  await vi.waitFor(
    async () => {
      for (const name of names) {
        const crd = await client.get(CustomResourceDefinitions, { name });
        expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status, name).toBe('True');
      }
    },
    { timeout: startTimeoutMs, interval: 200 },
  );
}

/** The samples config/samples/kustomization.yaml lists, with the resource each belongs to (from config/crd/bases). */
function readSamples(): Sample[] {
  const kustomization = 'config/samples/kustomization.yaml';
  if (!existsSync(kustomization)) return [];
  const crds = readdirSync('config/crd/bases')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => parse(readFileSync(join('config/crd/bases', f), 'utf8')) as { spec: { group: string; scope: string; names: { kind: string; plural: string }; versions: Array<{ name: string; storage: boolean }> } });
  const files = ((parse(readFileSync(kustomization, 'utf8')) as { resources?: string[] } | null)?.resources ?? []);
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join('config/samples', file), 'utf8')).map((doc) => {
      const object = doc.toJS() as KubeObject;
      const { apiVersion = '', kind = '' } = object;
      const [group, version] = apiVersion.split('/') as [string, string];
      const crd = crds.find((c) => c.spec.group === group && c.spec.names.kind === kind);
      if (!crd) throw new Error(`config/samples/${file}: no CRD in config/crd/bases for ${apiVersion} ${kind}; run make manifests`);
      const namespaced = crd.spec.scope === 'Namespaced';
      const resource = defineResource<KubeObject>({ group, version, kind, plural: crd.spec.names.plural, namespaced });
      const storage = crd.spec.versions.find((v) => v.name === version)?.storage ?? true;
      return { file, resource, storage, object: { ...object, metadata: { ...object.metadata, ...(namespaced ? { namespace } : {}) } } };
    }),
  );
}

/**
 * The env values config/manager/manager.yaml gives the manager container (such as the operand image a deploy-image
 * controller reads), as the deployed manager gets them. NODE_OPTIONS is left out: it sizes V8's heap for the
 * container's memory limit, which this process does not have.
 */
function managerEnv(): Record<string, string> {
  const manifest = 'config/manager/manager.yaml';
  if (!existsSync(manifest)) return {};
  type Container = { name?: string; env?: Array<{ name: string; value?: string }> };
  const docs = parseAllDocuments(readFileSync(manifest, 'utf8')).map((doc) => doc.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: Container[] } } } });
  const manager = docs.find((d) => d?.kind === 'Deployment')?.spec?.template?.spec?.containers?.find((c) => c.name === 'manager');
  const env: Record<string, string> = {};
  for (const e of manager?.env ?? []) if (e.value !== undefined && e.name !== 'NODE_OPTIONS') env[e.name] = e.value;
  return env;
}

/** `n` distinct free TCP ports on 127.0.0.1 (all held open until each is known, so no two are the same). */
async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** The sum of a counter's samples in Prometheus text, over the series whose labels `keep` keeps. */
function counterSum(metrics: string, name: string, keep: (labels: string) => boolean): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && keep(line.slice(name.length, line.lastIndexOf('}') + 1)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('the manager, run against the cluster of $KUBECONFIG', () => {
  let manager: ChildProcess;
  let output = '';
  let client: Client;
  let probes: string;
  let metrics: string;
  const samples = readSamples();

  beforeAll(async () => {
    if (!existsSync('dist/cmd/main.js')) throw new Error('dist/cmd/main.js is missing: build first (make test-e2e builds)');
    client = newClient(loadKubeConfig());
    await installCRDs(client);
    const [probePort, metricsPort] = await freePorts(2);
    probes = `http://127.0.0.1:${probePort}`;
    metrics = `http://127.0.0.1:${metricsPort}/metrics`;
    manager = spawn(
      process.execPath,
      ['dist/cmd/main.js', `--health-probe-bind-address=127.0.0.1:${probePort}`, `--metrics-bind-address=127.0.0.1:${metricsPort}`, '--no-metrics-secure'],
      // Without a deployment nothing installs the webhook configurations or their certificates, so the webhooks stay
      // off here; the webhook tests (on envtest, which installs their configurations) cover them.
      { env: { ...managerEnv(), ...process.env, WATCH_NAMESPACE: namespace, ENABLE_WEBHOOKS: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    manager.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    manager.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await vi.waitFor(
      async () => {
        if (manager.exitCode !== null) throw new Error(`the manager exited with code ${manager.exitCode}:\n${output}`);
        expect((await fetch(`${probes}/readyz`)).status).toBe(200);
      },
      { timeout: startTimeoutMs, interval: 200 },
    );
  }, 2 * startTimeoutMs);

  afterAll(async () => {
    for (const s of samples) await client?.delete(s.resource, { namespace: s.object.metadata?.namespace, name: s.object.metadata!.name! }).catch(() => undefined);
    if (manager && manager.exitCode === null) {
      const exited = new Promise((resolve) => manager.once('exit', resolve));
      manager.kill('SIGTERM');
      await exited;
    }
  });

  it('is live and ready', async () => {
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
    expect((await fetch(`${probes}/readyz`)).status).toBe(200);
  });

  it('serves the controller-runtime metrics', async () => {
    const text = await (await fetch(metrics)).text();
    expect(text).toContain('# TYPE rest_client_requests_total counter');
  });

  it.runIf(samples.length > 0)('admits every sample in config/samples, and reconciles those of the storage versions', async () => {
    // A sample of a Kind's other version is validated by a dry run, before the others exist (it is usually the same
    // object as the storage version's sample): storing it would need the conversion webhook, which is off here, and
    // config/crd/bases does not call it.
    for (const sample of samples.filter((s) => !s.storage)) await client.create(sample.resource, sample.object, { dryRun: true });
    // A reconcile that ends without an error counts, whether or not it asks to come back later (requeue_after).
    const reconciled = async (): Promise<number> =>
      counterSum(await (await fetch(metrics)).text(), 'controller_runtime_reconcile_total', (labels) => !labels.includes('result="error"'));
    const before = await reconciled();
    // Applied as `kubectl apply -k config/samples` would.
    const objects = new Set<string>();
    for (const s of samples.filter((sample) => sample.storage)) {
      const key = { namespace: s.object.metadata?.namespace, name: s.object.metadata!.name! };
      await client.patch(s.resource, key, s.object, { type: 'apply', fieldManager: 'e2e', force: true });
      objects.add(`${s.resource.group}/${s.resource.kind}/${key.namespace ?? ''}/${key.name}`);
    }
    await vi.waitFor(
      async () => {
        expect((await reconciled()) - before).toBeGreaterThanOrEqual(objects.size);
      },
      { timeout: startTimeoutMs, interval: 200 },
    );
  });
});
