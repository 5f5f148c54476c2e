import { describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import { clients, CRD_DIR, GADGET_CRD, leftovers, widget, WIDGETS } from './helpers.js';
import { CONTROL_PLANE_START_MS } from '../support/limits.js';

/** Creates a namespace and a Widget in it, and reads the Widget back. */
async function roundTrip(env: TestEnvironment, ns: string): Promise<Record<string, unknown>> {
  const { core, custom } = clients(env);
  await core.createNamespace({ body: { metadata: { name: ns } } });
  await custom.createNamespacedCustomObject({
    ...WIDGETS,
    namespace: ns,
    body: widget(ns, 'w1', { size: 3, color: 'red' }),
  });
  return (await custom.getNamespacedCustomObject({ ...WIDGETS, namespace: ns, name: 'w1' })) as Record<string, unknown>;
}

describe('TestEnvironment lifecycle', () => {
  it(
    'starts, serves CRDs and custom objects, and leaves no process or temp dir after stop, three times in a row',
    async () => {
      for (let round = 1; round <= 3; round++) {
        const env = await TestEnvironment.start({ crdDirectoryPaths: [CRD_DIR] });
        try {
          expect(env.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
          expect(leftovers(env).processes.length).toBeGreaterThanOrEqual(2);
          const got = await roundTrip(env, `round-${round}`);
          expect(got).toMatchObject({
            kind: 'Widget',
            metadata: { name: 'w1', namespace: `round-${round}` },
            spec: { size: 3, color: 'red' },
          });
        } finally {
          await env.stop();
        }
        expect(leftovers(env)).toEqual({ processes: [], tempDirExists: false });
      }
    },
    3 * CONTROL_PLANE_START_MS,
  );

  it(
    'runs two environments at once, each with its own data',
    async () => {
      const [a, b] = await Promise.all([TestEnvironment.start(), TestEnvironment.start()]);
      try {
        expect(a.server).not.toBe(b.server);
        await Promise.all([a.installCRDs([CRD_DIR, GADGET_CRD]), b.installCRDs([CRD_DIR])]);
        await Promise.all([roundTrip(a, 'only-in-a'), roundTrip(b, 'only-in-b')]);
        const names = async (env: TestEnvironment) =>
          (await clients(env).core.listNamespace()).items.map((n) => n.metadata?.name);
        expect(await names(a)).toContain('only-in-a');
        expect(await names(a)).not.toContain('only-in-b');
        expect(await names(b)).not.toContain('only-in-a');
        // The Gadget CRD went to a only.
        await clients(a).custom.createClusterCustomObject({
          group: 'test.kubescaffold.io',
          version: 'v1',
          plural: 'gadgets',
          body: {
            apiVersion: 'test.kubescaffold.io/v1',
            kind: 'Gadget',
            metadata: { name: 'g' },
            spec: { label: 'x' },
          },
        });
        await expect(
          clients(b).custom.listClusterCustomObject({
            group: 'test.kubescaffold.io',
            version: 'v1',
            plural: 'gadgets',
          }),
        ).rejects.toMatchObject({ code: 404 });
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
      expect(leftovers(a)).toEqual({ processes: [], tempDirExists: false });
      expect(leftovers(b)).toEqual({ processes: [], tempDirExists: false });
    },
    2 * CONTROL_PLANE_START_MS,
  );

  it('fails before starting anything when a required CRD path is missing', async () => {
    await expect(
      TestEnvironment.start({ crdDirectoryPaths: ['/nonexistent/crds'], errorIfCRDPathMissing: true }),
    ).rejects.toThrow(/\/nonexistent\/crds/);
  });
});
