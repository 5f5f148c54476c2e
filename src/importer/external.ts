/**
 * `create api --external-api-crd`: imports the CRDs first (as `scaffold import crd` does, into its default folder),
 * then hands create api the folder of the requested group and version.
 */
import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { DEFAULT_OUTPUT_DIR, importCRDs } from './command.js';

/** What create api was asked for, to find the imported folder of its Kind. */
export interface ExternalCRDRequest {
  sources: string[];
  group: string;
  version: string;
  kind: string;
  domain?: string;
  /** --external-api-path when given too: the folder the imported types must be in. */
  path?: string;
  resource: boolean;
}

/** What the import did: the folder to use as --external-api-path, and how to take the import back. */
export interface ImportedExternal {
  folder: string;
  /** Removes the files the import created (it overwrote none), for a create api that failed after it. */
  undo(): void;
}

/** Imports the sources and returns the folder to use as --external-api-path; refuses before importing anything. */
export async function importExternalCRD(root: string, req: ExternalCRDRequest): Promise<ImportedExternal> {
  if (req.resource)
    throw new ScaffoldError('--external-api-crd references an external API: pass --resource=false with it');
  const group = req.domain ? `${req.group}.${req.domain}` : req.group;
  // without --lossy: what the import cannot say stops create api before anything is written
  const result = await importCRDs({ root, sources: req.sources });
  const gv = result.groupVersions.find((g) => g.group === group && g.version === req.version);
  if (!gv || !gv.kinds.some((k) => k.kind === req.kind)) {
    removeCreated(root, result.written);
    const found = result.groupVersions
      .flatMap((g) => g.kinds.map((k) => `${k.kind} of ${g.group}/${g.version}`))
      .sort();
    throw new ScaffoldError(
      `the CRDs of ${req.sources.join(', ')} define ${found.join(', ')}, not ${req.kind} of ${group}/${req.version}; check --group, --external-api-domain, --version and --kind (nothing was imported)`,
    );
  }
  const folder = `${result.outputDir}/${gv.group}/${gv.version}`;
  const undo = (): void => removeCreated(root, result.written);
  if (req.path !== undefined && req.path.replace(/^\.\//, '').replace(/\/$/, '') !== folder) {
    undo();
    throw new ScaffoldError(
      `--external-api-path ${req.path} is not where --external-api-crd imports ${req.kind} (${folder}); leave --external-api-path out`,
    );
  }
  if (result.written.length > 0) {
    console.log(`Imported ${req.kind} and the other Kinds of its CRDs into ${DEFAULT_OUTPUT_DIR}/:`);
    for (const f of result.written) console.log(`  ${f}`);
  }
  return { folder, undo };
}

/** Removes files an import created, and the folders that are empty after that. */
function removeCreated(root: string, written: readonly string[]): void {
  const dirs = new Set<string>();
  for (const f of written) {
    rmSync(join(root, f), { force: true });
    for (let d = dirname(f); d !== '.' && d !== ''; d = dirname(d)) dirs.add(d);
  }
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      if (readdirSync(join(root, d)).length === 0) rmdirSync(join(root, d));
    } catch {
      // already gone
    }
  }
}
