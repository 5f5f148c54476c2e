import { describe, expect, it } from 'vitest';
import { FakeClient } from '../../../src/runtime/fake/index.js';
import { ApiError, ConfigMaps, Deployments, newScheme, type KubeObject } from '../../../src/runtime/rest/index.js';
import { STRATEGIC_CASES, STRATEGIC_ERROR_CASES, type StrategicCase } from './strategic-cases.js';
import { Widgets } from './contract.js';

// What the fake client makes of strategic merge patches (strategic-merge.integration.test.ts shows the API server
// answers the same).
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const byName = (name: string): StrategicCase =>
  [...STRATEGIC_CASES, ...STRATEGIC_ERROR_CASES].find((c) => c.name.startsWith(name))!;

// The case's patches sent in turn to a fake client holding its object; the object after each.
async function run(c: StrategicCase): Promise<Any[]> {
  const object = { ...c.object, metadata: { ...c.object.metadata, namespace: 'ns' } };
  const fake = new FakeClient({ objects: [object], scheme: newScheme().add(Widgets), statusSubresource: [Widgets] });
  const writer = c.status ? fake.status() : fake;
  const out: Any[] = [];
  for (const patch of c.patches)
    out.push(
      (await writer.patch(c.resource, { namespace: 'ns', name: c.object.metadata!.name! }, patch, {
        type: 'strategic',
      })) as Any,
    );
  return out;
}

const podSpec = (d: Any): Any => d.spec.template.spec;
const names = (list: Any[] | undefined, key = 'name'): unknown[] => (list ?? []).map((x) => x[key]);

