import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { createAPI } from '../../src/scaffold/plugins/deploy-image/index.js';
import { addImageEnvVar } from '../../src/scaffold/plugins/deploy-image/manager-env.js';
import { replayDeployImage } from '../../src/scaffold/plugins/deploy-image/replay.js';
import { DEPLOY_IMAGE_KEY, deployImageSpec } from '../../src/scaffold/plugins/deploy-image/spec.js';
import { pluginSpecs, replayCommandLine, type PluginSpec } from '../../src/scaffold/plugins/registry.js';
import { builtinSteps, resolveChain } from '../../src/scaffold/plugins/chain.js';
import { differingFiles, scaffold } from './alpha/cli-run.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';

/** The plugin as the registry gives it: its spec data, code and replay. */
const registered = (): PluginSpec => {
  const [spec, ...others] = pluginSpecs.filter((s) => s.key === DEPLOY_IMAGE_KEY);
  expect(others).toEqual([]);
  return spec!;
};

const memcached = { group: 'cache', version: 'v1alpha1', kind: 'Memcached', namespaced: true, force: false };
const allFlags = {
  image: 'memcached:1.6.26-alpine',
  imageContainerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
  imageContainerPort: '11211',
  runAsUser: '1001',
};

describe('deploy-image/v1-alpha create api', () => {
  let project: { root: string; cleanup: () => void } | undefined;
  afterEach(() => project?.cleanup());

  const initialized = (options: Parameters<typeof initProject>[1] = {}): string => {
    project = tempProjectDir('memcached-operator');
    initProject(project.root, options);
    return project.root;
  };
  const read = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');

  it("is registered under kubebuilder's key for create api, with its four flags", () => {
    expect(registered()).toMatchObject(deployImageSpec);
    expect(builtinSteps(resolveChain('deploy-image/v1-alpha', 'create api'))).toEqual([registered()]);
    expect(deployImageSpec.key).toBe('deploy-image.go.kubebuilder.io/v1-alpha');
    expect(deployImageSpec.flags['create api']?.map((f) => f.flags.split(' ')[0])).toEqual([
      '--image',
      '--image-container-command',
      '--image-container-port',
      '--run-as-user',
    ]);
  });

  it('scaffolds the types, controller, conditions, controller test and sample of the operand', () => {
    const root = initialized();
    const { written } = createAPI(root, memcached, allFlags);
    expect(written).toEqual(
      expect.arrayContaining([
        'api/v1alpha1/memcached_types.ts',
        'internal/controller/memcached_controller.ts',
        'internal/controller/memcached_controller.test.ts',
        'internal/controller/conditions.ts',
        'config/samples/cache_v1alpha1_memcached.yaml',
        'config/manager/manager.yaml',
        'cmd/main.ts',
        'PROJECT',
      ]),
    );
    // Ours alone: kubebuilder's deploy-image writes the envtest test only, our plain create api both.
    expect(written).toContain('internal/controller/memcached_controller.fake.test.ts');
    for (const path of [
      'api/v1alpha1/memcached_types.ts',
      'internal/controller/memcached_controller.ts',
      'internal/controller/memcached_controller.test.ts',
      'internal/controller/memcached_controller.fake.test.ts',
      'internal/controller/conditions.ts',
      'config/samples/cache_v1alpha1_memcached.yaml',
    ]) {
      expect(read(root, path)).toMatchSnapshot(path);
    }
  });

  it("writes the operand's settings into the controller: image from MEMCACHED_IMAGE, command, port, user, finalizer", () => {
    const root = initialized();
    createAPI(root, memcached, allFlags);
    const controller = read(root, 'internal/controller/memcached_controller.ts');
    expect(controller).toContain("const memcachedFinalizer = 'cache.example.com/finalizer';");
    expect(controller).toContain("const imageEnvVar = 'MEMCACHED_IMAGE';");
    expect(controller).toContain("command: ['memcached', '--memory-limit=64', '-o', 'modern', '-v'],");
    expect(controller).toContain("ports: [{ containerPort: memcached.spec.containerPort, name: 'memcached' }],");
    expect(controller).toContain('runAsUser: 1001,');
    expect(controller).toContain(
      '// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete',
    );
    expect(read(root, 'cmd/main.ts')).toContain(
      "new MemcachedReconciler(mgr.getClient(), mgr.getEventRecorderFor('memcached-controller')).setupWithManager(mgr);",
    );
    const sample = parse(read(root, 'config/samples/cache_v1alpha1_memcached.yaml')) as { spec: unknown };
    expect(sample.spec).toEqual({ size: 1, containerPort: 11211 });
  });

  it('leaves the port, command and user out when they are not given', () => {
    const root = initialized();
    createAPI(root, memcached, { image: 'memcached:1.6.26-alpine' });
    const controller = read(root, 'internal/controller/memcached_controller.ts');
    expect(controller).not.toMatch(/ports:|command:|runAsUser:/);
    expect(read(root, 'api/v1alpha1/memcached_types.ts')).not.toContain('containerPort');
    expect((parse(read(root, 'config/samples/cache_v1alpha1_memcached.yaml')) as { spec: unknown }).spec).toEqual({
      size: 1,
    });
    expect(parse(read(root, 'PROJECT')).plugins[DEPLOY_IMAGE_KEY].resources).toEqual([
      {
        domain: 'example.com',
        group: 'cache',
        kind: 'Memcached',
        options: { image: 'memcached:1.6.26-alpine' },
        version: 'v1alpha1',
      },
    ]);
  });

  it("records the resource in PROJECT's plugins section as kubebuilder does, beside the resource entry", () => {
    const root = initialized();
    createAPI(root, memcached, allFlags);
    const project = read(root, 'PROJECT');
    expect(project).toContain(`plugins:
  deploy-image.go.kubebuilder.io/v1-alpha:
    resources:
    - domain: example.com
      group: cache
      kind: Memcached
      options:
        containerCommand: memcached,--memory-limit=64,-o,modern,-v
        containerPort: "11211"
        image: memcached:1.6.26-alpine
        runAsUser: "1001"
      version: v1alpha1
`);
    expect(parse(project).resources).toEqual([
      {
        api: { crdVersion: 'v1', namespaced: true },
        controller: true,
        domain: 'example.com',
        group: 'cache',
        kind: 'Memcached',
        path: 'api/v1alpha1',
        version: 'v1alpha1',
      },
    ]);
  });

  it('adds <KIND>_IMAGE first in the manager container env, once per Kind', () => {
    const root = initialized();
    createAPI(root, memcached, allFlags);
    createAPI(root, { ...memcached, kind: 'Redis' }, { image: 'redis:7' });
    type Doc = {
      kind: string;
      spec: {
        template: { spec: { containers: Array<{ name: string; env: Array<{ name: string; value: string }> }> } };
      };
    };
    const docs = read(root, 'config/manager/manager.yaml')
      .split(/^---$/m)
      .map((d) => parse(d) as Doc);
    const manager = docs
      .find((d) => d.kind === 'Deployment')!
      .spec.template.spec.containers.find((c) => c.name === 'manager')!;
    expect(manager.env.map((e) => [e.name, e.value])).toEqual([
      ['REDIS_IMAGE', 'redis:7'],
      ['MEMCACHED_IMAGE', 'memcached:1.6.26-alpine'],
      ['NODE_OPTIONS', '--max-old-space-size-percentage=70 --max-semi-space-size=2'],
    ]);
    // A second resource of the same group shares conditions.ts, and both are recorded.
    expect(
      parse(read(root, 'PROJECT')).plugins[DEPLOY_IMAGE_KEY].resources.map((r: { kind: string }) => r.kind),
    ).toEqual(['Memcached', 'Redis']);
  });

  it('sets the value of an image env var that is already there, and adds env: when the container has none', () => {
    const withVar =
      '      - name: manager\n        env:\n        - name: MEMCACHED_IMAGE\n          value: memcached:1.6.15\n        image: controller:latest\n';
    expect(addImageEnvVar(withVar, 'MEMCACHED_IMAGE', 'memcached:1.6.26')).toBe(
      withVar.replace('memcached:1.6.15', 'memcached:1.6.26'),
    );
    const withoutEnv =
      '      containers:\n      - image: controller:latest\n        name: manager\n        ports: []\n      - name: sidecar\n        env:\n        - name: X\n          value: y\n';
    expect(addImageEnvVar(withoutEnv, 'MEMCACHED_IMAGE', 'memcached:1.6.26')).toBe(
      '      containers:\n      - image: controller:latest\n        name: manager\n        env:\n        - name: MEMCACHED_IMAGE\n          value: memcached:1.6.26\n        ports: []\n      - name: sidecar\n        env:\n        - name: X\n          value: y\n',
    );
    expect(() => addImageEnvVar('kind: Deployment\n', 'MEMCACHED_IMAGE', 'm:1')).toThrow(/no container named manager/);
  });

  it('scaffolds the controller and conditions.ts in the group folder of a multigroup project, with namespaced RBAC', () => {
    const root = initialized({ multigroup: true, namespaced: true });
    const { written } = createAPI(root, memcached, { image: 'memcached:1.6.26-alpine' });
    expect(written).toEqual(
      expect.arrayContaining([
        'api/cache/v1alpha1/memcached_types.ts',
        'internal/controller/cache/memcached_controller.ts',
        'internal/controller/cache/conditions.ts',
      ]),
    );
    const controller = read(root, 'internal/controller/cache/memcached_controller.ts');
    expect(controller).toContain("from '../../../api/cache/v1alpha1/memcached_types.js'");
    expect(controller).toContain(
      '// +kubebuilder:rbac:groups=core,namespace=memcached-operator-system,resources=events,verbs=create;patch',
    );
    expect(controller).toContain(".named('cache-memcached')");
  });

  describe('refuses, writing nothing', () => {
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      ['no --image', { imageContainerPort: '11211' }, /--image is required with --plugins=deploy-image\/v1-alpha/],
      ['an image with a space', { image: 'memcached 1.6' }, /--image "memcached 1.6" is not an image reference/],
      [
        'a port that is not a number',
        { image: 'm:1', imageContainerPort: 'http' },
        /--image-container-port must be a valid integer, got "http"/,
      ],
      [
        'a port out of range',
        { image: 'm:1', imageContainerPort: '70000' },
        /--image-container-port must be between 1 and 65535, got 70000/,
      ],
      ['port 0', { image: 'm:1', imageContainerPort: '0' }, /between 1 and 65535, got 0/],
      [
        'a user that is not a number',
        { image: 'm:1', runAsUser: 'nobody' },
        /--run-as-user must be a valid integer, got "nobody"/,
      ],
      ['a negative user', { image: 'm:1', runAsUser: '-1' }, /--run-as-user must be non-negative, got -1/],
      ['user 0 (root)', { image: 'm:1', runAsUser: '0' }, /--run-as-user cannot be 0 \(root\)/],
      [
        'a command with an empty part',
        { image: 'm:1', imageContainerCommand: 'memcached,,-v' },
        /--image-container-command "memcached,,-v" has an empty part/,
      ],
    ];
    it.each(refusals)('%s', (_name, flags, message) => {
      const root = initialized();
      const before = snapshotTree(root);
      expect(() => createAPI(root, memcached, flags)).toThrow(message);
      expect(snapshotTree(root)).toEqual(before);
    });

    it('a cluster-scoped API (--namespaced=false): the Deployment lives in the namespace of the custom resource', () => {
      const root = initialized();
      const before = snapshotTree(root);
      expect(() => createAPI(root, { ...memcached, namespaced: false }, { image: 'm:1' })).toThrow(
        /--namespaced=false cannot be used with --plugins=deploy-image/,
      );
      expect(snapshotTree(root)).toEqual(before);
    });

    it('an API that exists already, without --force', () => {
      const root = initialized();
      createAPI(root, memcached, { image: 'm:1' });
      const before = snapshotTree(root);
      expect(() => createAPI(root, memcached, { image: 'm:2' })).toThrow(
        /API resource already exists: cache.example.com\/v1alpha1, Kind=Memcached; pass --force/,
      );
      expect(snapshotTree(root)).toEqual(before);
    });

    it('a manager.yaml without the manager container, leaving the other files unwritten too', () => {
      const root = initialized();
      writeFileSync(join(root, 'config/manager/manager.yaml'), 'kind: Deployment\n');
      const before = snapshotTree(root);
      expect(() => createAPI(root, memcached, { image: 'm:1' })).toThrow(
        /config\/manager\/manager.yaml has no container named manager/,
      );
      expect(snapshotTree(root)).toEqual(before);
    });
  });

  it('scaffolds again with --force: the new image replaces the recorded one, in PROJECT and manager.yaml', () => {
    const root = initialized();
    createAPI(root, memcached, allFlags);
    createAPI(root, { ...memcached, force: true }, { image: 'memcached:1.6.30' });
    expect(parse(read(root, 'PROJECT')).plugins[DEPLOY_IMAGE_KEY].resources).toEqual([
      {
        domain: 'example.com',
        group: 'cache',
        kind: 'Memcached',
        options: { image: 'memcached:1.6.30' },
        version: 'v1alpha1',
      },
    ]);
    expect(read(root, 'config/manager/manager.yaml').match(/MEMCACHED_IMAGE/g)).toHaveLength(1);
    expect(read(root, 'config/manager/manager.yaml')).toContain('value: memcached:1.6.30');
  });

  it('takes over a plain create api with --force: one setup line in main.ts, the one with the recorder, and its own tests', () => {
    const root = initialized();
    scaffoldCreateAPI(root, { ...memcached, resource: true, controller: true });
    expect(read(root, 'cmd/main.ts')).toContain('new MemcachedReconciler(mgr.getClient()).setupWithManager(mgr);');
    createAPI(root, { ...memcached, force: true }, { image: 'memcached:1.6.26-alpine' });
    const setups = read(root, 'cmd/main.ts')
      .split('\n')
      .filter((l) => l.includes('MemcachedReconciler('));
    expect(setups).toEqual([
      "new MemcachedReconciler(mgr.getClient(), mgr.getEventRecorderFor('memcached-controller')).setupWithManager(mgr);",
    ]);
    // The plain tests construct the reconciler with the client alone; both are replaced.
    for (const test of ['memcached_controller.test.ts', 'memcached_controller.fake.test.ts'])
      expect(read(root, `internal/controller/${test}`)).toContain('new MemcachedReconciler(client, recorder)');
  });
});

