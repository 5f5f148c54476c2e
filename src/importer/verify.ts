/**
 * The import's own check: the files it is about to write are run through `scaffold manifests` (in a temporary folder)
 * and every CRD that comes back is compared with the one read, as a whole object. A path where they differ is a
 * problem like any other construct no marker spells, so no import ends well having lost a path unseen.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CustomResourceDefinition } from '../markers/apiextensions.js';
import { GENERATOR_ANNOTATIONS, type LocatedProblem, type SourcedCRD } from './crd-to-types.js';
import type { RenderedFile } from './render.js';
import { differingPaths, displayPath } from './json-paths.js';
import { asStored } from './as-stored.js';

/** The problems of giving `crds` back from `files` (the rendered output folder): one per differing path. */
export async function verifyRoundTrip(
  crds: readonly SourcedCRD[],
  files: readonly RenderedFile[],
): Promise<LocatedProblem[]> {
  // loaded here: the schema generator brings the TypeScript compiler, which the rest of the import does without
  const { planManifests } = await import('../generate/manifests.js');
  const dir = mkdtempSync(join(tmpdir(), 'ks-import-check-'));
  try {
    for (const f of files) {
      const path = join(dir, 'out', f.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.content);
    }
    let generated: CustomResourceDefinition[];
    try {
      generated = planManifests({ root: dir, paths: ['./out/...'], generatorVersion: '(check)' }).crds;
    } catch (err) {
      const message = (err as Error).message.replaceAll(join(dir, 'out'), '<output>');
      return crds.map((c) => ({
        docPath: [],
        where: c.crd.metadata.name,
        message: `scaffold manifests refuses the imported types (a bug of the import; please report it): ${message}`,
        origin: c.origin,
        line: undefined,
      }));
    }
    const byName = new Map(generated.map((c) => [c.metadata.name, c]));
    const problems: LocatedProblem[] = [];
    for (const src of crds) {
      const name = src.crd.metadata.name;
      // by the name the markers give it: a CRD named otherwise is reported by the import already
      const mine = byName.get(`${src.crd.spec.names.plural}.${src.crd.spec.group}`);
      const paths = mine
        ? differingPaths(comparable(src.crd), comparable(mine)).filter(
            (p) => !(p.length === 2 && p[0] === 'metadata' && p[1] === 'name'),
          )
        : [[]];
      for (const p of paths)
        problems.push({
          docPath: p,
          where: `${name} ${displayPath(p)}`.trimEnd(),
          message: mine
            ? 'scaffold manifests gives this back otherwise (a bug of the import; please report it)'
            : 'scaffold manifests makes no CRD of this name from the imported types',
          origin: src.origin,
          line: src.lineOf(p),
        });
    }
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A CRD as the import gives it back: its spec whole, and of its metadata the name, labels and annotations (a file may
 * carry what the API server sets, such as older controller-gen's `creationTimestamp: null`, which no author writes).
 */
function comparable(crd: CustomResourceDefinition): unknown {
  const c = structuredClone(crd) as CustomResourceDefinition & { status?: unknown };
  const { name, annotations, labels } = c.metadata;
  c.metadata = { name, ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) };
  for (const a of GENERATOR_ANNOTATIONS) delete c.metadata.annotations?.[a];
  if (c.metadata.annotations && Object.keys(c.metadata.annotations).length === 0) delete c.metadata.annotations;
  delete c.status;
  return asStored(c);
}
