/**
 * OpenAPI schemas of a CRD version -> TypeScript declarations with markers, written so that `scaffold manifests`
 * (src/crd/schema.ts) builds the same schema back. Objects with properties become interfaces, shared wherever the
 * same schema appears again; constraints become markers on the property, or on a named type where no property can
 * carry them (array items, map values), as a Go project declares them. What no marker can say is reported.
 */
import { isObject } from '@kubescaffold/runtime/json';
import type { JSONSchemaProps, JSONValue, ValidationRule } from '../markers/apiextensions.js';
import { patternProblem } from '../markers/defs/go-regexp.js';
import { knownTypeSchema, conditionSchema } from '../crd/known.js';
import { pascalCase } from '../project/names.js';
import { builtinTypeFor } from './builtin-types.js';
import { isNumeric, isTextual } from '../markers/defs/schema-type.js';
import { anyArg, goQuote, jsonArg, numberArg, stringArg, tsString } from './marker-text.js';
import { RUNTIME_TYPES, type DeclModel, type FieldModel, type ImportProblem } from './types.js';

type Path = (string | number)[];

/** A type as written, with the declarations and runtime types it names. */
interface TypeText {
  text: string;
  refs: string[];
}

/** Where a name comes from: a short form tried first, and the parent-qualified form. */
interface NameHint {
  short: string;
  long: string;
}

/** Keys a property carries for itself rather than its type: documentation, defaults and `| null`. */
const FIELD_KEYS = ['description', 'default', 'example', 'title', 'externalDocs', 'nullable'] as const;

// The order markers are written in: the type first, then what kubebuilder projects usually write next.
const KEY_ORDER: readonly string[] = [
  'type',
  'format',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'enum',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
];

const QUANTITY_PATTERN = knownTypeSchema('Quantity')!.pattern!;

// Global names that a declaration must not shadow, and names the generated files import.
const RESERVED = new Set([
  ...RUNTIME_TYPES,
  'Array',
  'Boolean',
  'Date',
  'Error',
  'Function',
  'Map',
  'Number',
  'Object',
  'Partial',
  'Promise',
  'Readonly',
  'Record',
  'RegExp',
  'Required',
  'Set',
  'String',
  'Symbol',
  'GroupVersion',
  // the alias of integers without a format, made when first needed
  'Integer',
]);

// Texts of the schema objects read so far: nested schemas are compared once per level above them otherwise.
const canonicalTexts = new WeakMap<object, string>();

/** A JSON value as text with object keys sorted: two schemas are the same when their canonical texts are. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  let text = canonicalTexts.get(value);
  if (text === undefined) {
    if (Array.isArray(value)) text = `[${value.map(canonical).join(',')}]`;
    else {
      const o = value as Record<string, unknown>;
      text = `{${Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
        .join(',')}}`;
    }
    canonicalTexts.set(value, text);
  }
  return text;
}

function omit(s: JSONSchemaProps, keys: readonly string[]): JSONSchemaProps {
  const out: Record<string, unknown> = { ...s };
  for (const k of keys) delete out[k];
  return out as JSONSchemaProps;
}

const isStruct = (s: JSONSchemaProps): boolean =>
  s.type === 'object' && s.properties !== undefined && Object.keys(s.properties).length > 0;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name as TypeScript writes it. */
export function propertyKey(name: string): string {
  return IDENT.test(name) ? name : tsString(name);
}

/** "listeners" -> "listener", "policies" -> "policy": the name of one item of a list property. */
export function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return word.slice(0, -3) + 'y';
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(ches|shes|sses|xes|iases)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}

function typeName(word: string): string {
  const p = pascalCase(word);
  if (p === '') return 'Field';
  return /^[0-9]/.test(p) ? `N${p}` : p;
}

/** Builds the declarations of one group and version, Kind by Kind. */
export class TypesBuilder {
  /** Declarations in the order they were made. */
  readonly decls = new Map<string, DeclModel>();
  readonly problems: ImportProblem[] = [];
  private readonly byShape = new Map<string, DeclModel[]>();
  private readonly taken = new Set<string>(RESERVED);
  /** The Kind being built and where its schema is in the CRD, for problem reports. */
  private where = { label: '', docRoot: [] as Path };

