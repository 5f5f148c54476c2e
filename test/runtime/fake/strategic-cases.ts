/**
 * Strategic merge patches on built-in kinds: each case creates an object and sends its patches one after another.
 * strategic-merge.test.ts checks what the fake client makes of them; strategic-merge.integration.test.ts sends the
 * same patches to a real API server and to a fake client seeded with the server's object, and compares every answer.
 * New list items carry the fields the server would default (imagePullPolicy, protocol, ...): the fake does not
 * default, and a test of the merge should not depend on it.
 */
import {
  ConfigMaps,
  Deployments,
  Secrets,
  Services,
  type KubeObject,
  type Resource,
} from '../../../src/runtime/rest/index.js';
import { Widgets } from './contract.js';

/** One object and the strategic merge patches sent to it in turn. */
export interface StrategicCase {
  name: string;
  resource: Resource;
  object: KubeObject;
  patches: unknown[];
  /** Send the patches to the status subresource. */
  status?: boolean;
}

/** A container with what the server defaults set, so that adding it needs no defaulting. */
export const container = (
  name: string,
  image: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  image,
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources: {},
  ...extra,
});

const deployment = (name: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name }, finalizers: ['example.com/a', 'example.com/b'] },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: name }, annotations: { a: '1', b: '2' } },
        spec: {
          containers: [
            container('app', 'nginx:1', {
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
                { name: 'C', value: '3' },
              ],
              ports: [
                { containerPort: 80, protocol: 'TCP', name: 'http' },
                { containerPort: 443, protocol: 'TCP', name: 'https' },
              ],
              volumeMounts: [
                { name: 'config', mountPath: '/etc/config' },
                { name: 'data', mountPath: '/data' },
              ],
              args: ['--a', '--b'],
            }),
            container('sidecar', 'busybox:1'),
          ],
          volumes: [
            { name: 'config', configMap: { name: 'settings', defaultMode: 420 } },
            { name: 'data', emptyDir: {} },
          ],
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
    },
  }) as KubeObject;

