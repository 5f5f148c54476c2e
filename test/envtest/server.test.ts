// Behaviour of a running control plane; one environment is shared by every test here.
import { existsSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { newClient } from '../../src/runtime/rest/index.js';
import { clients, CRD_DIR, widget, WIDGETS } from './helpers.js';
import { testCRD } from '../support/crd.js';

let env: TestEnvironment;
const NS = 'server-test';

beforeAll(async () => {
  env = await TestEnvironment.start({ crdDirectoryPaths: [CRD_DIR] });
  await clients(env).core.createNamespace({ body: { metadata: { name: NS } } });
});
afterAll(async () => {
  await env?.stop();
});

/** The server's Status for a rejected create. */
async function rejection(body: object): Promise<{
  code: number;
  status: { reason?: string; message?: string; details?: { causes?: Array<{ field?: string; message?: string }> } };
}> {
  try {
    await clients(env).custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body });
  } catch (err) {
    const e = err as k8s.ApiException<string>;
    return { code: e.code, status: JSON.parse(e.body) as never };
  }
  throw new Error('the server accepted an invalid object');
}

describe('a running TestEnvironment', () => {
  it("exposes etcd's URL and the API server's URL, CA, certificate directory and flags", async () => {
    const health = await fetch(`${env.etcdURL}/health`);
    expect(await health.json()).toMatchObject({ health: 'true' });
    const info = env.apiServerInfo;
    expect(info.url).toBe(env.server);
    expect(info.caPem).toContain('BEGIN CERTIFICATE');
    expect(existsSync(join(info.certDir, 'apiserver.crt'))).toBe(true);
    expect(info.flags).toContain(`--etcd-servers=${env.etcdURL}`);
    expect(info.flags).toContain('--authorization-mode=RBAC');
    // The CA is the one the API server's certificate verifies against.
    const served = await new Promise<string>((resolve, reject) => {
      const req = request(`${info.url}/version`, { ca: info.caPem }, (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
      });
      req.on('error', reject);
      req.end();
    });
    expect(served).toBe('200'); // /version is public: the point is that TLS verified against the CA
  });

  it('rejects a custom object that violates its CRD schema, naming the field', async () => {
    const { code, status } = await rejection(widget(NS, 'too-big', { size: 11, color: 'blue' }));
    expect(code).toBe(422);
    expect(status.reason).toBe('Invalid');
    const fields = status.details?.causes?.map((c) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.size', 'spec.color']));
    expect(status.message).toMatch(
      /spec\.size: Invalid value: 11: spec\.size in body should be less than or equal to 10/,
    );
    expect(status.message).toMatch(/spec\.color: Unsupported value: "blue"/);
  });

  it('rejects a custom object that lacks a required field', async () => {
    const { code, status } = await rejection(widget(NS, 'no-size', { color: 'red' }));
    expect(code).toBe(422);
    expect(status.message).toMatch(/spec\.size: Required value/);
  });

  it('authorizes with RBAC: the admin may do anything, an anonymous client may not list namespaces', async () => {
    const caPem = env.kubeConfig.tls!.caData!;
    const status = await new Promise<number>((resolve, reject) => {
      request(`${env.server}/api/v1/namespaces`, { ca: caPem }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
    const client = newClient(env.kubeConfig);
    const review = await client.transport
      .requestJson<k8s.V1SelfSubjectReview>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      })
      .finally(() => client.close());
    expect(review.status?.userInfo).toMatchObject({
      username: 'admin',
      groups: expect.arrayContaining(['system:masters']),
    });
  });

  it('writes a kubeconfig that another client can load', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(env.kubeconfigYaml());
    expect(kc.getCurrentCluster()?.server).toBe(env.server);
    const ns = await kc.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.name).toBe('default');
  });

  it('installs more CRDs on demand and waits until they are served', async () => {
    await env.installCRDs([
      testCRD({
        group: 'test.kubescaffold.io',
        kind: 'Sprocket',
        versions: [
          { name: 'v1alpha1', storage: false },
          { name: 'v1', storage: true },
        ],
      }),
    ]);
    const custom = clients(env).custom;
    for (const version of ['v1alpha1', 'v1']) {
      const list = (await custom.listNamespacedCustomObject({
        group: 'test.kubescaffold.io',
        version,
        namespace: NS,
        plural: 'sprockets',
      })) as { items: unknown[] };
      expect(list.items).toEqual([]);
    }
    // Installing the same CRD again updates it instead of failing.
    await expect(env.installCRDs([CRD_DIR])).resolves.toBeUndefined();
  });

  it('restarts only the apiserver on the same etcd, keeping the URL and the data', async () => {
    const { custom } = clients(env);
    await custom.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget(NS, 'survivor', { size: 1 }) });
    const server = env.server;
    await env.stopAPIServer();
    await expect(clients(env).core.readNamespace({ name: 'default' })).rejects.toThrow();
    await env.startAPIServer();
    expect(env.server).toBe(server);
    const got = (await clients(env).custom.getNamespacedCustomObject({
      ...WIDGETS,
      namespace: NS,
      name: 'survivor',
    })) as { spec: unknown };
    expect(got.spec).toEqual({ size: 1 });
  });
});
