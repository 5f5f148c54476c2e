/** The kustomize subset kubebuilder-style config/ trees use: `scaffold build`, and the manifests install/deploy apply. */
import { buildResources } from './build.js';
import { resourcesToYaml } from './output.js';
import type { JSONObject } from './values.js';

export { KustomizeError } from './errors.js';
export type { JSONObject, JSONValue } from './values.js';
export { setKustomizationImage, parseImageArgument } from './edit.js';

/** Builds dir and returns the objects, in kustomize's output order. */
export function kustomizeBuild(dir: string): JSONObject[] {
  return buildResources(dir).map((r) => r.obj);
}

/** Builds dir and returns the YAML stream `kubectl kustomize dir` prints. */
export function kustomizeBuildYaml(dir: string): string {
  return resourcesToYaml(kustomizeBuild(dir));
}
