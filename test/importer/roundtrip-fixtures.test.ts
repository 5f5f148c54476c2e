/**
 * `scaffold import crd` then `scaffold manifests` gives back every CRD of the repository's fixtures (the expected
 * output of the parity fixtures, byte-identical to controller-gen's) and of the envtest fixtures: 0 differing paths.
 */
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCRDs, roundTrip } from '../support/import-roundtrip.js';

const markers = join(import.meta.dirname, '../fixtures/markers');
const folders = readdirSync(markers)
  .map((name) => ({ name, dir: join(markers, name, 'expected/config/crd/bases') }))
  .filter((f) => existsSync(f.dir));
folders.push({ name: 'envtest-widgets', dir: join(import.meta.dirname, '../envtest/fixtures/crds') });

/**
 * Fixtures whose Kinds' apiVersion and kind descriptions are not TypeMeta's: `options` was made with maxDescLen (a
 * generator option, which truncates them), and the envtest fixture was written by hand without them. A Kind extends
 * TypeMeta, whose descriptions win over a property declared again, as in controller-gen, so those two descriptions
 * are the only paths allowed to differ there.
 */
const typeMetaDescriptionsDiffer = new Set(['options', 'envtest-widgets']);
const typeMetaDescription =
  /^\.spec\.versions\[\d+\]\.schema\.openAPIV3Schema\.properties\.(apiVersion|kind)\.description: /;

describe('import crd round trip on the fixtures', () => {
  it.for(folders)(
    '$name: every CRD comes back with 0 differing paths, but for TypeMeta descriptions where noted',
    async ({ name, dir }) => {
      const files = readdirSync(dir)
        .filter((f) => /\.ya?ml$/.test(f))
        .map((f) => join(dir, f));
      const rt = await roundTrip([dir], readCRDs(files));
      try {
        const diffs = typeMetaDescriptionsDiffer.has(name)
          ? Object.fromEntries(
              Object.entries(rt.diffs).map(([k, paths]) => [k, paths.filter((p) => !typeMetaDescription.test(p))]),
            )
          : rt.diffs;
        expect(diffs).toEqual(Object.fromEntries(Object.keys(rt.diffs).map((k) => [k, []])));
        // a CRD that controller-gen wrote has nothing that the markers cannot say
        expect(rt.imported.problems).toEqual([]);
      } finally {
        rt.cleanup();
      }
    },
  );
});