describe('deploy-image/v1-alpha replay', () => {
  it('gives one create api command per recorded resource, naming the resource it replaces', () => {
    const recorded = {
      resources: [
        {
          domain: 'example.com',
          group: 'cache',
          kind: 'Memcached',
          version: 'v1alpha1',
          options: {
            image: 'memcached:1.6.26-alpine',
            containerCommand: 'memcached,-v',
            containerPort: '11211',
            runAsUser: '1001',
          },
        },
        { domain: 'example.com', group: 'cache', kind: 'Redis', version: 'v1', options: { image: 'redis:7' } },
      ],
    };
    const replays = registered().replay(recorded);
    expect(replays).toEqual([
      {
        command: 'create api',
        request: { group: 'cache', version: 'v1alpha1', kind: 'Memcached', namespaced: true, force: false },
        flags: {
          image: 'memcached:1.6.26-alpine',
          imageContainerCommand: 'memcached,-v',
          imageContainerPort: '11211',
          runAsUser: '1001',
        },
      },
      {
        command: 'create api',
        request: { group: 'cache', version: 'v1', kind: 'Redis', namespaced: true, force: false },
        flags: { image: 'redis:7' },
      },
    ]);
    expect(replays.map((r) => replayCommandLine(registered(), r))).toEqual([
      [
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--plugins=deploy-image/v1-alpha',
        '--image=memcached:1.6.26-alpine',
        '--image-container-command=memcached,-v',
        '--image-container-port=11211',
        '--run-as-user=1001',
      ],
      [
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1',
        '--kind',
        'Redis',
        '--plugins=deploy-image/v1-alpha',
        '--image=redis:7',
      ],
    ]);
  });

  it("gives nothing for a section that does not have kubebuilder's shape", () => {
    expect(replayDeployImage(undefined)).toEqual([]);
    expect(replayDeployImage({ resources: [{ kind: 'Memcached' }] })).toEqual([]);
    expect(replayDeployImage({})).toEqual([]);
  });
});

describe('deploy-image/v1-alpha under alpha generate', () => {
  it('scaffolds a project with a deploy-image API again, file for file', async () => {
    const { root, cleanup } = tempProjectDir('memcached-operator');
    const output = `${root}-generated`;
    try {
      await scaffold(root, 'init', '--domain', 'example.com', '--skip-install');
      await scaffold(
        root,
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--plugins=deploy-image/v1-alpha',
        '--image=memcached:1.6.26-alpine',
        '--image-container-command=memcached,--memory-limit=64,-o,modern,-v',
        '--image-container-port=11211',
        '--run-as-user=1001',
      );
      await scaffold(root, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Guest');
      const printed = await scaffold(root, 'alpha', 'generate', '--output-dir', output);
      expect(printed).toContain('--plugins=deploy-image/v1-alpha');
      expect(differingFiles(snapshotTree(output), snapshotTree(root))).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
