import { describe, expect, it } from 'vitest';
import { FakeClient, fieldIndex } from '../../../src/runtime/fake/index.js';
import {
  ApiError,
  ConfigMaps,
  Deployments,
  isConflict,
  isNotFound,
  newScheme,
  type KubeObject,
} from '../../../src/runtime/rest/index.js';
import { describeApplyContract } from './apply-contract.js';
import { describeScaleContract } from './scale-contract.js';
import { describeClientContract, Widgets, type Widget } from './contract.js';

describeClientContract('the fake client', () => fake);
describeApplyContract('the fake client', () => fake);
describeScaleContract('the fake client', () => fake);
const fake = new FakeClient({ statusSubresource: [Widgets] });

const widget = (name: string, extra: Partial<Widget> = {}): Widget => ({
  apiVersion: 'contract.kubescaffold.dev/v1',
  kind: 'Widget',
  metadata: { namespace: 'ns', name },
  spec: { size: 1 },
  ...extra,
});

describe('the fake client', () => {
  it('starts with the objects it is given, status included, resolved through the scheme', async () => {
    const client = new FakeClient({
      objects: [widget('a', { status: { ready: true } })],
      scheme: newScheme().add(Widgets),
      statusSubresource: [Widgets],
    });
    const got = await client.get(Widgets, { namespace: 'ns', name: 'a' });
    expect(got.status).toEqual({ ready: true });
    expect(got.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(() => new FakeClient({ objects: [widget('a')] })).toThrow(
      /no resource for contract.kubescaffold.dev\/v1 Widget a; add its descriptor to the scheme option/,
    );
  });

  it('gives built-in kinds with a status their status subresource, as controller-runtime does', async () => {
    const client = new FakeClient();
    const created = await client.create(Deployments, {
      metadata: { namespace: 'ns', name: 'd' },
      spec: { selector: {}, template: {} },
      status: { replicas: 3 },
    });
    expect(created.status).toBeUndefined();
    await expect(client.status().update(ConfigMaps, { metadata: { namespace: 'ns', name: 'c' } })).rejects.toSatisfy(
      isNotFound,
    );
  });

  it('returns copies: changing what it returned or was given does not change what it stores', async () => {
    const client = new FakeClient({ statusSubresource: [Widgets] });
    const given = widget('a');
    const created = await client.create(Widgets, given);
    given.spec!.size = 5;
    created.spec!.size = 6;
    expect((await client.get(Widgets, { namespace: 'ns', name: 'a' })).spec).toEqual({ size: 1 });
  });

  it('selects on indexed fields and refuses a field selector without an index', async () => {
    const client = new FakeClient({
      indexes: [fieldIndex(Widgets, 'spec.color', (w) => (w.spec?.color ? [w.spec.color] : []))],
    });
    await client.create(Widgets, widget('a', { spec: { color: 'red' } }));
    await client.create(Widgets, widget('b', { spec: { color: 'blue' } }));
    expect(
      (await client.list(Widgets, { fieldSelector: 'spec.color=red' })).items.map((w) => w.metadata?.name),
    ).toEqual(['a']);
    await expect(client.list(Widgets, { fieldSelector: 'spec.size=1' })).rejects.toThrow(/needs a field index/);
  });

  it('pages a list with limit and continue', async () => {
    const client = new FakeClient();
    for (const name of ['a', 'b', 'c']) await client.create(Widgets, widget(name));
    const first = await client.list(Widgets, { limit: 2 });
    expect(first.items.map((w) => w.metadata?.name)).toEqual(['a', 'b']);
    const second = await client.list(Widgets, { limit: 2, continue: first.metadata.continue });
    expect(second.items.map((w) => w.metadata?.name)).toEqual(['c']);
    expect(second.metadata.continue).toBeUndefined();
  });

  it('applies strategic merge patches to built-in kinds and refuses them on custom resources with 415', async () => {
    const client = new FakeClient();
    await client.create(ConfigMaps, { metadata: { namespace: 'ns', name: 'c' }, data: { b: '2' } });
    const patched = await client.patch(
      ConfigMaps,
      { namespace: 'ns', name: 'c' },
      { data: { a: '1' } },
      { type: 'strategic' },
    );
    expect(patched.data).toEqual({ a: '1', b: '2' });
    await client.create(Widgets, widget('w'));
    await expect(
      client.patch(Widgets, { namespace: 'ns', name: 'w' }, { spec: { size: 2 } }, { type: 'strategic' }),
    ).rejects.toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
  });

  it('runs interceptors instead of its own methods, with a client that calls through', async () => {
    const calls: string[] = [];
    const client = new FakeClient({
      statusSubresource: [Widgets],
      interceptors: {
        create: (c, res, obj, opts) => {
          calls.push(`create ${obj.metadata?.name ?? ''}`);
          return c.create(res, obj, opts);
        },
        subResourceUpdate: () => Promise.reject(new ApiError({ reason: 'Conflict', code: 409, message: 'injected' })),
      },
    });
    const created = await client.create(Widgets, widget('a'));
    expect(calls).toEqual(['create a']);
    await expect(client.status().update(Widgets, { ...created, status: { ready: true } })).rejects.toSatisfy(
      isConflict,
    );
    expect((await client.get(Widgets, { namespace: 'ns', name: 'a' })).status).toBeUndefined();
  });

  it('runs the apply interceptors, whose client calls through with the field owner', async () => {
    const calls: string[] = [];
    const client = new FakeClient({
      fieldOwner: 'owner',
      statusSubresource: [Widgets],
      interceptors: {
        apply: (c, res, config, opts) => {
          calls.push(`apply ${config.metadata.name}`);
          return c.apply(res, config, opts);
        },
        subResourceApply: () => Promise.reject(new ApiError({ reason: 'Conflict', code: 409, message: 'injected' })),
      },
    });
    const metadata = { namespace: 'ns', name: 'a' };
    const applied = await client.apply(Widgets, { metadata, spec: { size: 1 } });
    expect([calls, applied.metadata?.managedFields?.map((e) => e.manager)]).toEqual([['apply a'], ['owner']]);
    await expect(client.status().apply(Widgets, { metadata, status: { ready: true } })).rejects.toSatisfy(isConflict);
  });

  it('refuses server-side apply of the scale subresource, which it does not model, with what to do instead', async () => {
    const client = new FakeClient({ fieldOwner: 'owner' });
    const metadata = { namespace: 'ns', name: 'web' };
    await client.create(Deployments, { metadata, spec: { replicas: 1, selector: {}, template: {} } });
    await expect(client.subResource('scale').apply(Deployments, { metadata })).rejects.toThrow(
      /patch it or test on envtest/,
    );
    await expect(client.scale(Deployments, metadata, 3)).resolves.toMatchObject({ spec: { replicas: 3 } });
  });

  it('stamps creation and deletion times from the injected clock', async () => {
    const client = new FakeClient({ clock: () => new Date('2026-01-02T03:04:05.678Z') });
    const created = await client.create(
      Widgets,
      widget('a', { metadata: { namespace: 'ns', name: 'a', finalizers: ['x.example.com/y'] } } as Partial<KubeObject>),
    );
    expect(created.metadata?.creationTimestamp).toBe('2026-01-02T03:04:05Z');
    await client.delete(Widgets, { namespace: 'ns', name: 'a' });
    expect((await client.get(Widgets, { namespace: 'ns', name: 'a' })).metadata?.deletionTimestamp).toBe(
      '2026-01-02T03:04:05Z',
    );
  });
});