  /** Reserves the Kinds' names before any type is named. */
  reserve(names: readonly string[]): void {
    for (const n of names) this.taken.add(n);
  }

  /** Reports a construct of the schema at `path` (under the Kind's schema) that is written differently. */
  problem(path: Path, message: string): void {
    this.problems.push({
      docPath: [...this.where.docRoot, ...path],
      where: `${this.where.label} ${objectPath(path)}`.trimEnd(),
      message,
    });
  }

  /**
   * The Kind's interface from a version's openAPIV3Schema. `docRoot` is where that schema is in the CRD object;
   * `markers` are the CRD and version markers of the Kind.
   */
  kind(
    kind: string,
    version: string,
    schema: JSONSchemaProps,
    docRoot: Path,
    markers: string[],
    typeMeta: { apiVersion: JSONSchemaProps; kind: JSONSchemaProps },
  ): DeclModel {
    this.where = { label: `${kind} ${version}`, docRoot };
    const decl: DeclModel = {
      name: kind,
      doc: schema.description ?? '',
      markers: ['+kubebuilder:object:root=true', ...markers],
      fields: [],
      extendsTypeMeta: true,
      refs: new Set(['TypeMeta']),
    };
    this.decls.set(kind, decl);
    if (schema.type !== 'object')
      this.problem([], `the root schema has type ${String(schema.type)}; a Kind is an object`);
    const props = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    // What the Kind's TypeMeta and ObjectMeta give that this schema does not have, or has otherwise: a patch on the
    // Kind takes it back (a schema made from protobuf often declares no metadata, apiVersion or kind at all).
    const meta: Record<string, JSONSchemaProps> = { ...typeMeta, metadata: { type: 'object' } };
    const metaPatch: Record<string, JSONValue> = {};
    for (const name of ['apiVersion', 'kind', 'metadata']) {
      const own = props[name];
      if (own === undefined) metaPatch[name] = null;
      else if (canonical(own) !== canonical(meta[name])) metaPatch[name] = patchFrom(meta[name]!, own);
    }
    decl.refs.add('ObjectMeta');
    const metadataRequired = 'metadata' in props && required.has('metadata');
    decl.fields!.push({ name: 'metadata', optional: !metadataRequired, type: 'ObjectMeta', doc: '', markers: [] });
    for (const [name, prop] of Object.entries(props)) {
      if (name in meta) continue;
      const path: Path = ['properties', name];
      const f = this.field(name, prop, required.has(name), path, {
        short: kind + typeName(name),
        long: kind + typeName(name),
      });
      decl.fields!.push(f.field);
      for (const r of f.refs) decl.refs.add(r);
    }
    // controller-gen drops apiVersion and kind from a Kind's required list: the patch gives them back
    const given = (schema.required ?? []).filter((r) => r !== 'apiVersion' && r !== 'kind');
    const patch: Record<string, JSONValue> = Object.keys(metaPatch).length > 0 ? { properties: metaPatch } : {};
    decl.markers.push(
      ...this.requiredMarkers(schema.required, given, Object.keys(props), patch),
      ...this.keyMarkers(omit(schema, ['type', 'properties', 'required', 'description']), [], 'struct', schema, patch),
    );
    decl.markers.push(...patchMarker(patch));
    return decl;
  }

