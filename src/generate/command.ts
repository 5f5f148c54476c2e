/** The work behind `scaffold manifests` and `scaffold generate`, callable without the CLI. */
import { planManifests, type ManifestsOptions } from './manifests.js';
import { planResources, type GenerateOptions } from './resources.js';
import { writeChanged } from './write.js';

/** Validates everything, then writes the manifests that changed; returns the written paths. */
export function runManifests(opts: ManifestsOptions): string[] {
  const { files } = planManifests(opts);
  return writeChanged(files);
}

/** Validates everything, then writes the resources files that changed; returns the written paths. */
export function runGenerate(opts: GenerateOptions): string[] {
  return writeChanged(planResources(opts));
}
