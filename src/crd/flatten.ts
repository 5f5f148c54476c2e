/**
 * How controller-gen combines a field's own markers with the schema of the named type the field refers to
 * (controller-tools' flattenAllOfInto, run on `allOf: [type, field]`): the type's schema is the base, the field's
 * settings are merged in by key, and where both set a key that cannot merge, both values move into an `allOf` of
 * the type's part and the field's part, so that both constraints hold.
 */
import { isObject } from '@kubescaffold/runtime/json';
import type { JSONSchemaProps } from '../markers/apiextensions.js';

type Key = keyof JSONSchemaProps & string;

// Documentation is taken from the field beforehand, never merged.
const DOC_KEYS = new Set<string>(['description', 'title', 'example', 'externalDocs']);
// Keys whose Go fields are plain values: equal values are no conflict. Every other key is a pointer, slice or map in
// Go's JSONSchemaProps, which controller-gen never finds equal, so setting it on both sides always hoists it.
const VALUE_KEYS = new Set<string>([
  'type',
  'format',
  'pattern',
  'nullable',
  'uniqueItems',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'id',
  '$schema',
]);

// Go's zero values: "" and false only for the plain-value keys; the others are pointers, slices or maps, set even when
// they hold "" or false (`+kubebuilder:default=""` is a default).
const isZero = (key: string, v: unknown): boolean =>
  v === undefined || v === null || (VALUE_KEYS.has(key) && (v === false || v === ''));

/** `dst` with `src` flattened into it, as controller-gen flattens an allOf entry into its parent. `dst` is not modified. */
export function flattenInto(dst: JSONSchemaProps, src: JSONSchemaProps): JSONSchemaProps {
  const out: JSONSchemaProps = { ...dst };
  const dstRest: Record<string, unknown> = {};
  const srcRest: Record<string, unknown> = {};
  let hoisted = false;
  for (const key of Object.keys(src) as Key[]) {
    if (key === 'allOf' || DOC_KEYS.has(key)) continue;
    const s = src[key];
    const d = out[key];
    // An enum is taken from src only where dst has none (kept for int-or-string fields with an enum).
    if (key === 'enum') {
      if (src.enum?.length && !out.enum?.length) out.enum = src.enum;
      continue;
    }
    if (isZero(key, s)) continue;
    if (isZero(key, d)) {
      (out as Record<string, unknown>)[key] = s;
      continue;
    }
    if (VALUE_KEYS.has(key) && s === d) continue;
    // Go compares pointers: one object reached twice (a type's schema shared by two fields) is no conflict. Numbers and
    // strings carry no identity here, so equal ones from two markers still conflict, as two Go pointers do.
    if (typeof s === 'object' && s === d) continue;
    switch (key) {
      case 'properties': {
        const merged = { ...(d as Record<string, JSONSchemaProps>) };
        for (const [name, prop] of Object.entries(s as Record<string, JSONSchemaProps>))
          merged[name] = merged[name] ? flattenInto(merged[name], prop) : prop;
        out.properties = merged;
        break;
      }
      case 'required':
        out.required = [...new Set([...(d as string[]), ...(s as string[])])].sort();
        break;
      case 'type':
        // controller-gen reports the conflict and keeps the type's; marker validation has refused it before this.
        break;
      case 'additionalProperties':
        if (isObject(s))
          out.additionalProperties = flattenInto(isObject(d) ? (d as JSONSchemaProps) : {}, s as JSONSchemaProps);
        break;
      case 'x-kubernetes-preserve-unknown-fields':
      case 'x-kubernetes-map-type':
        (out as Record<string, unknown>)[key] = s;
        break;
      case 'x-kubernetes-validations':
        out[key] = [
          ...(s as NonNullable<JSONSchemaProps['x-kubernetes-validations']>),
          ...(d as NonNullable<JSONSchemaProps['x-kubernetes-validations']>),
        ];
        break;
      default:
        hoisted = true;
        dstRest[key] = d;
        srcRest[key] = s;
        delete (out as Record<string, unknown>)[key];
    }
  }
  if (hoisted) out.allOf = [...(out.allOf ?? []), dstRest as JSONSchemaProps, srcRest as JSONSchemaProps];
  return out;
}
