/**
 * The round trip of `scaffold import crd`: CRDs -> TypeScript types (importCRDs) -> CRDs (planManifests), compared
 * with the originals as whole objects, apart from the generator's version annotation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readFileSync } from 'node:fs';
import { importCRDs, type ImportResult } from '../../src/importer/command.js';
import { planManifests } from '../../src/generate/manifests.js';
import type { CustomResourceDefinition } from '../../src/markers/apiextensions.js';
import { differingPaths } from './object-diff.js';

const VERSION_ANNOTATIONS = ['controller-gen.kubebuilder.io/version', 'kubescaffold.io/version'];

/** A CRD as compared: without the generator's version annotation and the status the API server writes. */
export function comparable(crd: CustomResourceDefinition): unknown {
  const c = structuredClone(crd) as CustomResourceDefinition & { status?: unknown };
  for (const a of VERSION_ANNOTATIONS) delete c.metadata.annotations?.[a];
  if (c.metadata.annotations && Object.keys(c.metadata.annotations).length === 0) delete c.metadata.annotations;
  delete c.status;
  return c;
}

/** The CRDs of YAML files. */
export function readCRDs(files: readonly string[]): CustomResourceDefinition[] {
  return files.flatMap((f) =>
    parseAllDocuments(readFileSync(f, 'utf8'))
      .map((d) => d.toJS() as CustomResourceDefinition)
      .filter((d) => d?.kind === 'CustomResourceDefinition'),
  );
}

/** The outcome of one round trip: the differing paths by CRD name, and what the import reported. */
export interface RoundTrip {
  diffs: Record<string, string[]>;
  imported: ImportResult;
  /** The folder the types were written to (removed by cleanup()). */
  dir: string;
  cleanup(): void;
}

/** Imports `sources`, generates CRDs from the result, and compares them with `originals`. */
export async function roundTrip(
  sources: readonly string[],
  originals: readonly CustomResourceDefinition[],
  opts: { allowDangerousTypes?: boolean; keep?: boolean; lossy?: boolean } = {},
): Promise<RoundTrip> {
  const dir = mkdtempSync(join(tmpdir(), 'ks-import-'));
  const imported = await importCRDs({ root: dir, sources, outputDir: 'out', boilerplate: '', lossy: opts.lossy });
  const { crds } = planManifests({
    root: dir,
    paths: ['./out/...'],
    generatorVersion: '(test)',
    allowDangerousTypes: opts.allowDangerousTypes ?? false,
  });
  const ours = new Map(crds.map((c) => [c.metadata.name, c]));
  const diffs: Record<string, string[]> = {};
  for (const original of originals) {
    const mine = ours.get(original.metadata.name);
    diffs[original.metadata.name] = mine
      ? differingPaths(comparable(original), comparable(mine))
      : ['(no CRD generated)'];
  }
  for (const name of ours.keys())
    if (!originals.some((o) => o.metadata.name === name)) diffs[name] = ['(generated, but not imported)'];
  return { diffs, imported, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
