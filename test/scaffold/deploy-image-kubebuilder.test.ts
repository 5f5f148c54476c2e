/**
 * `create api --plugins=deploy-image/v1-alpha` checked against the real kubebuilder running the same command: PROJECT
 * (its plugins section exactly), the config/ files, the manager's <KIND>_IMAGE env var, the sample, and the markers of
 * the types and controller, apart from the Go→TypeScript differences listed here with their reasons.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createAPI } from '../../src/scaffold/plugins/deploy-image/index.js';
import { DEPLOY_IMAGE_KEY } from '../../src/scaffold/plugins/deploy-image/spec.js';
import { initProject, tempProjectDir } from './helpers.js';
import { listFiles, tempDir } from '../support/files.js';
import { findKubebuilder, KUBEBUILDER_VERSION, OUR_CONFIG_FILES, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

type Data = Record<string, unknown>;
type Container = { name: string; env?: Array<{ name: string; value?: string }> };

const what = `comparison of deploy-image/v1-alpha with kubebuilder ${KUBEBUILDER_VERSION}`;
const available = peerAvailable(
  what,
  process.env.KUBEBUILDER || onPath('go')
    ? undefined
    : 'Go is not installed (it builds kubebuilder) and KUBEBUILDER is not set',
);

const flags = {
  image: 'memcached:1.6.26-alpine',
  imageContainerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
  imageContainerPort: '11211',
  runAsUser: '1001',
};
const kubebuilderCreateAPI = [
  'create',
  'api',
  '--group=cache',
  '--version=v1alpha1',
  '--kind=Memcached',
  `--image=${flags.image}`,
  `--image-container-command=${flags.imageContainerCommand}`,
  `--image-container-port=${flags.imageContainerPort}`,
  `--run-as-user=${flags.runAsUser}`,
  '--plugins=deploy-image/v1-alpha',
  '--make=false',
  '--manifests=false',
];

/** Marker lines (`// +name...`) of a source file, as a sorted set. */
function markers(file: string): string[] {
  const found = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => /^\s*\/\/ (\+\S+)/.exec(l)?.[1])
    .filter((m): m is string => m !== undefined);
  return [...new Set(found)].sort();
}

function managerContainer(file: string): Container {
  const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Data);
  const deployment = docs.find((d) => d.kind === 'Deployment') as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  return deployment.spec.template.spec.containers.find((c) => c.name === 'manager')!;
}

describe.skipIf(!available)(`deploy-image/v1-alpha against kubebuilder ${KUBEBUILDER_VERSION}`, () => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, findKubebuilder);
    ours = tempProjectDir('project');
    initProject(ours.root);
    createAPI(
      ours.root,
      { group: 'cache', version: 'v1alpha1', kind: 'Memcached', namespaced: true, force: false },
      flags,
    );
    theirs = tempDir('ks-kubebuilder-');
    theirRoot = join(theirs.path, 'project');
    mkdirSync(theirRoot);
    const init = [
      'init',
      '--domain=example.com',
      '--repo=example.com/project',
      '--license=apache2',
      '--fetch-deps=false',
      '--skip-go-version-check',
    ];
    for (const args of [init, kubebuilderCreateAPI]) {
      runWithGoEnv(kubebuilder, args, theirRoot);
    }
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it('records the same plugins section in PROJECT, as the same text, and the same resource entry apart from the Go import path', () => {
    const got = parse(readFileSync(join(ours.root, 'PROJECT'), 'utf8')) as Data & { plugins: Data; resources: Data[] };
    const want = parse(readFileSync(join(theirRoot, 'PROJECT'), 'utf8')) as Data & { plugins: Data; resources: Data[] };
    expect(Object.keys(want.plugins)).toEqual([DEPLOY_IMAGE_KEY]);
    expect(got.plugins).toEqual(want.plugins);
    // Byte for byte too: the section as text, from `plugins:` to the next top-level key.
    const section = (root: string): string | undefined =>
      /^plugins:\n(?:[ -].*\n)*/m.exec(readFileSync(join(root, 'PROJECT'), 'utf8'))?.[0];
    expect(section(ours.root)).toBe(section(theirRoot));
    // The resource's path is its directory in our project where Go has an import path.
    expect(got.resources).toEqual(want.resources.map((r) => ({ ...r, path: 'api/v1alpha1' })));
  });

  it('writes the config/ files kubebuilder writes, and no others but the sharding ones', () => {
    const config = (root: string) => listFiles(root).filter((p) => p.startsWith('config/'));
    expect(config(ours.root)).toEqual(expect.arrayContaining(OUR_CONFIG_FILES));
    expect(config(ours.root).filter((p) => !OUR_CONFIG_FILES.includes(p))).toEqual(config(theirRoot));
  });

  it("gives the manager container kubebuilder's MEMCACHED_IMAGE env var, first", () => {
    const want = managerContainer(join(theirRoot, 'config/manager/manager.yaml')).env;
    // NODE_OPTIONS is ours alone (V8's heap sizing, see manager.yaml), after the image.
    const got = managerContainer(join(ours.root, 'config/manager/manager.yaml')).env?.filter(
      (e) => e.name !== 'NODE_OPTIONS',
    );
    expect(want).toEqual([{ name: 'MEMCACHED_IMAGE', value: 'memcached:1.6.26-alpine' }]);
    expect(got).toEqual(want);
  });

  it("writes kubebuilder's sample", () => {
    const sample = 'config/samples/cache_v1alpha1_memcached.yaml';
    expect(parse(readFileSync(join(ours.root, sample), 'utf8'))).toEqual(
      parse(readFileSync(join(theirRoot, sample), 'utf8')),
    );
  });

  it("has kubebuilder's markers in the types and the controller", () => {
    expect(markers(join(ours.root, 'api/v1alpha1/memcached_types.ts'))).toEqual(
      // DeepCopy generation and the List type's root marker have no TypeScript counterpart.
      markers(join(theirRoot, 'api/v1alpha1/memcached_types.go')).filter(
        (m) => !m.startsWith('+kubebuilder:object:generate'),
      ),
    );
    expect(markers(join(ours.root, 'internal/controller/memcached_controller.ts'))).toEqual(
      // The runtime's event recorder writes core/v1 Events, where controller-runtime's new recorder writes events.k8s.io ones.
      markers(join(theirRoot, 'internal/controller/memcached_controller.go'))
        .map((m) => m.replace('groups=events.k8s.io,', 'groups=core,'))
        .sort(),
    );
  });
});