  /** A property: its type, doc and markers. */
  private field(
    name: string,
    s: JSONSchemaProps,
    required: boolean,
    path: Path,
    hint: NameHint,
  ): { field: FieldModel; refs: string[] } {
    const patch: Patch = {};
    const markers = this.fieldMarkers(s, path, patch);
    const rest = omit(s, FIELD_KEYS);
    const nullable = s.nullable === true;
    let t: TypeText;
    const builtin = isStruct(rest) ? builtinTypeFor(rest, s.description ? undefined : '', canonical) : undefined;
    if (builtin) t = { text: builtin, refs: ['k8s'] };
    else if (isStruct(rest)) {
      // A property with a description of its own can share a type whatever that type's doc comment says.
      t = this.struct(rest, path, hint, s.description ? undefined : '', s.description ?? '');
    } else if (isHoistedAllOf(rest) && !nullable) {
      // controller-gen's allOf of a named type's constraint and the field's: the same split gives it back
      const [typePart, fieldPart] = rest.allOf!;
      const typeSchema = { ...omit(rest, ['allOf']), ...typePart };
      const typePatch: Patch = {};
      const typeInline = this.inline(typeSchema, path, hint, 'value', typePatch);
      typeInline.markers.push(...patchMarker(typePatch));
      t = this.alias(typeSchema, '', typeInline, hint);
      markers.push(...this.keyMarkers(fieldPart!, [...path, 'allOf', 1], 'struct', typeSchema, patch));
    } else {
      const inline = this.inline(rest, path, hint, 'field', patch);
      t = inline.type;
      markers.push(...inline.markers);
      // A Schemaless field's schema is its markers alone, so `| null` in its type says nothing to the generator:
      // nullable needs its marker (x-kubernetes-int-or-string with nullable and no anyOf, as Rust's kube derive
      // writes an optional Quantity).
      if (nullable && inline.markers.includes('+kubebuilder:validation:Schemaless')) markers.push('+nullable');
    }
    markers.push(...patchMarker(patch));
    return {
      field: {
        name,
        optional: !required,
        type: nullable ? `${t.text} | null` : t.text,
        doc: s.description ?? '',
        markers,
      },
      refs: t.refs,
    };
  }

  /** Markers only a property carries: default, example, title, external docs. */
  private fieldMarkers(s: JSONSchemaProps, path: Path, patch: Patch): string[] {
    const out: string[] = [];
    if (s.default !== undefined) {
      // a merge patch cannot set null either: null deletes
      if (s.default === null) this.problem([...path, 'default'], 'a default of null has no marker; it is left out');
      else out.push(`+default=${jsonArg(s.default)}`);
    }
    if (s.example !== undefined) {
      const text = anyArg(s.example);
      if (text !== undefined) out.push(`+kubebuilder:example=${text}`);
      else if (s.example !== null) patch.example = s.example;
      else this.problem([...path, 'example'], 'an example of null has no marker; it is left out');
    }
    if (s.title !== undefined) out.push(`+kubebuilder:title=${goQuote(s.title)}`);
    if (s.externalDocs !== undefined) {
      const d = s.externalDocs;
      out.push(
        `+kubebuilder:externalDocs:url=${goQuote(d.url)}${d.description ? `,description=${goQuote(d.description)}` : ''}`,
      );
    }
    if (s.nullable === false) patch.nullable = false;
    return out;
  }

  /**
   * A type for array items or map values, where no property carries markers: a named type holds whatever the
   * schema needs beyond a plain type, as in Go.
   */
  private value(s: JSONSchemaProps, path: Path, hint: NameHint): TypeText {
    if (isCondition(s)) return { text: 'Condition', refs: ['Condition'] };
    const nullable = s.nullable === true;
    let rest = omit(s, FIELD_KEYS);
    // Keys only a property's markers set: on a named type for items or map values, a patch sets them.
    const own: Patch = {};
    for (const k of ['default', 'example', 'title', 'externalDocs'] as const) {
      const v = s[k];
      if (v === undefined) continue;
      if (v === null)
        this.problem([...path, k], `${k}: null on array items or map values has no marker; it is left out`);
      else own[k] = v as JSONValue;
    }
    if (s.nullable === false) own.nullable = false;
    let t: TypeText;
    const builtin = isStruct(rest) ? builtinTypeFor(rest, s.description ?? '', canonical) : undefined;
    if (builtin || isStruct(rest)) {
      for (const k of Object.keys(own))
        this.problem([...path, k], `${k} on object items or map values has no marker; it is left out`);
      t = builtin
        ? { text: builtin, refs: ['k8s'] }
        : this.struct(rest, path, hint, s.description ?? '', s.description ?? '');
    } else {
      const patch: Patch = { ...own };
      const inline = this.inline(rest, path, hint, 'value', patch);
      inline.markers.push(...patchMarker(patch));
      const doc = s.description ?? '';
      if (Object.keys(own).length > 0) rest = { ...rest, ...(own as JSONSchemaProps) };
      t = inline.markers.length === 0 && doc === '' ? inline.type : this.alias(rest, doc, inline, hint);
    }
    return nullable ? { text: `${paren(t.text)} | null`, refs: t.refs } : t;
  }

