import { toYamlDocument } from '../yaml/index.js';
import type { JSONValue } from './values.js';

/**
 * Documents joined the way kustomize's ResMap.AsYaml does: each object marshalled to JSON and written by go-yaml v2
 * (sigs.k8s.io/yaml), with `---` between documents and none before the first.
 */
export function resourcesToYaml(objs: JSONValue[]): string {
  return objs.map((o) => toYamlDocument(o)).join('---\n');
}
