/**
 * The round trip on a corpus of public CRDs of four makes (test/support/crd-corpus.ts), fetched at test time:
 * `scaffold import crd` then `scaffold manifests` must give back each CRD, spec and metadata, with 0 differing paths,
 * with nothing reported lost, and the imported types must compile under the project's strict tsconfig. Needs Go (it
 * fetches the modules); under REQUIRE_PARITY=1 its absence fails the suite.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS, corpusFiles, corpusMissing } from '../support/crd-corpus.js';
import { listFiles } from '../support/files.js';
import { readCRDs, roundTrip } from '../support/import-roundtrip.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { peerAvailable } from '../support/peers.js';
import { typeErrors } from '../support/typecheck.js';

const available = peerAvailable('the import round trip on the CRD corpus', corpusMissing());

describe.skipIf(!available)('import crd round trip on a corpus of public CRDs', () => {
  it('holds at least 30 CRDs', () => {
    const count = CORPUS.reduce((n, source) => n + readCRDs(corpusFiles(source)).length, 0);
    expect(count).toBeGreaterThanOrEqual(30);
  });

  it.for(CORPUS)(
    '$name ($make): every CRD comes back whole with 0 differing paths, nothing lost, and the types compile',
    { timeout: GO_BUILD_MS },
    async (source) => {
      const files = corpusFiles(source);
      const originals = readCRDs(files);
      expect(originals.length).toBeGreaterThan(0);
      const rt = await roundTrip(files, originals);
      try {
        // the CRD as a whole object, its spec and its metadata's name, labels and annotations
        expect(rt.diffs).toEqual(Object.fromEntries(originals.map((c) => [c.metadata.name, []])));
        expect(rt.imported.problems).toEqual([]);
        const out = join(rt.dir, 'out');
        expect(
          typeErrors(
            listFiles(out)
              .filter((f) => f.endsWith('.ts'))
              .map((f) => join(out, f)),
          ),
        ).toEqual([]);
      } finally {
        rt.cleanup();
      }
    },
  );
});