describe('strategic merge patch on the fake client', () => {
  it('merges maps key by key, deletes a key set to null, and replaces a map with $patch: replace', async () => {
    const [first, second, third] = await run(byName('ConfigMap'));
    expect(first!.metadata.labels).toEqual({ a: '1', c: '3' });
    expect(first!.data).toEqual({ x: '1', y: '20', z: '30' });
    expect(second!.data).toEqual({ only: 'this' });
    expect(third!.data).toEqual({ only: 'this' });
    expect(third!.metadata.annotations).toEqual({ note: 'n' });
  });

  it('merges finalizers as a set, new ones first, and removes those in $deleteFromPrimitiveList', async () => {
    const [first, merged, deleted, empty] = await run(byName('Secret'));
    expect(first!.data).toEqual({ user: 'YQ==', token: 'Yw==' });
    expect(merged!.metadata.finalizers).toEqual(['example.com/c', 'example.com/a', 'example.com/b']);
    expect(deleted!.metadata.finalizers).toEqual(['example.com/c', 'example.com/b']);
    // An emptied list is stored as none, as the server stores it.
    expect(empty!.metadata.finalizers).toBeUndefined();
  });

  it('merges containers by name, env by name, ports by containerPort and volumeMounts by mountPath', async () => {
    const [merged, added] = await run(byName('Deployment: containers'));
    const app = podSpec(merged!).containers[0];
    expect(names(podSpec(merged!).containers)).toEqual(['app', 'sidecar']);
    expect(app.image).toBe('nginx:2');
    expect(app.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '20' },
      { name: 'D', value: '4' },
      { name: 'C', value: '3' },
    ]);
    expect(names(app.ports, 'containerPort')).toEqual([8080, 80, 443]);
    expect(app.volumeMounts.map((m: Any) => m.mountPath)).toEqual(['/cache', '/etc/config', '/data']);
    // args has no strategy: the patch's list replaces it.
    expect(app.args).toEqual(['--c']);
    expect(merged!.spec.template.metadata.annotations).toEqual({ a: '1', c: '3' });
    // A container the original lacks goes before the others, as the server puts it.
    expect(names(podSpec(added!).containers)).toEqual(['new', 'app', 'sidecar']);
    expect(merged!.metadata.generation).toBe(2);
  });

  it('removes list items by merge key with $patch: delete, and merges volumes by name', async () => {
    const [deleted, merged] = await run(byName('Deployment: $patch: delete'));
    const spec = podSpec(deleted!);
    expect(names(spec.containers)).toEqual(['app']);
    expect(names(spec.containers[0].env)).toEqual(['A', 'C']);
    expect(names(spec.containers[0].ports, 'containerPort')).toEqual([80]);
    expect(spec.containers[0].volumeMounts).toEqual([{ name: 'config', mountPath: '/etc/config' }]);
    expect(spec.volumes).toEqual([
      { name: 'cache', emptyDir: { medium: 'Memory' } },
      { name: 'config', configMap: { name: 'settings', defaultMode: 420 } },
    ]);
    expect(podSpec(merged!).volumes[1]).toEqual({ name: 'config', configMap: { name: 'other', defaultMode: 420 } });
  });

  it('replaces a merging list with $patch: replace, and a list without a strategy whole', async () => {
    const [replaced] = await run(byName('Deployment: $patch: replace'));
    expect(podSpec(replaced!).containers[0].env).toEqual([{ name: 'ONLY', value: 'x' }]);
    expect(names(podSpec(replaced!).containers)).toEqual(['app', 'sidecar']);
    expect(podSpec(replaced!).tolerations).toEqual([{ key: 'other', operator: 'Exists' }]);
  });

  it('orders lists by $setElementOrder and clears fields outside $retainKeys', async () => {
    const [ordered, retained] = await run(byName('Deployment: $setElementOrder'));
    expect(names(podSpec(ordered!).containers)).toEqual(['sidecar', 'app']);
    expect(names(podSpec(ordered!).containers[1].env)).toEqual(['C', 'A', 'B']);
    expect(retained!.spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('merges Service ports by port', async () => {
    const [merged, deleted] = await run(byName('Service'));
    expect(merged!.spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 8081, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
      { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' },
    ]);
    expect(names(deleted!.spec.ports, 'port')).toEqual([80, 443]);
  });

  it('merges status conditions by type through the status subresource, leaving the spec alone', async () => {
    const [, both, updated] = await run(byName('Deployment status'));
    expect(both!.status.conditions.map((c: Any) => c.type)).toEqual(['Progressing', 'Available']);
    expect(updated!.status.conditions[1]).toMatchObject({ type: 'Available', status: 'True' });
    expect(updated!.metadata.generation).toBe(1);
  });

  it('answers patches it cannot apply with the status the server gives', async () => {
    const status = async (name: string): Promise<unknown> => {
      const err = await run(byName(name)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      const { code, reason, message } = (err as ApiError).status;
      return { code, reason, message };
    };
    expect(await status('a list item without')).toEqual({
      code: 500,
      reason: undefined,
      message: 'map: map[image:x] does not contain declared merge key: name',
    });
    expect(await status('$retainKeys that')).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    });
    expect(await status('a field outside')).toMatchObject({ code: 400 });
    expect(await status('an unknown $patch')).toEqual({
      code: 500,
      reason: undefined,
      message: 'unknown patch type: explode in map: map[$patch:explode]',
    });
    expect(await status('a $setElementOrder')).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of setElementOrder list',
    });
    const unsupported = {
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    };
    expect(await status('a custom resource (')).toEqual(unsupported);
    expect(await status("a custom resource's status")).toEqual(unsupported);
  });

  it('leaves the stored object as it was when a patch fails', async () => {
    const object = { ...byName('a list item without').object, metadata: { namespace: 'ns', name: 'd' } } as KubeObject;
    const fake = new FakeClient({ objects: [object] });
    const before = await fake.get(Deployments, { namespace: 'ns', name: 'd' });
    const bad = { spec: { template: { spec: { containers: [{ image: 'x' }] } } } };
    await expect(fake.patch(Deployments, { namespace: 'ns', name: 'd' }, bad, { type: 'strategic' })).rejects.toThrow(
      /merge key/,
    );
    expect(await fake.get(Deployments, { namespace: 'ns', name: 'd' })).toEqual(before);
  });

  it('checks a resourceVersion in the patch as a precondition, and patches the scale subresource', async () => {
    const object = { ...byName('a list item without').object, metadata: { namespace: 'ns', name: 'd' } } as KubeObject;
    const fake = new FakeClient({ objects: [object] });
    const key = { namespace: 'ns', name: 'd' };
    const stale = { metadata: { resourceVersion: '1' }, spec: { replicas: 2 } };
    await expect(fake.patch(Deployments, key, stale, { type: 'strategic' })).rejects.toMatchObject({ code: 409 });
    const scale = await fake
      .subResource('scale')
      .patch(Deployments as never, key, { spec: { replicas: 3 } }, { type: 'strategic' });
    expect((scale as unknown as Any).spec.replicas).toBe(3);
    expect(((await fake.get(Deployments, key)) as Any).spec.replicas).toBe(3);
  });

  it('records the patch in managedFields as an Update by its field manager', async () => {
    const fake = new FakeClient({
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'ns', name: 'c' },
          data: { a: '1' },
        } as KubeObject,
      ],
    });
    const patched = await fake.patch(
      ConfigMaps,
      { namespace: 'ns', name: 'c' },
      { data: { b: '2' } },
      { type: 'strategic', fieldManager: 'smp' },
    );
    expect(patched.data).toEqual({ a: '1', b: '2' });
    expect(patched.metadata?.managedFields?.find((e) => e.manager === 'smp')).toMatchObject({
      operation: 'Update',
      fieldsV1: { 'f:data': { 'f:b': {} } },
    });
  });
});
