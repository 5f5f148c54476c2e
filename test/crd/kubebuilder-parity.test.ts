/**
 * Parity with kubebuilder's own testdata projects (project-v4 and project-v4-multigroup of kubebuilder v4.15.0). The
 * Go project is not committed: it is generated here with the real kubebuilder from the fixture's kubebuilder.json
 * (the commands of kubebuilder's test/testdata/generate.sh that shape the API types), and controller-gen's CRDs for
 * it must be byte-identical, apart from the version annotation, to ours for the fixture: the TypeScript port of the
 * generated types files. Skipped with a warning where Go, kubebuilder or controller-gen is missing; under
 * REQUIRE_PARITY=1 that fails instead.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planManifests } from '../../src/generate/manifests.js';
import { findControllerGen, hasGo } from '../../scripts/lib/controller-gen.js';
import { listFiles, tempDir } from '../support/files.js';
import { findKubebuilder, KUBEBUILDER_VERSION } from '../support/kubebuilder.js';
import { generateKubebuilderProject, readRecipe, runControllerGen } from '../support/kubebuilder-project.js';
import { peerAvailable } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const fixtures = join(import.meta.dirname, '../fixtures/markers');
const cases = readdirSync(fixtures).filter((d) => existsSync(join(fixtures, d, 'kubebuilder.json')));
const what = `parity with kubebuilder ${KUBEBUILDER_VERSION}'s testdata projects`;
const available = peerAvailable(
  what,
  hasGo()
    ? undefined
    : 'Go is not installed (kubebuilder init runs go mod tidy; Go builds kubebuilder and controller-gen)',
);
const CRD_DIR = 'config/crd/bases';

const dropVersion = (yaml: string): string =>
  yaml.replace(/^ {4}(controller-gen\.kubebuilder\.io|kubescaffold\.io)\/version: .*\n/m, '');

/** kubebuilder and controller-gen, or undefined (with a warning, or an error under REQUIRE_PARITY=1) when either cannot be had. */
function findTools(): { kubebuilder: string; controllerGen: string } | undefined {
  try {
    const controllerGen = findControllerGen();
    if (controllerGen === undefined) throw new Error('controller-gen is neither cached nor buildable');
    return { kubebuilder: findKubebuilder(), controllerGen };
  } catch (err) {
    peerAvailable(what, (err as Error).message);
    return undefined;
  }
}

describe.skipIf(!available).each(cases)(`%s against kubebuilder ${KUBEBUILDER_VERSION} and controller-gen`, (name) => {
  const root = join(fixtures, name);
  let work: { path: string; remove: () => void } | undefined;
  /** controller-gen's CRDs for the kubebuilder project, by path relative to the project, without the version annotation. */
  let theirs: Record<string, string> | undefined;

  beforeAll(() => {
    const tools = findTools();
    if (!tools) return;
    work = tempDir('ks-kubebuilder-parity-');
    // Named as in kubebuilder's testdata (kubebuilder takes the project name from the folder).
    const dir = join(work.path, name.replace(/^kubebuilder-/, ''));
    generateKubebuilderProject(tools.kubebuilder, readRecipe(join(root, 'kubebuilder.json')), dir);
    const out = runControllerGen(tools.controllerGen, dir);
    const crds = listFiles(join(out, CRD_DIR));
    theirs = Object.fromEntries(
      crds.map((p) => [join(CRD_DIR, p), dropVersion(readFileSync(join(out, CRD_DIR, p), 'utf8'))]),
    );
  }, GO_BUILD_MS);
  afterAll(() => work?.remove());

  const ours = (): Record<string, string> =>
    Object.fromEntries(
      planManifests({ root, generatorVersion: '(devel)' })
        .files.map((f) => [relative(root, f.path), f.content] as const)
        .filter(([path]) => path.startsWith(`${CRD_DIR}/`))
        .map(([path, content]) => [path, dropVersion(content)]),
    );

  it('writes the CRDs controller-gen writes for the kubebuilder project, and no others', (ctx) => {
    if (!theirs) return ctx.skip();
    expect(Object.keys(theirs).length).toBeGreaterThan(0);
    expect(Object.keys(ours()).sort()).toEqual(Object.keys(theirs).sort());
  });

  it('writes each CRD byte for byte as controller-gen does, apart from the version annotation', (ctx) => {
    if (!theirs) return ctx.skip();
    const got = ours();
    for (const [path, content] of Object.entries(theirs)) expect(got[path], path).toBe(content);
  });
});
