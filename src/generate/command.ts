/**
 * The work behind `scaffold manifests` and `scaffold generate`, callable without the CLI. The generators (and the
 * TypeScript compiler they load) are imported only when the inputs changed since the last run (fingerprint.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inputKey, recordRun, upToDate } from './fingerprint.js';
import type { ManifestsOptions } from './manifests.js';
import type { GenerateOptions } from './resources.js';

/** Validates everything, then writes the manifests that changed; returns the written paths. */
export async function runManifests(opts: ManifestsOptions): Promise<string[]> {
  // custom --paths may leave referenced files out of the fingerprint: always run then
  const key = opts.paths ? undefined : inputKey(opts.root, ['manifests', { ...opts, root: undefined }]);
  if (key && upToDate(opts.root, 'manifests', key)) return [];
  const { planManifests } = await import('./manifests.js');
  const { writeChanged } = await import('./write.js');
  const { files } = planManifests(opts);
  const written = writeChanged(opts.root, files);
  if (key)
    recordRun(
      opts.root,
      'manifests',
      key,
      files.map((f) => f.path),
    );
  return written;
}

/** Validates everything, then writes the resources files that changed; returns the written paths. */
export async function runGenerate(opts: GenerateOptions): Promise<string[]> {
  let boilerplate = '';
  try {
    boilerplate = readFileSync(join(opts.root, 'hack', 'boilerplate.txt'), 'utf8');
  } catch {
    boilerplate = '';
  }
  const key = opts.paths
    ? undefined
    : inputKey(opts.root, ['generate', { ...opts, root: undefined }, boilerplate, new Date().getFullYear()]);
  if (key && upToDate(opts.root, 'generate', key)) return [];
  const { planResources } = await import('./resources.js');
  const { writeChanged } = await import('./write.js');
  const files = planResources(opts);
  const written = writeChanged(opts.root, files);
  if (key)
    recordRun(
      opts.root,
      'generate',
      key,
      files.map((f) => f.path),
    );
  return written;
}
