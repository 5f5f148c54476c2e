import { describe, expect, it } from 'vitest';
import type { V1Deployment } from '@kubernetes/client-node';
import { extract, type ApplyConfiguration } from '../../../src/runtime/client/index.js';
import { FakeClient } from '../../../src/runtime/fake/index.js';
import { ConfigMaps } from '../../../src/runtime/rest/index.js';

// A Deployment as the API server stores it after two managers wrote it: the applier owns one container (a keyed list
// item, k:), one of its args (a set item, v:) and a label; the scaler owns replicas.
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web', other: 'x' },
    managedFields: [
      {
        manager: 'applier',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:template': {
              'f:spec': {
                'f:containers': {
                  'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:args': { 'v:"--fast"': {} } },
                },
              },
            },
          },
        },
      },
      {
        manager: 'scaler',
        operation: 'Update',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'web:1', args: ['--fast', '--verbose'], ports: [{ containerPort: 80 }] },
          { name: 'sidecar', image: 'proxy:1' },
        ],
      },
    },
  },
} as V1Deployment;

describe('extract', () => {
  it('reads back the fields a manager applied, keyed list items with their keys and set items by value', () => {
    expect(extract(deployment, 'applier')).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: { template: { spec: { containers: [{ name: 'app', image: 'web:1', args: ['--fast'] }] } } },
    });
  });

  it('reads only Apply entries of the subresource asked for', () => {
    const empty = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } };
    expect(extract(deployment, 'scaler')).toEqual(empty);
    expect(extract(deployment, 'applier', { subresource: 'status' })).toEqual(empty);
  });

  it('round-trips through the fake client: extract, change, apply again', async () => {
    const client = new FakeClient({ fieldOwner: 'owner' });
    const stored = await client.apply(ConfigMaps, { metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } });
    const mine = extract(stored, 'owner');
    expect(mine).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { a: '1' },
    });
    const next = await client.apply(ConfigMaps, { ...mine, data: { b: '2' } });
    expect(next.data).toEqual({ b: '2' });
  });
});

describe('ApplyConfiguration', () => {
  it('is checked by the compiler against the kind: unknown fields and wrong types do not compile', () => {
    const ok: ApplyConfiguration<V1Deployment> = {
      metadata: { name: 'web' },
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'app' }] } } },
    };
    // @ts-expect-error: replicas is a number
    const wrongType: ApplyConfiguration<V1Deployment> = { metadata: { name: 'web' }, spec: { replicas: 'two' } };
    // @ts-expect-error: Deployments have no spec.colour
    const unknownField: ApplyConfiguration<V1Deployment> = { metadata: { name: 'web' }, spec: { colour: 'red' } };
    // @ts-expect-error: the object must be named
    const unnamed: ApplyConfiguration<V1Deployment> = { metadata: {} };
    expect([ok, wrongType, unknownField, unnamed].length).toBe(4);
  });

  it('is refused by the fake, as by the real client, without a field owner', async () => {
    const client = new FakeClient();
    await expect(client.apply(ConfigMaps, { metadata: { name: 'c', namespace: 'default' } })).rejects.toThrow(
      /needs a fieldManager/,
    );
  });
});