  /** A named type alias holding markers and a doc comment, shared where the same schema appears again. */
  private alias(
    rest: JSONSchemaProps,
    doc: string,
    inline: { type: TypeText; markers: string[] },
    hint: NameHint,
  ): TypeText {
    const key = `alias:${canonical(rest)}`;
    const found = this.byShape.get(key)?.find((d) => d.doc === doc);
    if (found) return { text: found.name, refs: [found.name] };
    const decl: DeclModel = {
      name: this.pick(hint),
      doc,
      markers: inline.markers,
      alias: inline.type.text,
      refs: new Set(inline.type.refs),
    };
    this.add(key, decl);
    return { text: decl.name, refs: [decl.name] };
  }

  /**
   * An interface for an object with properties. `docWanted` is the doc comment the use needs (undefined: any, since
   * the property's own description wins); `docNew` is the doc a new interface gets.
   */
  private struct(
    s: JSONSchemaProps,
    path: Path,
    hint: NameHint,
    docWanted: string | undefined,
    docNew: string,
  ): TypeText {
    const key = `struct:${canonical(s)}`;
    const found = this.byShape.get(key)?.find((d) => docWanted === undefined || d.doc === docWanted);
    if (found) return { text: found.name, refs: [found.name] };
    const decl: DeclModel = {
      name: this.pick(hint),
      doc: docWanted ?? docNew,
      markers: [],
      fields: [],
      refs: new Set(),
    };
    this.add(key, decl);
    const required = new Set(s.required ?? []);
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const f = this.field(name, prop, required.has(name), [...path, 'properties', name], {
        short: typeName(name),
        long: decl.name + typeName(name),
      });
      decl.fields!.push(f.field);
      for (const r of f.refs) decl.refs.add(r);
    }
    const patch: Record<string, JSONValue> = {};
    const inProps = (s.required ?? []).filter((r) => r in (s.properties ?? {}));
    const requiredMarkers = this.requiredMarkers(s.required, inProps, Object.keys(s.properties ?? {}), patch);
    let rest = omit(s, ['type', 'properties', 'required']);
    if (rest.additionalProperties !== undefined) {
      this.problem(
        [...path, 'additionalProperties'],
        'an object with both properties and additionalProperties is not structural; additionalProperties is left out',
      );
      rest = omit(rest, ['additionalProperties']);
    }
    decl.markers = [...requiredMarkers, ...this.keyMarkers(rest, path, 'struct', s, patch), ...patchMarker(patch)];
    return { text: decl.name, refs: [decl.name] };
  }

  private add(key: string, decl: DeclModel): void {
    this.decls.set(decl.name, decl);
    this.byShape.set(key, [...(this.byShape.get(key) ?? []), decl]);
  }

  private pick(hint: NameHint): string {
    for (const candidate of [hint.short, hint.long]) {
      if (!this.taken.has(candidate)) {
        this.taken.add(candidate);
        return candidate;
      }
    }
    for (let i = 2; ; i++) {
      const candidate = `${hint.long}${i}`;
      if (!this.taken.has(candidate)) {
        this.taken.add(candidate);
        return candidate;
      }
    }
  }

  /** `Integer`: a JSON integer without a format (Go's int), which no runtime type stands for. */
  private integer(): TypeText {
    if (!this.decls.has('Integer')) {
      this.decls.set('Integer', {
        name: 'Integer',
        doc: '',
        markers: ['+kubebuilder:validation:Type=integer'],
        alias: 'unknown',
        refs: new Set(),
      });
    }
    return { text: 'Integer', refs: ['Integer'] };
  }

  /** A plain type for the schema, and the markers for what it says beyond that type. */
  private inline(
    r: JSONSchemaProps,
    path: Path,
    hint: NameHint,
    position: 'field' | 'value',
    patch: Patch,
  ): { type: TypeText; markers: string[] } {
    let type: TypeText;
    let delta: JSONSchemaProps;
    let kindOfObject: 'map' | 'struct' = 'struct';
    const markers: string[] = [];
    const plain = (text: string, drop: string[]): void => {
      type = { text, refs: RUNTIME_TYPES.has(text) ? [text] : [] };
      delta = omit(r, drop);
    };
    switch (r.type) {
      case 'array': {
        if (!r.items) {
          // any JSON items in TypeScript, and no items in the schema
          plain('JSONValue[]', ['type']);
          type!.refs = ['JSONValue'];
          patch.items = null;
          break;
        }
        const items = this.value(r.items, [...path, 'items'], {
          short: typeName(singular(hint.short)),
          long: typeName(singular(hint.long)),
        });
        type = { text: `${paren(items.text)}[]`, refs: items.refs };
        delta = omit(r, ['type', 'items']);
        break;
      }
      case 'object': {
        kindOfObject = 'map';
        if (r.additionalProperties !== undefined && typeof r.additionalProperties === 'object') {
          const v = this.value(r.additionalProperties, [...path, 'additionalProperties'], {
            short: `${hint.short}Value`,
            long: `${hint.long}Value`,
          });
          type = { text: `Record<string, ${v.text}>`, refs: v.refs };
          delta = omit(r, ['type', 'additionalProperties']);
        } else if (r.additionalProperties !== undefined) {
          plain('Record<string, JSONValue>', ['type', 'additionalProperties']);
          type!.refs = ['JSONValue'];
          patch.additionalProperties = r.additionalProperties;
        } else if (r['x-kubernetes-preserve-unknown-fields'] === true) {
          plain('RawExtension', ['type', 'x-kubernetes-preserve-unknown-fields']);
        } else {
          plain('{}', ['type', 'properties']);
        }
        break;
      }
      case 'string':
        if (r.format === 'date-time') plain('Time', ['type', 'format']);
        else if (isStringEnum(r.enum)) plain(r.enum.map(tsString).join(' | '), ['type', 'enum']);
        else plain('string', ['type']);
        break;
      case 'integer':
        if (r.format === 'int32' || r.format === 'int64') plain(r.format, ['type', 'format']);
        else {
          type = this.integer();
          delta = omit(r, ['type']);
        }
        break;
      case 'number':
        // a float on this field alone, without --allow-dangerous-types for the whole run
        plain('number', []);
        break;
      case 'boolean':
        plain('boolean', ['type']);
        break;
      case undefined:
        if (r['x-kubernetes-int-or-string'] === true && isIntOrStringAnyOf(r.anyOf)) {
          if (r.pattern === QUANTITY_PATTERN) plain('Quantity', ['anyOf', 'x-kubernetes-int-or-string', 'pattern']);
          else plain('IntOrString', ['anyOf', 'x-kubernetes-int-or-string']);
        } else if (r['x-kubernetes-preserve-unknown-fields'] === true) {
          plain('JSONValue', ['x-kubernetes-preserve-unknown-fields']);
        } else if (position === 'field') {
          plain('unknown', []);
          markers.push('+kubebuilder:validation:Schemaless');
        } else {
          // any JSON, with the schema's own keys in place of JSONValue's
          plain('JSONValue', Object.keys(r));
          Object.assign(patch, patchFrom(knownTypeSchema('JSONValue')!, r));
        }
        break;
      default:
        this.problem([...path, 'type'], `type ${String(r.type)} is not an OpenAPI type of a CRD; any JSON is used`);
        plain('JSONValue', Object.keys(r));
    }
    markers.push(...this.keyMarkers(delta!, path, kindOfObject, r, patch));
    return { type: type!, markers };
  }

  /**
   * Markers for the schema keys left once the type is written. `target` is the schema they apply to (its type decides
   * which markers fit); a key no marker can set there goes into `patch`, for a `+kubescaffold:schema:patch`.
   */
  private keyMarkers(
    s: JSONSchemaProps,
    path: Path,
    kindOfObject: 'map' | 'struct',
    target: JSONSchemaProps,
    patch: Patch,
  ): string[] {
    const out: string[] = [];
    const v = (name: string, value: string): void => void out.push(`+kubebuilder:validation:${name}=${value}`);
    const entries = (Object.entries(s) as [keyof JSONSchemaProps, unknown][]).sort(
      ([a], [b]) => (KEY_ORDER.indexOf(a) >>> 0) - (KEY_ORDER.indexOf(b) >>> 0),
    );
    // the type the markers check: a Type marker among these keys sets it first
    const typed: JSONSchemaProps = { ...target, ...(s.type !== undefined ? { type: s.type } : {}) };
    for (const [key, value] of entries) {
      if (value === undefined) continue;
      if (!fits(key, value, typed)) {
        patch[key] = value as JSONValue;
        continue;
      }
      switch (key) {
        case 'maximum':
        case 'minimum':
        case 'multipleOf':
          v(pascalCase(key), numberArg(value as number));
          break;
        case 'maxLength':
        case 'minLength':
        case 'maxItems':
        case 'minItems':
        case 'maxProperties':
        case 'minProperties':
          v(pascalCase(key), String(value));
          break;
        case 'exclusiveMaximum':
        case 'exclusiveMinimum':
        case 'uniqueItems':
          // false is the default, which the marker leaves out
          if (value === true) v(pascalCase(key), 'true');
          else patch[key] = false;
          break;
        case 'pattern':
          if (patternProblem(value as string) !== undefined) patch.pattern = value as string;
          else v('Pattern', stringArg(value as string, { raw: true }));
          break;
        case 'format':
          v('Format', stringArg(value as string, { bare: true }));
          break;
        case 'type':
          v('Type', stringArg(value as string, { bare: true }));
          break;
        case 'enum': {
          const items = (value as JSONValue[]).map(anyArg);
          if (items.length === 0 || items.some((i) => i === undefined)) patch.enum = value as JSONValue[];
          else v('Enum', items.join(';'));
          break;
        }
        case 'x-kubernetes-preserve-unknown-fields':
        case 'x-kubernetes-embedded-resource':
        case 'x-kubernetes-int-or-string':
          if (value === true) out.push(TRUE_FLAGS[key]);
          else patch[key] = false;
          break;
        case 'x-kubernetes-validations':
          for (const rule of value as ValidationRule[]) out.push(xValidation(rule));
          break;
        case 'x-kubernetes-list-type':
          out.push(`+listType=${stringArg(value as string, { bare: true })}`);
          break;
        case 'x-kubernetes-list-map-keys':
          for (const k of value as string[]) out.push(`+listMapKey=${stringArg(k, { bare: true })}`);
          break;
        case 'x-kubernetes-map-type':
          out.push(
            `+${kindOfObject === 'map' ? 'mapType' : 'structType'}=${stringArg(value as string, { bare: true })}`,
          );
          break;
        case 'oneOf':
        case 'anyOf':
        case 'allOf':
          out.push(`+kubescaffold:validation:${pascalCase(key)}=${jsonArg(value as JSONValue)}`);
          break;
        case 'not':
          out.push(`+kubescaffold:validation:Not=${jsonArg(value as JSONValue)}`);
          break;
        default:
          // no marker of controller-gen's or ours sets this key: the patch does
          if (key === 'properties' || key === 'items' || key === 'additionalProperties')
            this.problem([...path, key], `${key} here has no TypeScript spelling; it is left out`);
          else patch[key] = value as JSONValue;
      }
    }
    return out;
  }

  /**
   * Markers for a `required` list that the fields alone do not give back: manifests writes the required fields sorted,
   * so another order of the same names is a RequiredOrder marker, and anything else (a name twice, one that is no
   * property, apiVersion or kind of a Kind) is set by the patch.
   */
  private requiredMarkers(
    original: string[] | undefined,
    given: readonly string[],
    props: readonly string[],
    patch: Patch,
  ): string[] {
    if (original === undefined) return [];
    const fromFields = [...new Set(given.filter((r) => props.includes(r)))].sort();
    if (fromFields.length > 0 && canonical(original) === canonical(fromFields)) return [];
    const permutation =
      original.length === fromFields.length && canonical([...original].sort()) === canonical(fromFields);
    if (permutation && fromFields.length > 0)
      return [`+kubescaffold:validation:RequiredOrder=${original.map((r) => stringArg(r, { bare: true })).join(';')}`];
    patch.required = original;
    return [];
  }
}

