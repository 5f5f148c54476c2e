/**
 * `scaffold import crd` then `scaffold manifests` gives back every CRD of the repository's fixtures (the expected
 * output of the parity fixtures, byte-identical to controller-gen's) and of the envtest fixtures, hand-written: 0
 * differing paths, TypeMeta's descriptions included (a Kind whose apiVersion or kind says otherwise gets a patch).
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

describe('import crd round trip on the fixtures', () => {
  it.for(folders)('$name: every CRD comes back with 0 differing paths', async ({ dir }) => {
    const files = readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => join(dir, f));
    const rt = await roundTrip([dir], readCRDs(files));
    try {
      expect(rt.diffs).toEqual(Object.fromEntries(Object.keys(rt.diffs).map((k) => [k, []])));
      // a CRD that controller-gen wrote has nothing that the markers cannot say
      expect(rt.imported.problems).toEqual([]);
    } finally {
      rt.cleanup();
    }
  });
});
