/**
 * Parity with the real controller-gen on large public operator APIs: test/fixtures/public-apis/<name>/ holds their
 * CRD types translated into TypeScript by hand (every field, marker and comment, as docs/types.md spells them), and
 * module.json names the Go module and packages they were translated from. The Go module is fetched from the module
 * proxy at test time and controller-gen runs on the Go originals (output cached under ~/.cache by module version and
 * controller-gen version); `scaffold manifests` on the TypeScript must write byte-identical CRDs, apart from the
 * version annotation.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { planManifests } from '../../src/generate/manifests.js';
import { findControllerGen, hasGo, publicApiCRDs, type PublicApi } from '../../scripts/lib/controller-gen.js';
import { peerAvailable } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const fixtures = join(import.meta.dirname, '../fixtures/public-apis');
const apis = readdirSync(fixtures).filter((d) => existsSync(join(fixtures, d, 'module.json')));
const available = peerAvailable(
  'parity with controller-gen on public APIs',
  hasGo() || process.env.CONTROLLER_GEN !== undefined
    ? undefined
    : 'Go is not installed (it builds controller-gen and fetches the modules) and CONTROLLER_GEN is not set',
);
let controllerGen: string | undefined;

const dropVersion = (yaml: string): string =>
  yaml.replace(/^ {4}(controller-gen\.kubebuilder\.io|kubescaffold\.io)\/version: .*\n/m, '');

describe.skipIf(!available)('parity with controller-gen on public APIs', () => {
  beforeAll(() => {
    try {
      controllerGen = findControllerGen();
    } catch (err) {
      peerAvailable(
        'parity with controller-gen on public APIs',
        `controller-gen could not be built: ${(err as Error).message}`,
      );
    }
  }, GO_BUILD_MS);

  it('has the APIs it names', () => {
    expect(apis.length).toBeGreaterThanOrEqual(1);
  });

  // Fetching a module and running controller-gen on it: seconds once Go's caches are warm, minutes when cold.
  it.for(apis)('%s', { timeout: GO_BUILD_MS }, (name, ctx) => {
    if (!controllerGen) ctx.skip();
    const root = join(fixtures, name);
    const api = JSON.parse(readFileSync(join(root, 'module.json'), 'utf8')) as PublicApi;
    const theirs = publicApiCRDs(api, controllerGen!);
    const ours = Object.fromEntries(
      planManifests({ root, generatorVersion: '(devel)' })
        .files.filter((f) => f.path.includes('/config/crd/bases/'))
        .map((f) => [basename(f.path), f.content]),
    );
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    for (const [file, content] of Object.entries(theirs))
      expect(dropVersion(ours[file]!), file).toBe(dropVersion(content));
  });
});