/** A JSON merge patch being built for one schema. */
type Patch = Record<string, JSONValue>;

const TRUE_FLAGS = {
  'x-kubernetes-preserve-unknown-fields': '+kubebuilder:pruning:PreserveUnknownFields',
  'x-kubernetes-embedded-resource': '+kubebuilder:validation:XEmbeddedResource',
  'x-kubernetes-int-or-string': '+kubebuilder:validation:XIntOrString',
} as const;

/** Whether controller-gen's marker for `key` takes a schema of `target`'s type (its checks, in src/markers/defs). */
function fits(key: keyof JSONSchemaProps, value: unknown, target: JSONSchemaProps): boolean {
  switch (key) {
    case 'maximum':
    case 'minimum':
    case 'multipleOf':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      // a bound on an integer must be integral too
      return isNumeric(target) && (target.type !== 'integer' || typeof value !== 'number' || Number.isInteger(value));
    case 'maxLength':
    case 'minLength':
    case 'pattern':
      return isTextual(target);
    case 'maxItems':
    case 'minItems':
    case 'uniqueItems':
    case 'x-kubernetes-list-type':
    case 'x-kubernetes-list-map-keys':
      return target.type === 'array';
    case 'maxProperties':
    case 'minProperties':
      return target.type === 'object';
    case 'x-kubernetes-map-type':
      return target.type === 'object' || target.type === undefined;
    default:
      return true;
  }
}

