/** gopkg.in/yaml.v2's output for JSON data, byte for byte: what controller-gen and kustomize print. */
export { toYamlDocument, toYamlFile, type YamlOptions } from './encode.js';
export { compareYamlKeys } from './keys.js';
