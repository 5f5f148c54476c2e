/**
 * The structural-schema rules the API server enforces on CRDs (apiextensions-apiserver's structural schema and
 * list-type validation), checked before anything is written so a bad CRD fails here, with the type to fix,
 * instead of at `kubectl apply`.
 */
import type { DiagnosticBag, SourcePosition } from '../diagnostics.js';
import type { SchemaOrigins } from './schema.js';
import type { KindInfo } from './crd.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../markers/apiextensions.js';
import { preserveUnknownFields, validationType } from '../markers/defs/validation.js';

/**
 * Schemas already found free of problems, by whether they stood inside allOf/anyOf/oneOf: a problem depends only on
 * the schema below a node (its path and position only name it), so a schema shared by several fields or CRDs (a
 * named type, PodTemplateSpec) is walked once. For one run over schemas that no longer change.
 */
export class CheckedSchemas {
  private readonly clean = [new WeakSet<JSONSchemaProps>(), new WeakSet<JSONSchemaProps>()] as const;

  /** Whether the schema was already checked in this position (inside a junctor or not). */
  has(s: JSONSchemaProps, inJunctor: boolean): boolean {
    return this.clean[inJunctor ? 1 : 0].has(s);
  }

  /** Records that the schema was checked and found clean. */
  add(s: JSONSchemaProps, inJunctor: boolean): void {
    this.clean[inJunctor ? 1 : 0].add(s);
  }
}

/**
 * Reports the structural-schema problems of each version of a CRD, at the declaration closest to each (the Kind, or
 * the field `origins` records for a schema: SchemaGenerator.origins of the generator that built it).
 */
export function checkStructural(
  crd: CustomResourceDefinition,
  kinds: readonly KindInfo[],
  diags: DiagnosticBag,
  origins: Pick<SchemaOrigins, 'get'>,
  checked = new CheckedSchemas(),
): void {
  const walk: Walk = { checked, origins };
  for (const version of crd.spec.versions) {
    const kind = kinds.find(
      (k) => k.decl.name === crd.spec.names.kind && k.gv.group === crd.spec.group && k.gv.version === version.name,
    );
    if (!kind) continue;
    const problems: Problem[] = [];
    checkNode(version.schema.openAPIV3Schema, '', problems, false, kind.decl.pos, walk);
    for (const p of problems) {
      diags.at(p.pos, `invalid CRD ${crd.metadata.name} (version ${version.name}): ${p.message}`);
    }
  }
}

interface Problem {
  message: string;
  pos: SourcePosition;
}

/** Problem messages for one node, collected with the position of the nearest property declaration. */
class Problems {
  constructor(
    private readonly into: Problem[],
    private readonly pos: SourcePosition,
  ) {}

  push(message: string): void {
    this.into.push({ message, pos: this.pos });
  }
}

/** What a walk over one run's schemas carries: what was checked already, and where schemas were declared. */
interface Walk {
  checked: CheckedSchemas;
  origins: Pick<SchemaOrigins, 'get'>;
}

function checkNode(
  s: JSONSchemaProps,
  path: string,
  all: Problem[],
  inJunctor: boolean,
  parentPos: SourcePosition,
  walk: Walk,
): void {
  if (walk.checked.has(s, inJunctor)) return;
  const before = all.length;
  const where = path || '(root)';
  const pos = walk.origins.get(s) ?? parentPos;
  const problems = new Problems(all, pos);
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (!inJunctor && !s.type && !preserve && !intOrString) {
    problems.push(
      `${where} has no type; give the property a concrete type, or mark it +${validationType.name}=<type> or +${preserveUnknownFields.name}`,
    );
  }
  if (s.type === 'array' && !s.items) problems.push(`${where} is an array without items`);
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    problems.push(`${where} has both properties and additionalProperties`);
  }
  if (s['x-kubernetes-embedded-resource'] && s.type !== 'object')
    problems.push(`${where} is an embedded resource but not of type object`);
  if (s['x-kubernetes-list-type'] === 'map') checkMapList(s, where, problems);
  if (
    s['x-kubernetes-list-type'] === 'set' &&
    s.items &&
    s.items.type === 'object' &&
    s.items['x-kubernetes-map-type'] !== 'atomic'
  ) {
    problems.push(
      `${where} is a listType=set of objects, which must be +structType=atomic; use listType=map with a key instead`,
    );
  }
  if (s['x-kubernetes-list-map-keys'] && s['x-kubernetes-list-type'] !== 'map')
    problems.push(`${where} has listMapKey without listType=map`);
  if (s.uniqueItems) problems.push(`${where} uses uniqueItems, which Kubernetes rejects; use +listType=set`);
  for (const [lo, hi] of [
    ['minimum', 'maximum'],
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
    ['minProperties', 'maxProperties'],
  ] as const) {
    const a = s[lo];
    const b = s[hi];
    if (a !== undefined && b !== undefined && a > b)
      problems.push(`${where} has ${lo} ${a} above ${hi} ${b}, so no value is valid`);
  }
  if (s.default !== undefined) {
    const bad = defaultMismatch(s, s.default);
    if (bad) problems.push(`${where} has a default ${JSON.stringify(s.default)} that ${bad}`);
  }
  if (s.properties)
    for (const name in s.properties) checkNode(s.properties[name]!, `${path}.${name}`, all, inJunctor, pos, walk);
  if (s.items) checkNode(s.items, `${path}[*]`, all, inJunctor, pos, walk);
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    checkNode(s.additionalProperties, `${path}[*]`, all, inJunctor, pos, walk);
  for (const list of [s.allOf, s.anyOf, s.oneOf]) {
    for (const j of list ?? []) {
      for (const k of ['description', 'default', 'nullable', 'additionalProperties'] as const) {
        if (j[k] !== undefined) problems.push(`${where}: ${k} is not allowed inside allOf/anyOf/oneOf`);
      }
      if (!intOrString && j.type !== undefined) {
        // anyOf of types is only allowed for int-or-string
        problems.push(`${where}: type is not allowed inside allOf/anyOf/oneOf (except for int-or-string)`);
      }
      checkNode(j, path, all, true, pos, walk);
    }
  }
  if (all.length === before) walk.checked.add(s, inJunctor);
}

const jsonType = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;

/** Why a default does not fit its schema (type, enum, nested properties and items), or undefined. */
function defaultMismatch(s: JSONSchemaProps, v: unknown): string | undefined {
  if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string']) return undefined;
  if (v === null) return s.nullable ? undefined : 'is null but the field is not nullable';
  const t = jsonType(v);
  if (s.type && !(t === s.type || (s.type === 'number' && t === 'integer')))
    return `is ${t === 'integer' || t === 'number' ? 'a number' : `a ${t}`}, not ${s.type === 'integer' ? 'an integer' : `a ${s.type}`}`;
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return `is not one of the enum values`;
  if (t === 'array' && s.items) {
    for (const item of v as unknown[]) {
      const bad = defaultMismatch(s.items, item);
      if (bad) return `has an item that ${bad}`;
    }
  }
  if (t === 'object' && s.properties) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = s.properties[k];
      const bad = p ? defaultMismatch(p, x) : undefined;
      if (bad) return `has ${k} that ${bad}`;
    }
  }
  return undefined;
}

function checkMapList(s: JSONSchemaProps, where: string, problems: Problems): void {
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