/** The merge patch that turns `from` into `to` (neither holding null values, which a merge patch cannot set). */
export function patchFrom(from: JSONSchemaProps, to: JSONSchemaProps): Patch {
  const a = from as Record<string, JSONValue>;
  const b = to as Record<string, JSONValue>;
  const out: Patch = {};
  for (const k of Object.keys(a)) if (!(k in b)) out[k] = null;
  for (const [k, v] of Object.entries(b)) {
    if (canonical(a[k]) === canonical(v)) continue;
    out[k] = isObject(a[k]) && isObject(v) ? patchFrom(a[k] as JSONSchemaProps, v as JSONSchemaProps) : v;
  }
  return out;
}

/** The patch marker, when the patch holds anything. */
function patchMarker(patch: Patch): string[] {
  return Object.keys(patch).length > 0 ? [`+kubescaffold:schema:patch=${jsonArg(patch)}`] : [];
}

function xValidation(rule: ValidationRule): string {
  const parts = [`rule=${goQuote(rule.rule)}`];
  if (rule.message !== undefined && rule.message !== '') parts.push(`message=${goQuote(rule.message)}`);
  if (rule.messageExpression !== undefined && rule.messageExpression !== '')
    parts.push(`messageExpression=${goQuote(rule.messageExpression)}`);
  if (rule.reason !== undefined && rule.reason !== '') parts.push(`reason=${rule.reason}`);
  if (rule.fieldPath !== undefined && rule.fieldPath !== '') parts.push(`fieldPath=${goQuote(rule.fieldPath)}`);
  if (rule.optionalOldSelf !== undefined) parts.push(`optionalOldSelf=${String(rule.optionalOldSelf)}`);
  return `+kubebuilder:validation:XValidation:${parts.join(',')}`;
}

