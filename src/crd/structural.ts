/**
 * The structural-schema rules the API server enforces on CRDs (apiextensions-apiserver's structural schema and
 * list-type validation), checked before anything is written so a bad CRD fails here, with the type to fix,
 * instead of at `kubectl apply`.
 */
import type { DiagnosticBag } from '../markers/diagnostics.js';
import type { KindInfo } from './crd.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.js';

export function checkStructural(crd: CustomResourceDefinition, kinds: readonly KindInfo[], diags: DiagnosticBag): void {
  for (const version of crd.spec.versions) {
    const kind = kinds.find((k) => k.decl.name === crd.spec.names.kind && k.gv.group === crd.spec.group && k.gv.version === version.name);
    if (!kind) continue;
    const problems: string[] = [];
    checkNode(version.schema.openAPIV3Schema, '', problems, false);
    for (const p of problems) {
      diags.at(kind.decl.pos, `CRD ${crd.metadata.name} version ${version.name} is not a structural schema: ${p}`);
    }
  }
}

function checkNode(s: JSONSchemaProps, path: string, problems: string[], inJunctor: boolean): void {
  const where = path || '(root)';
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (!inJunctor && !s.type && !preserve && !intOrString) {
    problems.push(`${where} has no type; give the property a concrete type, or mark it +kubebuilder:validation:Type=<type> or +kubebuilder:pruning:PreserveUnknownFields`);
  }
  if (s.type === 'array' && !s.items) problems.push(`${where} is an array without items`);
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    problems.push(`${where} has both properties and additionalProperties`);
  }
  if (s['x-kubernetes-embedded-resource'] && s.type !== 'object') problems.push(`${where} is an embedded resource but not of type object`);
  if (s['x-kubernetes-list-type'] === 'map') checkMapList(s, where, problems);
  if (s['x-kubernetes-list-type'] === 'set' && s.items && s.items.type === 'object' && s.items['x-kubernetes-map-type'] !== 'atomic') {
    problems.push(`${where} is a listType=set of objects, which must be +structType=atomic; use listType=map with a key instead`);
  }
  if (s['x-kubernetes-list-map-keys'] && s['x-kubernetes-list-type'] !== 'map') problems.push(`${where} has listMapKey without listType=map`);
  if (s.uniqueItems) problems.push(`${where} uses uniqueItems, which Kubernetes rejects; use +listType=set`);
  for (const [name, p] of Object.entries(s.properties ?? {})) checkNode(p, `${path}.${name}`, problems, inJunctor);
  if (s.items) checkNode(s.items, `${path}[*]`, problems, inJunctor);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') checkNode(s.additionalProperties, `${path}[*]`, problems, inJunctor);
  for (const list of [s.allOf, s.anyOf, s.oneOf]) {
    for (const j of list ?? []) {
      for (const k of ['description', 'default', 'nullable', 'additionalProperties'] as const) {
        if (j[k] !== undefined) problems.push(`${where}: ${k} is not allowed inside allOf/anyOf/oneOf`);
      }
      if (!intOrString && j.type !== undefined) {
        // anyOf of types is only allowed for int-or-string
        problems.push(`${where}: type is not allowed inside allOf/anyOf/oneOf (except for int-or-string)`);
      }
      checkNode(j, path, problems, true);
    }
  }
}

function checkMapList(s: JSONSchemaProps, where: string, problems: string[]): void {
  const items = s.items;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  if (!items || items.type !== 'object') {
    problems.push(`${where} is a listType=map whose items are not objects`);
    return;
  }
  if (keys.length === 0) {
    problems.push(`${where} is a listType=map without keys; add +listMapKey=<property>`);
    return;
  }
  for (const key of keys) {
    const prop = items.properties?.[key];
    if (!prop) {
      problems.push(`${where}: listMapKey ${key} is not a property of the items`);
      continue;
    }
    if (prop.type !== 'string' && prop.type !== 'integer' && prop.type !== 'boolean' && prop.type !== 'number') {
      problems.push(`${where}: listMapKey ${key} must be a scalar property`);
    }
    if (!(items.required ?? []).includes(key) && prop.default === undefined) {
      problems.push(`${where}: listMapKey ${key} must be required or have a default`);
    }
  }
}
