/** `scaffold manifests` and `scaffold generate` as functions: plan (validate, render) and write. */
export { runManifests, runGenerate } from './command.js';
export { planManifests, type ManifestsOptions, type ManifestsResult, type OutputFile } from './manifests.js';
export { planResources, RESOURCES_FILE, type GenerateOptions } from './resources.js';
export { watchManifests, type WatchOptions } from './watch.js';
export { writeChanged, type GeneratedFile } from './write.js';