// A condition's times, set as a controller sets them (the server writes null for a time left out).
const at = { lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' };

/** The cases, from the simplest map merge to every directive; `ok` cases apply, the rest fail as the server fails. */
export const STRATEGIC_CASES: StrategicCase[] = [
  {
    name: 'ConfigMap: data and labels merge key by key, null deletes a key, $patch: replace replaces a map',
    resource: ConfigMaps,
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', labels: { a: '1', b: '2' } },
      data: { x: '1', y: '2' },
    } as KubeObject,
    patches: [
      { metadata: { labels: { b: null, c: '3' } }, data: { y: '20', z: '30' } },
      { data: { $patch: 'replace', only: 'this' } },
      { metadata: { annotations: { note: 'n' } }, data: { x: null } },
    ],
  },
  {
    name: 'Secret: data merges, and finalizers merge as a set with $deleteFromPrimitiveList',
    resource: Secrets,
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', finalizers: ['example.com/a', 'example.com/b'] },
      type: 'Opaque',
      data: { user: 'YQ==', pass: 'Yg==' },
    } as KubeObject,
    patches: [
      { data: { token: 'Yw==', pass: null } },
      { metadata: { finalizers: ['example.com/c', 'example.com/a'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/b', 'example.com/c'] } },
    ],
  },
  {
    name: 'Deployment: containers merge by name, env by name, ports by containerPort, volumeMounts by mountPath',
    resource: Deployments,
    object: deployment('merge'),
    patches: [
      {
        spec: {
          template: {
            metadata: { annotations: { b: null, c: '3' } },
            spec: {
              containers: [
                {
                  name: 'app',
                  image: 'nginx:2',
                  env: [
                    { name: 'B', value: '20' },
                    { name: 'D', value: '4' },
                  ],
                  ports: [{ containerPort: 8080, protocol: 'TCP', name: 'alt' }],
                  volumeMounts: [{ name: 'data', mountPath: '/cache', subPath: 'cache' }],
                  args: ['--c'],
                },
              ],
            },
          },
        },
      },
      { spec: { template: { spec: { containers: [container('new', 'redis:7')] } } } },
    ],
  },
  {
    name: 'Deployment: $patch: delete removes list items by key, and volumes merge by name',
    resource: Deployments,
    object: deployment('delete'),
    patches: [
      {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'app',
                  env: [{ name: 'B', $patch: 'delete' }],
                  ports: [{ containerPort: 443, $patch: 'delete' }],
                  volumeMounts: [{ mountPath: '/data', $patch: 'delete' }],
                },
                { name: 'sidecar', $patch: 'delete' },
              ],
              volumes: [
                { name: 'data', $patch: 'delete' },
                { name: 'cache', emptyDir: { medium: 'Memory' } },
              ],
            },
          },
        },
      },
      { spec: { template: { spec: { volumes: [{ name: 'config', configMap: { name: 'other' } }] } } } },
    ],
  },
  {
    name: 'Deployment: $patch: replace replaces a merging list, and tolerations (no strategy) are replaced whole',
    resource: Deployments,
    object: deployment('replace'),
    patches: [
      {
        spec: {
          template: {
            spec: {
              containers: [{ name: 'app', env: [{ $patch: 'replace' }, { name: 'ONLY', value: 'x' }] }],
              tolerations: [{ key: 'other', operator: 'Exists' }],
            },
          },
        },
      },
    ],
  },
  {
    name: 'Deployment: $setElementOrder orders a merged list, and $retainKeys clears the strategy fields it does not list',
    resource: Deployments,
    object: deployment('order'),
    patches: [
      {
        spec: {
          template: {
            spec: {
              containers: [{ name: 'app', '$setElementOrder/env': [{ name: 'C' }, { name: 'A' }, { name: 'B' }] }],
              '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
            },
          },
        },
      },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    ],
  },
  {
    name: 'Service: ports merge by port',
    resource: Services,
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: {
        selector: { app: 'a' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
          { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' },
        ],
      },
    } as KubeObject,
    patches: [
      {
        spec: {
          ports: [
            { port: 80, targetPort: 8081 },
            { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
          ],
        },
      },
      { spec: { ports: [{ port: 9090, $patch: 'delete' }] } },
    ],
  },
  {
    name: 'Deployment status: conditions merge by type on the status subresource',
    resource: Deployments,
    object: deployment('status'),
    status: true,
    patches: [
      { status: { conditions: [{ type: 'Available', status: 'False', reason: 'R', message: 'm', ...at }] } },
      { status: { conditions: [{ type: 'Progressing', status: 'True', reason: 'P', message: 'p', ...at }] } },
      { status: { conditions: [{ type: 'Available', status: 'True', reason: 'R', message: 'm', ...at }] } },
    ],
  },
];

/** Patches the server refuses, each sent alone to a fresh object of its case. */
export const STRATEGIC_ERROR_CASES: StrategicCase[] = [
  {
    name: 'a list item without its merge key',
    resource: Deployments,
    object: deployment('nokey'),
    patches: [{ spec: { template: { spec: { containers: [{ image: 'x' }] } } } }],
  },
  {
    name: '$retainKeys that is not a list',
    resource: Deployments,
    object: deployment('retain'),
    patches: [{ spec: { strategy: { $retainKeys: 'type' } } }],
  },
  {
    name: 'a field outside $retainKeys',
    resource: Deployments,
    object: deployment('retain2'),
    patches: [{ spec: { strategy: { $retainKeys: ['type'], type: 'RollingUpdate', rollingUpdate: { maxSurge: 2 } } } }],
  },
  {
    name: 'an unknown $patch directive',
    resource: ConfigMaps,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: '1' } } as KubeObject,
    patches: [{ data: { $patch: 'explode' } }],
  },
  {
    name: 'a $setElementOrder key without a list name',
    resource: ConfigMaps,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2' }, data: { x: '1' } } as KubeObject,
    patches: [{ metadata: { $setElementOrder: ['a'] } }],
  },
  {
    name: 'a custom resource (415 UnsupportedMediaType)',
    resource: Widgets,
    object: {
      apiVersion: 'contract.kubescaffold.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 1 },
    } as KubeObject,
    patches: [{ spec: { size: 2 } }],
  },
  {
    name: "a custom resource's status (415 UnsupportedMediaType)",
    resource: Widgets,
    object: {
      apiVersion: 'contract.kubescaffold.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w2' },
      spec: { size: 1 },
    } as KubeObject,
    status: true,
    patches: [{ status: { ready: true } }],
  },
];
