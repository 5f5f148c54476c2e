/**
 * The scaffolded files checked against the real kubebuilder: each snapshot case is run through kubebuilder too, and
 * every file both write (config/, PROJECT, the boilerplate) must hold kubebuilder's data, and every Go source with a
 * TypeScript twin kubebuilder's markers, apart from the Go→TypeScript differences listed here with their reasons.
 * That makes the snapshots in __snapshots__ evidence rather than a freeze. Comments are ours and are not compared.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { cases, kubebuilderArgs, scaffold } from './cases.js';
import { tempProjectDir } from './helpers.js';
import { listFiles, tempDir } from '../support/files.js';
import { findKubebuilder, KUBEBUILDER_VERSION, OUR_CONFIG_FILES, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

type Data = Record<string, unknown>;
type Container = Data & {
  command?: string[];
  env?: Array<{ name: string; value?: string }>;
  resources: { limits: Data; requests: Data };
};

const available = peerAvailable(
  `comparison with kubebuilder ${KUBEBUILDER_VERSION}`,
  process.env.KUBEBUILDER || onPath('go')
    ? undefined
    : 'Go is not installed (it builds kubebuilder) and KUBEBUILDER is not set',
);

/** How our file differs from kubebuilder's by design, applied to kubebuilder's parsed documents. */
function expectedDifferences(path: string, docs: Data[]): Data[] {
  if (path === 'PROJECT') {
    const project = docs[0]!;
    const repo = project.repo as string;
    // The layout names our plugin; repo is the npm package name where Go has a module path, and a resource's path is
    // its directory in the project (or the package a built-in type comes from) where Go has an import path.
    project.layout = ['typescript.kubescaffold.io/v1'];
    project.repo = project.projectName;
    for (const r of project.resources as Data[]) {
      // an external API's path is what the user gave, in both
      if (r.external) continue;
      const path = r.path as string;
      r.path = path.startsWith(`${repo}/`) ? path.slice(repo.length + 1) : '@kubernetes/client-node';
    }
  }
  if (path === 'config/manager/manager.yaml') {
    const deployment = docs.find((d) => d.kind === 'Deployment') as {
      spec: { template: { spec: { containers: Container[] } } };
    };
    const manager = deployment.spec.template.spec.containers[0]!;
    // The image's entrypoint runs node on the built manager, where Go's image holds a /manager binary.
    delete manager.command;
    // V8 sizes its heap from the container's memory limit only when told to (see the comment in manager.yaml).
    manager.env = [
      { name: 'NODE_OPTIONS', value: '--max-old-space-size-percentage=70 --max-semi-space-size=2' },
      ...(manager.env ?? []),
    ];
    // A Node manager needs more than a Go one: the limits are sized from our benchmark of a scaffolded manager.
    manager.resources.limits.memory = '192Mi';
    manager.resources.requests.memory = '96Mi';
  }
  if (path.startsWith('config/samples/') && path !== 'config/samples/kustomization.yaml') {
    // Our sample sets the scaffolded spec's one field, so that it is a valid object to apply as it is.
    docs[0]!.spec = { foo: 'bar' };
  }
  return docs;
}

/** Marker lines (`// +name...`) of a source file, as a set. */
function markers(file: string): string[] {
  const found = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => /^\s*\/\/ (\+\S+)/.exec(l)?.[1])
    .filter((m): m is string => m !== undefined);
  return (
    [...new Set(found)]
      // DeepCopy generation (object:generate, and root on the List types) has no TypeScript counterpart, nor has the
      // scheme that main.go's scaffold:scheme marker fills; create webhook inserts the server at scaffold:manager-options.
      .filter((m) => !/^\+kubebuilder:(object:generate=|scaffold:scheme$|scaffold:manager-options$)/.test(m))
      .sort()
  );
}

const yamlData = (file: string): Data[] => parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Data);

describe.skipIf(!available).each(cases)(`$name against kubebuilder ${KUBEBUILDER_VERSION}`, ({ steps }) => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(`comparison with kubebuilder ${KUBEBUILDER_VERSION}`, findKubebuilder);
    ours = tempProjectDir('project');
    scaffold(ours.root, steps);
    theirs = tempDir('ks-kubebuilder-');
    theirRoot = join(theirs.path, 'project');
    mkdirSync(theirRoot);
    for (const args of kubebuilderArgs('project', steps)) {
      runWithGoEnv(kubebuilder, args, theirRoot);
    }
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it('writes the config/ files kubebuilder writes, and no others but the sharding ones', () => {
    const config = (root: string) => listFiles(root).filter((p) => p.startsWith('config/'));
    // kubebuilder has no sharding: the [SHARDING] sections of config/default (commented out) are ours alone.
    expect(config(ours.root)).toEqual(expect.arrayContaining(OUR_CONFIG_FILES));
    expect(config(ours.root).filter((p) => !OUR_CONFIG_FILES.includes(p))).toEqual(config(theirRoot));
  });

  it("holds kubebuilder's data in every config/ file and PROJECT, apart from the listed differences", () => {
    const shared = listFiles(ours.root).filter(
      (p) => (p.startsWith('config/') || p === 'PROJECT') && existsSync(join(theirRoot, p)),
    );
    expect(shared).toContain('PROJECT');
    for (const path of shared) {
      const want = expectedDifferences(path, yamlData(join(theirRoot, path)));
      const got = yamlData(join(ours.root, path));
      if (path === 'PROJECT') {
        // We record the license and owner so that later commands write the same file headers; kubebuilder keeps them
        // in hack/boilerplate.go.txt only. The CLI version is each tool's own.
        for (const key of ['license', 'owner']) delete got[0]![key];
        for (const doc of [got[0]!, want[0]!]) delete doc.cliVersion;
      }
      expect(got, path).toEqual(want);
    }
  });

  it("has kubebuilder's markers in every source file that has a TypeScript twin", () => {
    const twins = listFiles(theirRoot)
      .filter((p) => p.endsWith('.go') && !p.endsWith('_test.go'))
      .map((p) => ({ go: p, ts: p.replace(/\.go$/, '.ts') }))
      .filter(({ ts }) => existsSync(join(ours.root, ts)));
    expect(twins.map((t) => t.ts)).toContain('cmd/main.ts');
    for (const { go, ts } of twins) expect(markers(join(ours.root, ts)), ts).toEqual(markers(join(theirRoot, go)));
  });

  it("writes kubebuilder's license header, or none where kubebuilder writes none", () => {
    const header = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trimEnd() : undefined);
    expect(header(join(ours.root, 'hack/boilerplate.txt'))).toBe(header(join(theirRoot, 'hack/boilerplate.go.txt')));
  });
});