/** An allOf of two parts that set the same keys, none of which the schema sets itself (flatten.ts's hoisting). */
function isHoistedAllOf(s: JSONSchemaProps): boolean {
  const all = s.allOf;
  if (!all || all.length !== 2) return false;
  const [a, b] = all as [JSONSchemaProps, JSONSchemaProps];
  const keys = Object.keys(a).sort().join(',');
  // an enum on both sides is not hoisted by manifests (the type's wins), so only the AllOf marker gives it back
  return (
    keys !== '' &&
    keys === Object.keys(b).sort().join(',') &&
    Object.keys(a).every((k) => !(k in s) && !['properties', 'items', 'allOf', 'description', 'enum'].includes(k))
  );
}

function isStringEnum(values: JSONValue[] | undefined): values is string[] {
  return (
    values !== undefined &&
    values.length > 0 &&
    values.every((v) => typeof v === 'string') &&
    new Set(values).size === values.length
  );
}

function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return canonical(anyOf) === canonical([{ type: 'integer' }, { type: 'string' }]);
}

const paren = (text: string): string => (/[|&]/.test(text) && !text.startsWith('Record<') ? `(${text})` : text);

/** `.spec.listeners[*].tls` from a schema path (properties/items/additionalProperties steps). */
export function objectPath(path: Path): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const step = path[i];
    if (step === 'properties' && i + 1 < path.length) out += `.${String(path[++i])}`;
    else if (step === 'items') out += '[*]';
    else if (step === 'additionalProperties') out += '{*}';
    else out += ` (${String(step)})`;
  }
  return out;
}

/** Whether a schema is controller-gen's metav1.Condition (written `Condition`). */
function isCondition(s: JSONSchemaProps): boolean {
  return canonical(s) === canonical(conditionSchema);
}
