import { describe, expect, it } from 'vitest';
import {
  expand,
  nodeOptionsForLocalRun,
  parseQuantity,
  resolveContainerEnv,
  type ContainerSpec,
} from '../../src/cluster/container.js';

describe('parseQuantity', () => {
  it.each([
    ['128Mi', 128 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['64Ki', 65536],
    ['500m', 0.5],
    ['1', 1],
    ['1.5G', 1.5e9],
    ['100M', 1e8],
    ['2e3', 2000],
    ['.5', 0.5],
  ])('reads %s', (q, n) => {
    expect(parseQuantity(q)).toBe(n);
  });

  it('refuses what is not a quantity, saying what one looks like', () => {
    expect(() => parseQuantity('128MB')).toThrow('"128MB" is not a Kubernetes quantity (e.g. 128Mi, 500m, 1G)');
  });
});

describe('expand', () => {
  it('replaces $(VAR) with earlier variables, keeps unknown references, and reads $$ as a literal $', () => {
    const vars = { A: 'a', B: 'b' };
    expect(expand('x-$(A)-$(B)-$(C)', vars)).toBe('x-a-b-$(C)');
    expect(expand('$$(A) costs $$5', vars)).toBe('$(A) costs $5');
  });
});

describe('resolveContainerEnv', () => {
  const container: ContainerSpec = {
    name: 'manager',
    resources: { limits: { memory: '128Mi', cpu: '500m' }, requests: { memory: '64Mi' } },
    env: [
      { name: 'HEAP', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '2Mi' } } },
      { name: 'NODE_OPTIONS', value: '--max-old-space-size=$(HEAP)' },
      { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'TEAM', valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } } },
      { name: 'CPU_MILLI', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
      { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
      { name: 'MEM_REQUEST_MIB', valueFrom: { resourceFieldRef: { resource: 'requests.memory', divisor: '1Mi' } } },
    ],
  };

  it('resolves the Downward API and $(VAR) references in order, rounding divided resources up as the kubelet does', () => {
    const env = resolveContainerEnv(container, { name: 'mgr-0', namespace: 'ops', labels: { team: 'a' } });
    expect(env).toEqual({
      HEAP: '64',
      NODE_OPTIONS: '--max-old-space-size=64',
      WATCH_NAMESPACE: 'ops',
      POD_NAME: 'mgr-0',
      TEAM: 'a',
      CPU_MILLI: '500',
      CPU: '1',
      MEM_REQUEST_MIB: '64',
    });
  });

  it('uses the node allocatable amount for a limit that is not set, and refuses when there is none', () => {
    const open: ContainerSpec = {
      name: 'm',
      env: [{ name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }],
    };
    expect(
      resolveContainerEnv(open, { name: 'p', namespace: 'n', nodeAllocatable: { memory: 2 ** 30, cpu: 2 } }),
    ).toEqual({ MEM: '1024' });
    expect(() => resolveContainerEnv(open, { name: 'p', namespace: 'n' })).toThrow(
      'env MEM: limits.memory of container m is not set',
    );
  });

  it('reports sources a local run cannot resolve and fields the Downward API does not offer', () => {
    const secret: ContainerSpec = {
      name: 'm',
      env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }],
    };
    expect(() => resolveContainerEnv(secret, { name: 'p', namespace: 'n' })).toThrow(
      'env TOKEN of container m reads Secret creds, which a local run cannot resolve; set it with a value instead',
    );
    const bad: ContainerSpec = {
      name: 'm',
      env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.containers' } } }],
    };
    expect(() => resolveContainerEnv(bad, { name: 'p', namespace: 'n' })).toThrow(
      'env X: fieldRef spec.containers is not a field the Downward API offers',
    );
  });
});

describe('nodeOptionsForLocalRun', () => {
  const options = '--max-old-space-size-percentage=50 --max-semi-space-size=2';

  it('keeps the percentage for a Node that reads the cgroup limit itself', () => {
    expect(nodeOptionsForLocalRun(options, 192 * 2 ** 20, true)).toBe(options);
  });

  it('turns the percentage into the MiB it stands for under the limit, for a Node without the flag', () => {
    expect(nodeOptionsForLocalRun(options, 192 * 2 ** 20, false)).toBe(
      '--max-old-space-size=96 --max-semi-space-size=2',
    );
    expect(nodeOptionsForLocalRun('--max-old-space-size-percentage=37.5', 256 * 2 ** 20, false)).toBe(
      '--max-old-space-size=96',
    );
  });
});
