/**
 * One control plane for a test run (startSharedTestEnvironment, what a project's vitest globalSetup calls): what it
 * provides reaches the API server from another module (after a structured clone, as vitest passes it to its
 * workers), each test file gets a namespace of its own, and the teardown it returns stops the control plane.
 */
import { describe, expect, it } from 'vitest';
import {
  createTestNamespace,
  EnvtestError,
  sharedTestEnvironment,
  startSharedTestEnvironment,
  type SharedTestEnvironment,
} from '../../src/envtest/index.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';
import { Namespaces } from '../../src/runtime/rest/index.js';
import { CRD_DIR, WIDGETS } from './helpers.js';

interface Widget extends KubeObject {
  spec: { size?: number; color?: string };
}
const Widgets = defineResource<Widget>({ ...WIDGETS, kind: 'Widget', namespaced: true });

describe('startSharedTestEnvironment', () => {
  it('provides a connection that test files use in namespaces of their own, and stops at teardown', async () => {
    let provided: SharedTestEnvironment | undefined;
    const teardown = await startSharedTestEnvironment({ crdDirectoryPaths: [CRD_DIR] }, (shared) => {
      provided = structuredClone(shared);
    });
    let stopped = false;
    try {
      const shared = sharedTestEnvironment(provided);
      expect(shared.kubeConfig.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(shared.kubeconfigYaml).toContain(`server: ${shared.kubeConfig.server}`);
      expect(shared.kubernetesVersion).toMatch(/^\d+\.\d+\.\d+/);

      // Two test files at once: each its own namespace, the same object name in both.
      const [a, b] = [newClient(shared.kubeConfig), newClient(shared.kubeConfig)];
      try {
        const [nsA, nsB] = await Promise.all([createTestNamespace(a, 'captain'), createTestNamespace(b, 'captain')]);
        expect(nsA).toMatch(/^captain-[a-z0-9]+$/);
        expect(nsB).toMatch(/^captain-[a-z0-9]+$/);
        expect(nsA).not.toBe(nsB);
        const widget = (namespace: string): Widget => ({
          apiVersion: `${WIDGETS.group}/${WIDGETS.version}`,
          kind: 'Widget',
          metadata: { name: 'w1', namespace },
          spec: { size: 1 },
        });
        await Promise.all([a.create(Widgets, widget(nsA)), b.create(Widgets, widget(nsB))]);
        expect((await a.list(Widgets, { namespace: nsA })).items.map((w) => w.metadata?.namespace)).toEqual([nsA]);

        await teardown();
        stopped = true;
        await expect(a.get(Namespaces, { name: nsA })).rejects.toThrow(/ECONNREFUSED|connect/);
      } finally {
        a.close();
        b.close();
      }
    } finally {
      if (!stopped) await teardown();
    }
  });

  it('stops the control plane when providing its connection fails', async () => {
    let server: string | undefined;
    const failure = new Error('provide failed');
    await expect(
      startSharedTestEnvironment({}, (shared) => {
        server = shared.kubeConfig.server;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(server).toBeDefined();
    const client = newClient({ server: server!, tls: { insecureSkipTLSVerify: true } });
    try {
      await expect(client.get(Namespaces, { name: 'default' })).rejects.toThrow(/ECONNREFUSED|connect/);
    } finally {
      client.close();
    }
  });

  it('refuses webhooks, which test files sharing one API server would replace for each other', async () => {
    await expect(
      startSharedTestEnvironment({ webhookInstallOptions: { paths: ['config/webhook'] } }, () => {}),
    ).rejects.toThrow(/installs no webhooks: start a TestEnvironment of its own with webhookInstallOptions/);
  });
});

describe('sharedTestEnvironment', () => {
  it('says what to add to vitest.config.ts when no globalSetup provided a control plane', () => {
    expect(() => sharedTestEnvironment(undefined)).toThrow(EnvtestError);
    expect(() => sharedTestEnvironment(undefined)).toThrow(/globalSetup: \['test\/envtest\.setup\.ts'\]/);
  });
});
