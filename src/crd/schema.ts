/**
 * TypeScript types -> OpenAPI v3 schemas (DESIGN §4), with controller-gen's rules for required fields,
 * descriptions and marker application. Named types are inlined (no $ref survives); a field that refers to a
 * named type gets the type's schema with the field's description and markers on top, which is what
 * controller-gen's allOf flattening produces.
 *
 * Schemas of named types are computed once per run and shared by every field that uses them, so a schema returned
 * by typeSchema/declSchema is never modified in place: callers copy the object they change (shallowly; nested
 * schemas are replaced, not edited). This keeps a 200-Kind API with PodTemplateSpec fields fast.
 */
import { dirname } from 'node:path';
import type * as T from 'typescript';
import { ts } from '../markers/typescript.js';
import type { MemberInfo, SourceInfo, TypeDecl } from '../markers/collector.js';
import { MarkerSet } from '../markers/collector.js';
import type { DiagnosticBag, SourcePosition } from '../diagnostics.js';
import type { SourceProgram } from '../markers/program.js';
import {
  k8sOptional,
  k8sRequired,
  optional,
  optionalMarkers,
  required,
  requiredMarkers,
  validationOptional,
  validationRequired,
} from '../markers/defs/required.js';
import {
  immutable,
  oneOfMarkers,
  preserveUnknownFields,
  schemaless,
  validationType,
  validationPattern,
  xPreserveUnknownFields,
} from '../markers/defs/validation.js';
import { afterFlattening, schemaPatch } from '../markers/defs/kubescaffold.js';
import { flattenInto } from './flatten.js';
import { applySchemaMarkers } from './schema-markers.js';
import { unsupportedTypeMessage } from './unsupported-types.js';
import { builtinTypeSchema } from './k8s_schemas/index.js';
import { knownTypeSchema, typeMetaProperties } from './known.js';
import { isRuntimeModule } from '../project/runtime-module.js';
import type { JSONSchemaProps, JSONValue, ValidationRule } from '../markers/apiextensions.js';

/** Where property schemas were declared in the sources, by schema object. */
export type SchemaOrigins = WeakMap<JSONSchemaProps, SourcePosition>;

/** Options of schema generation that controller-gen takes as flags. */
export interface SchemaOptions {
  /** Allow `number` (emitted as `type: number`); controller-gen's allowDangerousTypes. */
  allowDangerousTypes?: boolean;
}

/** Markers that make an `any`/`unknown` property or alias acceptable (it gets an empty schema for them to fill). */
const looseMarkers = [schemaless, preserveUnknownFields, xPreserveUnknownFields, validationType].map((d) => d.name);

/** The sources a schema was read from: files of the declarations used, and folders whose package markers count. */
export interface SchemaDeps {
  files: Set<SourceInfo>;
  dirs: Set<string>;
}

const newDeps = (): SchemaDeps => ({ files: new Set(), dirs: new Set() });

function mergeDeps(into: SchemaDeps | undefined, from: SchemaDeps): void {
  if (!into) return;
  for (const f of from.files) into.files.add(f);
  for (const d of from.dirs) into.dirs.add(d);
}

/**
 * Turns the project's TypeScript types into OpenAPI schemas for one run, caching each named type's schema and recording
 * the sources every schema was read from.
 */
export class SchemaGenerator {
  private readonly cache = new Map<TypeDecl, { schema: JSONSchemaProps; deps: SchemaDeps }>();
  /**
   * Where each property's schema was declared, for messages about the assembled schema (the structural checks take
   * it). Keyed by the schema object, which a property keeps as built: callers copy what they change.
   */
  readonly origins: SchemaOrigins = new WeakMap<JSONSchemaProps, SourcePosition>();
  private readonly depStack: SchemaDeps[] = [];
  private readonly inProgress: TypeDecl[] = [];
  private readonly packageOptional = new Map<string, boolean>();
  /**
   * How many of an object body's x-kubernetes-validations came from the types it embeds (they are last): the type's
   * own markers go before them, as controller-gen lists the embedding struct's rules before the embedded ones.
   */
  private readonly embeddedRuleCount = new WeakMap<JSONSchemaProps, number>();

  constructor(
    private readonly program: SourceProgram,
    private readonly diags: DiagnosticBag,
    private readonly options: SchemaOptions = {},
  ) {}

  /** Runs `fn` and returns what it produced with the sources it read (for regenerating only what a change affects). */
  withDeps<R>(fn: () => R): { result: R; deps: SchemaDeps } {
    const deps = newDeps();
    this.depStack.push(deps);
    try {
      return { result: fn(), deps };
    } finally {
      this.depStack.pop();
      mergeDeps(this.depStack[this.depStack.length - 1], deps);
    }
  }

  /**
   * The openAPIV3Schema of a Kind: its interface, with controller-gen's fixes for the top-level metadata. `metadata`
   * stays required when declared without `?`, as controller-gen keeps an ObjectMeta embedded without omitempty.
   */
  kindSchema(decl: TypeDecl): JSONSchemaProps {
    const schema = { ...this.declSchema(decl) };
    const props = { ...schema.properties };
    if (props.metadata) props.metadata = { type: 'object' };
    if (schema.properties) schema.properties = props;
    if (schema.required) {
      schema.required = schema.required.filter((r) => r !== 'apiVersion' && r !== 'kind');
      if (schema.required.length === 0) delete schema.required;
    }
    // A patch on the Kind has the last word over these fixes too (a merge patch applied twice changes nothing more).
    applySchemaMarkers(schema, decl.markers.all(schemaPatch.name), 'type', this.diags);
    return schema;
  }

  /** The schema of a named type with its description and type-level markers (computed once; shared, do not modify). */
  declSchema(decl: TypeDecl, from?: SourcePosition): JSONSchemaProps {
    const cached = this.cache.get(decl);
    if (cached) {
      mergeDeps(this.depStack[this.depStack.length - 1], cached.deps);
      return cached.schema;
    }
    if (this.inProgress.includes(decl)) {
      const cycle = [...this.inProgress.slice(this.inProgress.indexOf(decl)), decl].map((d) => d.name).join(' -> ');
      this.diags.at(
        from ?? decl.pos,
        `recursive type ${cycle} cannot be described by a structural CRD schema; break the cycle, or mark the property +${schemaless.name} and +${preserveUnknownFields.name}`,
      );
      return {};
    }
    this.inProgress.push(decl);
    let built: { result: JSONSchemaProps; deps: SchemaDeps };
    let embedded = 0;
    try {
      built = this.withDeps(() => {
        const body = this.declBody(decl);
        embedded = this.embeddedRuleCount.get(body) ?? 0;
        return { ...body };
      });
    } finally {
      this.inProgress.pop();
    }
    const schema = built.result;
    built.deps.files.add(decl.file);
    mergeDeps(this.depStack[this.depStack.length - 1], built.deps);
    if (decl.doc) schema.description = decl.doc;
    this.checkOneOfMembers(decl, schema);
    const rules = schema['x-kubernetes-validations'] ?? [];
    const embeddedRules = rules.slice(rules.length - embedded);
    if (embedded > 0) schema['x-kubernetes-validations'] = rules.slice(0, rules.length - embedded);
    applySchemaMarkers(schema, decl.markers.list, 'type', this.diags);
    if (embedded > 0)
      schema['x-kubernetes-validations'] = [...(schema['x-kubernetes-validations'] ?? []), ...embeddedRules];
    this.cache.set(decl, { schema, deps: built.deps });
    return schema;
  }

  private declBody(decl: TypeDecl): JSONSchemaProps {
    const node = decl.node;
    if (!ts.isEnumDeclaration(node) && node.typeParameters && node.typeParameters.length > 0) {
      this.diags.at(decl.pos, `generic type ${decl.name} cannot be used in a CRD schema; declare a concrete type`);
      return {};
    }
    if (ts.isInterfaceDeclaration(node)) return this.objectSchema(node.members, decl.file, node.heritageClauses);
    if (ts.isEnumDeclaration(node)) return this.enumSchema(node, decl.file);
    if (isLoose(node.type) && looseMarkers.some((m) => decl.markers.has(m))) return {};
    return this.typeSchema(node.type, decl.file);
  }

  private at(file: SourceInfo, node: T.Node): SourcePosition {
    const lc = file.source.getLineAndCharacterOfPosition(node.getStart(file.source));
    return { file: file.path, line: lc.line + 1, column: lc.character + 1 };
  }

  private error(file: SourceInfo, node: T.Node, message: string): JSONSchemaProps {
    this.diags.at(this.at(file, node), message);
    return {};
  }

  /** The schema of a type as written at a use (a field, an alias, an array item); named types go through declSchema. */
  typeSchema(node: T.TypeNode, file: SourceInfo): JSONSchemaProps {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: 'string' };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case ts.SyntaxKind.NumberKeyword:
        if (this.options.allowDangerousTypes || markedFloat(node, file)) return { type: 'number' };
        return this.error(
          file,
          node,
          `number is a float, the usage of which is highly discouraged (support varies across languages): use int32 or int64 (import type { int32 } from '@kubescaffold/runtime'), a string; or mark this field +${validationType.name}=number, or run with --allow-dangerous-types, to emit type: number`,
        );
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
        return this.error(
          file,
          node,
          `${node.getText(file.source)} cannot be described by a CRD schema: use a concrete type, JSONValue from '@kubescaffold/runtime' for arbitrary JSON, or mark the property +${schemaless.name} with +${preserveUnknownFields.name}`,
        );
      case ts.SyntaxKind.ObjectKeyword:
        return this.error(file, node, 'object has no schema: declare an interface, or use Record<string, T> for a map');
      case ts.SyntaxKind.BigIntKeyword:
        return this.error(file, node, 'bigint does not survive JSON: use int64 or a string');
      case ts.SyntaxKind.NullKeyword:
      case ts.SyntaxKind.UndefinedKeyword:
      case ts.SyntaxKind.VoidKeyword:
      case ts.SyntaxKind.NeverKeyword:
        return this.error(
          file,
          node,
          `${node.getText(file.source)} alone has no schema; write T | null for a nullable value`,
        );
    }
    if (ts.isParenthesizedTypeNode(node)) return this.typeSchema(node.type, file);
    if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)
      return this.typeSchema(node.type, file);
    if (ts.isLiteralTypeNode(node)) return this.literalSchema(node, file);
    if (ts.isArrayTypeNode(node)) return { type: 'array', items: this.typeSchema(node.elementType, file) };
    if (ts.isUnionTypeNode(node)) return this.unionSchema(node, file);
    if (ts.isIntersectionTypeNode(node)) return this.intersectionSchema(node, file);
    if (ts.isTypeLiteralNode(node)) return this.objectSchema(node.members, file);
    if (ts.isTypeReferenceNode(node)) return this.referenceSchema(node, file);
    if (ts.isTupleTypeNode(node))
      return this.error(file, node, 'tuples cannot be described by a CRD schema: use an array (T[]) or an interface');
    if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node))
      return this.error(file, node, 'functions cannot be part of an API type');
    if (ts.isTemplateLiteralTypeNode(node))
      return this.error(
        file,
        node,
        `template literal types are not supported: use string with +${validationPattern.name}`,
      );
    return this.error(file, node, unsupportedTypeMessage(node, file.source));
  }

  private literalSchema(node: T.LiteralTypeNode, file: SourceInfo): JSONSchemaProps {
    const lit = node.literal;
    if (ts.isStringLiteral(lit) || ts.isNoSubstitutionTemplateLiteral(lit)) return { type: 'string', enum: [lit.text] };
    if (lit.kind === ts.SyntaxKind.TrueKeyword || lit.kind === ts.SyntaxKind.FalseKeyword)
      return { type: 'boolean', enum: [lit.kind === ts.SyntaxKind.TrueKeyword] };
    if (ts.isNumericLiteral(lit) || ts.isPrefixUnaryExpression(lit)) {
      const value = Number(lit.getText(file.source));
      if (Number.isInteger(value)) return { type: 'integer', enum: [value] };
      if (this.options.allowDangerousTypes) return { type: 'number', enum: [value] };
      return this.error(
        file,
        node,
        'non-integer number literals need --allow-dangerous-types (floats are discouraged in CRDs)',
      );
    }
    return this.error(file, node, `${node.getText(file.source)} cannot be described by a CRD schema`);
  }

  /** `'A' | 'B'` -> enum; `T | null` -> nullable; `int32 | string` -> int-or-string. */
  private unionSchema(node: T.UnionTypeNode, file: SourceInfo): JSONSchemaProps {
    let nullable = false;
    const members: T.TypeNode[] = [];
    for (const t of node.types) {
      if (t.kind === ts.SyntaxKind.UndefinedKeyword) continue;
      if (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword) {
        nullable = true;
        continue;
      }
      members.push(t);
    }
    if (members.length === 0) return this.error(file, node, 'a union of only null/undefined has no schema');
    const schemas = members.map((m) => this.typeSchema(m, file));
    let out: JSONSchemaProps | undefined;
    if (schemas.length === 1) out = { ...schemas[0] };
    else if (schemas.every((s) => s.enum && s.type === schemas[0]!.type)) {
      const values: JSONValue[] = [];
      for (const s of schemas)
        for (const v of s.enum ?? []) if (!values.some((x) => JSON.stringify(x) === JSON.stringify(v))) values.push(v);
      out =
        schemas[0]!.type === 'boolean' && values.length === 2
          ? { type: 'boolean' }
          : { type: schemas[0]!.type!, enum: values };
    } else if (schemas.every((s) => s.type === 'string')) {
      out = { type: 'string' }; // 'a' | string: an open set of strings
    } else if (
      schemas.length === 2 &&
      schemas.some((s) => s.type === 'string' && !s.enum) &&
      schemas.some((s) => (s.type === 'integer' || s.type === 'number') && !s.enum)
    ) {
      out = knownTypeSchema('IntOrString')!;
    }
    if (!out) {
      return this.error(
        file,
        node,
        `the union ${node.getText(file.source)} cannot be described by a structural CRD schema: use a union of literals of one type, T | null, int32 | string (int-or-string), or one interface with optional properties`,
      );
    }
    if (nullable) out.nullable = true;
    return out;
  }

  /**
   * `A & B` of object types merges their properties, like Go embedding: inline object types (`{ ... }`) are the
   * struct's own fields, named types the structs it embeds, whatever their order.
   */
  private intersectionSchema(node: T.IntersectionTypeNode, file: SourceInfo): JSONSchemaProps {
    const embedded: JSONSchemaProps = { type: 'object', properties: {} };
    const own: JSONSchemaProps = { type: 'object', properties: {} };
    const owners: T.TypeNode[] = [];
    for (const t of node.types) {
      const s = this.typeSchema(t, file);
      if (s.type !== 'object' || !s.properties)
        return this.error(file, t, 'only object types can be intersected (A & B)');
      if (ts.isTypeLiteralNode(t)) {
        mergeObject(own, s);
        owners.push(t);
      } else this.mergeEmbedded(embedded, s, file, t);
    }
    const out = embedded;
    for (const [name, prop] of Object.entries(own.properties!))
      out.properties![name] = this.overrideEmbedded(out.properties![name], prop, name, file, owners[0]!);
    mergeObject(out, { ...own, properties: {}, 'x-kubernetes-validations': undefined });
    this.ownRulesFirst(out, own['x-kubernetes-validations'] ?? []);
    return finishObject(out);
  }

  /**
   * A struct embedded after others (a later base of `extends`, a later named member of `A & B`): a property both
   * declare keeps the earlier one's description and merges the later one's markers into it, as controller-gen's
   * allOf flattening does.
   */
  private mergeEmbedded(out: JSONSchemaProps, s: JSONSchemaProps, file: SourceInfo, at: T.Node): void {
    for (const [name, prop] of Object.entries(s.properties ?? {}))
      out.properties![name] = this.overrideEmbedded(out.properties![name], prop, name, file, at);
    mergeObject(out, { ...s, properties: {}, 'x-kubernetes-validations': undefined });
    // A later embedded struct's rules come first (controller-gen's flattenAllOfInto puts src's before dst's).
    const rules = s['x-kubernetes-validations'];
    if (rules) out['x-kubernetes-validations'] = [...rules, ...(out['x-kubernetes-validations'] ?? [])];
  }

  /** Puts an object's own rules before those of the types it embeds (already in `out`), and counts the latter. */
  private ownRulesFirst(out: JSONSchemaProps, own: ValidationRule[]): void {
    const embedded = out['x-kubernetes-validations'] ?? [];
    if (own.length + embedded.length > 0) out['x-kubernetes-validations'] = [...own, ...embedded];
    if (embedded.length > 0) this.embeddedRuleCount.set(out, embedded.length);
  }

  /**
   * A property the struct declares itself (`own`) that an embedded struct declares too: controller-gen keeps the
   * embedded property's description, title and examples (even where it has none) and merges the own markers in.
   */
  private overrideEmbedded(
    embedded: JSONSchemaProps | undefined,
    own: JSONSchemaProps,
    name: string,
    file: SourceInfo,
    at: T.Node,
  ): JSONSchemaProps {
    if (!embedded) return own;
    if (embedded.type !== undefined && own.type !== undefined && embedded.type !== own.type) {
      const pos = this.origins.get(own) ?? this.at(file, at);
      this.diags.at(
        pos,
        `property ${name} is ${own.type} here and ${embedded.type} in the type it extends; controller-gen refuses conflicting types in one object: give it one type`,
      );
      return own;
    }
    const merged = flattenInto(embedded, own);
    const origin = this.origins.get(own);
    if (origin) this.origins.set(merged, origin);
    return merged;
  }

  private enumSchema(node: T.EnumDeclaration, file: SourceInfo): JSONSchemaProps {
    const values: JSONValue[] = [];
    let next = 0;
    for (const m of node.members) {
      const init = m.initializer;
      if (!init) values.push(next++);
      else if (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) values.push(init.text);
      else if (ts.isNumericLiteral(init)) {
        next = Number(init.text) + 1;
        values.push(Number(init.text));
      } else if (
        ts.isPrefixUnaryExpression(init) &&
        init.operator === ts.SyntaxKind.MinusToken &&
        ts.isNumericLiteral(init.operand)
      ) {
        next = -Number(init.operand.text) + 1;
        values.push(-Number(init.operand.text));
      } else return this.error(file, m, 'enum members must be string or number literals');
    }
    const strings = values.filter((v) => typeof v === 'string').length;
    if (strings > 0 && strings < values.length)
      return this.error(file, node.name, 'an enum mixing strings and numbers cannot be described by a CRD schema');
    if (strings === 0 && values.some((v) => !Number.isInteger(v)))
      return this.error(file, node.name, 'enum values must be integers or strings');
    return { type: strings > 0 ? 'string' : 'integer', enum: values };
  }

  private referenceSchema(node: T.TypeReferenceNode, file: SourceInfo): JSONSchemaProps {
    const name = entityName(node.typeName);
    const args = node.typeArguments ?? [];
    const local = file.types.has(name) || file.imports.has(name.split('.')[0]!);
    if (!local) {
      switch (name) {
        case 'Array':
        case 'ReadonlyArray':
          if (args.length === 1) return { type: 'array', items: this.typeSchema(args[0]!, file) };
          break;
        case 'Record':
          if (args.length === 2) return this.recordSchema(args[0]!, args[1]!, file);
          break;
        case 'Date':
          return this.error(
            file,
            node,
            "Date does not survive JSON: use Time from '@kubescaffold/runtime' (a string with format date-time)",
          );
        case 'Map':
        case 'Set':
          return this.error(file, node, `${name} does not survive JSON: use Record<string, T> or an array`);
      }
    }
    if (args.length > 0)
      return this.error(
        file,
        node,
        `generic type ${node.getText(file.source)} cannot be used in a CRD schema; declare a concrete type`,
      );
    const resolved = this.program.resolveName(file, name);
    switch (resolved.kind) {
      case 'decl':
        return this.declSchema(resolved.decl, this.at(file, node));
      case 'external':
        return this.externalSchema(resolved.module, resolved.name, file, node);
      case 'unresolved':
        return this.error(file, node, resolved.why);
    }
  }

  private externalSchema(module: string, name: string, file: SourceInfo, node: T.Node): JSONSchemaProps {
    if (isRuntimeModule(module) || module === '@kubernetes/client-node') {
      const k8sName = name.startsWith('k8s.') ? name.slice(4) : module === '@kubernetes/client-node' ? name : undefined;
      const known = knownTypeSchema(name) ?? (k8sName ? knownTypeSchema(k8sName) : undefined);
      if (known) return known;
      if (k8sName) {
        const builtin = builtinTypeSchema(k8sName);
        if (builtin) return builtin;
        return this.error(
          file,
          node,
          `the Kubernetes type ${k8sName} has no bundled schema; declare the fields you need as an interface`,
        );
      }
      return this.error(file, node, `${name} from '${module}' has no CRD schema`);
    }
    return this.error(
      file,
      node,
      `types from the package '${module}' cannot be read; declare ${name} in the project, or import it from '@kubescaffold/runtime'`,
    );
  }

  private recordSchema(key: T.TypeNode, value: T.TypeNode, file: SourceInfo): JSONSchemaProps {
    const keySchema = this.typeSchema(key, file);
    if (keySchema.type !== 'string') return this.error(file, key, 'map keys must be strings (Record<string, T>)');
    return { type: 'object', additionalProperties: this.typeSchema(value, file) };
  }

  /** An interface or object literal: properties, index signature, `extends` (merged like Go embedding). */
  private objectSchema(
    members: T.NodeArray<T.TypeElement>,
    file: SourceInfo,
    heritage?: T.NodeArray<T.HeritageClause>,
  ): JSONSchemaProps {
    const out: JSONSchemaProps = { type: 'object', properties: {} };
    for (const clause of heritage ?? []) {
      for (const base of clause.types) this.mergeBase(out, base, file);
    }
    const required: string[] = [];
    const immutableOptional: string[] = [];
    const packageOptional = this.isPackageOptional(file);
    for (const m of members) {
      if (ts.isIndexSignatureDeclaration(m)) {
        const param = m.parameters[0];
        if (!param?.type || param.type.kind !== ts.SyntaxKind.StringKeyword) {
          this.error(file, m, 'index signatures must have string keys ({ [key: string]: T })');
          continue;
        }
        out.additionalProperties = this.typeSchema(m.type, file);
        continue;
      }
      if (!ts.isPropertySignature(m)) {
        this.error(file, m, 'only properties can be part of an API type (no methods or call signatures)');
        continue;
      }
      const name = propertyName(m.name);
      if (name === undefined) {
        this.error(file, m.name, 'property names must be identifiers or string literals');
        continue;
      }
      if (!m.type) {
        this.error(file, m, `property ${name} needs a type annotation`);
        continue;
      }
      const info = file.members.get(m) ?? { markers: new MarkerSet(), doc: '' };
      this.checkRequiredConflict(info);
      const isRequired = fieldRequired(info, m.questionToken !== undefined, packageOptional);
      if (isRequired) required.push(name);
      else if (info.markers.has(immutable.name)) immutableOptional.push(name);
      const prop = this.fieldSchema(m.type, info, file);
      this.origins.set(prop, this.at(file, m.name));
      out.properties![name] = this.overrideEmbedded(out.properties![name], prop, name, file, m.name);
    }
    if (required.length > 0) out.required = [...new Set([...(out.required ?? []), ...required])].sort();
    this.ownRulesFirst(
      out,
      immutableOptional.map((f) => ({
        rule: `!has(oldSelf.${f}) || has(self.${f})`,
        message: `field ${f} is immutable once set`,
      })),
    );
    if (out.additionalProperties && Object.keys(out.properties!).length > 0) {
      this.diags.at(
        this.at(file, members[0]!),
        'an object cannot have both properties and an index signature in a structural CRD schema; use one or the other',
      );
    }
    return finishObject(out);
  }

  private fieldSchema(type: T.TypeNode, info: MemberInfo, file: SourceInfo): JSONSchemaProps {
    let schema: JSONSchemaProps;
    if (info.markers.has(schemaless.name) || (isLoose(type) && looseMarkers.some((m) => info.markers.has(m))))
      schema = {};
    else {
      const problems = this.diags.items.length;
      schema = { ...this.typeSchema(type, file) };
      // A type that cannot be described (an unknown name, any) has been reported and left empty: checking the
      // field's markers against it would only add errors about a type "" below the one that says why.
      if (Object.keys(schema).length === 0 && this.diags.items.length > problems) return schema;
    }
    if (Object.keys(schema).length > 0 && this.isDeclaredTypeReference(type, file))
      return this.namedFieldSchema(schema, info);
    if (info.doc) schema.description = info.doc;
    // Field rules come before the type's rules, as controller-gen's allOf flattening orders them.
    const typeRules = schema['x-kubernetes-validations'];
    delete schema['x-kubernetes-validations'];
    applySchemaMarkers(schema, info.markers.list, 'field', this.diags);
    if (typeRules) schema['x-kubernetes-validations'] = [...(schema['x-kubernetes-validations'] ?? []), ...typeRules];
    return schema;
  }

  /**
   * A field of a type declared in the project: the field's markers go on top of the type's schema as controller-gen
   * flattens them (flatten.ts), so where both set a key, both constraints are kept in an allOf.
   */
  private namedFieldSchema(typeSchema: JSONSchemaProps, info: MemberInfo): JSONSchemaProps {
    // The markers are applied to a copy of the type's schema, so that they are checked against its type; what they
    // set there is the field's part.
    const touched = new Set<string>();
    const target: JSONSchemaProps = { ...typeSchema };
    delete target['x-kubernetes-validations'];
    const recorder = new Proxy(target, {
      set: (t, k, v) => (touched.add(String(k)), Reflect.set(t, k, v)),
      deleteProperty: (t, k) => (touched.add(String(k)), Reflect.deleteProperty(t, k)),
    });
    const ours = info.markers.list.filter((m) => afterFlattening.has(m.name));
    applySchemaMarkers(
      recorder,
      info.markers.list.filter((m) => !afterFlattening.has(m.name)),
      'field',
      this.diags,
    );
    const fieldPart: Record<string, unknown> = {};
    for (const k of touched)
      if ((target as Record<string, unknown>)[k] !== undefined) fieldPart[k] = (target as Record<string, unknown>)[k];
    const schema = flattenInto(typeSchema, fieldPart as JSONSchemaProps);
    // Documentation comes from the field where it has some (controller-gen's preserveFields).
    for (const k of ['title', 'example', 'externalDocs'] as const)
      if (fieldPart[k] !== undefined) (schema as Record<string, unknown>)[k] = fieldPart[k];
    if (info.doc) schema.description = info.doc;
    // our combinators and patches say the field's schema as it is written, so they apply to the flattened whole
    applySchemaMarkers(schema, ours, 'field', this.diags);
    return schema;
  }

  /** Whether `type` names an interface or type alias declared in the project (a Go named type, reached by $ref). */
  private isDeclaredTypeReference(type: T.TypeNode, file: SourceInfo): boolean {
    while (ts.isParenthesizedTypeNode(type)) type = type.type;
    if (!ts.isTypeReferenceNode(type) || type.typeArguments?.length) return false;
    return this.program.resolveName(file, entityName(type.typeName)).kind === 'decl';
  }

  /** +optional and +required (in any spelling) on one property contradict each other. */
  private checkRequiredConflict(info: MemberInfo): void {
    const isOptional = info.markers.list.find((m) => optionalMarkers.some((d) => d.name === m.name));
    const isRequired = info.markers.list.find((m) => requiredMarkers.some((d) => d.name === m.name));
    if (isOptional && isRequired)
      this.diags.at(
        isRequired.pos,
        `conflicting markers +${isOptional.name} and +${isRequired.name} on one property; keep one`,
      );
  }

  /** Members of AtMostOneOf/ExactlyOneOf/AtLeastOneOf groups must be optional (controller-gen's rule). */
  private checkOneOfMembers(decl: TypeDecl, schema: JSONSchemaProps): void {
    for (const oneOf of oneOfMarkers) {
      for (const m of decl.markers.all(oneOf.name)) {
        for (const f of (m.value as string[] | null) ?? []) {
          if (schema.required?.includes(f)) {
            this.diags.at(
              m.pos,
              `field ${f} is part of OneOf constraint and cannot be required; make it optional (${f}?: ...)`,
            );
          }
        }
      }
    }
  }

  private mergeBase(out: JSONSchemaProps, base: T.ExpressionWithTypeArguments, file: SourceInfo): void {
    const name = base.expression.getText(file.source);
    // Go writes +optional on inline embedded fields; controller-gen accepts and ignores it. Nothing else has a meaning.
    for (const m of file.members.get(base)?.markers.list ?? []) {
      if (optionalMarkers.some((d) => d.name === m.name)) continue;
      this.diags.at(
        m.pos,
        `marker +${m.name} on the embedded ${name} has no effect; only +optional may stand there (it is ignored, as controller-gen ignores it on an inline field): put the marker on ${name}'s properties or on ${name} itself`,
      );
    }
    const resolved = this.program.resolveName(file, name);
    if (resolved.kind === 'external' && (resolved.name === 'TypeMeta' || resolved.name === 'KubeObject')) {
      Object.assign(out.properties!, typeMetaProperties());
      if (resolved.name === 'KubeObject') out.properties!.metadata = { type: 'object' };
      return;
    }
    if (base.typeArguments && base.typeArguments.length > 0) {
      this.error(file, base, `generic type ${name} cannot be used in a CRD schema; declare a concrete type`);
      return;
    }
    let s: JSONSchemaProps;
    if (resolved.kind === 'decl') s = this.declSchema(resolved.decl, this.at(file, base));
    else if (resolved.kind === 'external') s = this.externalSchema(resolved.module, resolved.name, file, base);
    else {
      this.error(file, base, resolved.why);
      return;
    }
    if (s.type !== 'object') {
      this.error(file, base, `${name} is not an object type and cannot be extended`);
      return;
    }
    this.mergeEmbedded(out, s, file, base);
  }

  private isPackageOptional(file: SourceInfo): boolean {
    const dir = dirname(file.path);
    this.depStack[this.depStack.length - 1]?.dirs.add(dir);
    let v = this.packageOptional.get(dir);
    if (v === undefined) {
      v = this.program.loadPackage(dir).markers.has(validationOptional.name);
      this.packageOptional.set(dir, v);
    }
    return v;
  }
}

/** controller-gen's required rules (pkg/crd/schema.go structToSchema), with `?` in the role of omitempty. */
export function fieldRequired(info: MemberInfo, questionToken: boolean, packageOptional: boolean): boolean {
  const m = info.markers;
  if (m.has(validationOptional.name)) return false;
  if (m.has(validationRequired.name)) return true;
  if (m.has(optional.name) || m.has(k8sOptional.name)) return false;
  if (m.has(required.name) || m.has(k8sRequired.name)) return true;
  if (packageOptional) return false;
  return !questionToken;
}

/** Embedded object: properties and required merged into the parent (controller-gen's allOf flattening). */
function mergeObject(out: JSONSchemaProps, s: JSONSchemaProps): void {
  Object.assign(out.properties!, s.properties ?? {});
  if (s.required) out.required = [...new Set([...(out.required ?? []), ...s.required])].sort();
  if (s['x-kubernetes-validations'])
    out['x-kubernetes-validations'] = [...(out['x-kubernetes-validations'] ?? []), ...s['x-kubernetes-validations']];
  if (s.additionalProperties !== undefined) out.additionalProperties = s.additionalProperties;
}

function finishObject(s: JSONSchemaProps): JSONSchemaProps {
  if (s.properties && Object.keys(s.properties).length === 0) delete s.properties;
  return s;
}

/**
 * Whether `number` is written as the type of a property or type alias marked `+kubebuilder:validation:Type=number`
 * (alone, or with null): a float asked for there, which needs no --allow-dangerous-types for the whole run
 * (controller-gen has only the run-wide option).
 */
function markedFloat(node: T.TypeNode, file: SourceInfo): boolean {
  // parsed without parent links: the property or alias is found by the type it declares
  const holds = (t: T.TypeNode | undefined): boolean =>
    t === node ||
    (t !== undefined && ts.isUnionTypeNode(t) && t.types.some(holds)) ||
    (t !== undefined && ts.isParenthesizedTypeNode(t) && holds(t.type));
  const marked = (markers: MarkerSet | undefined): boolean =>
    markers?.all(validationType.name).some((m) => m.value === 'number') ?? false;
  for (const [member, info] of file.members)
    if (ts.isPropertySignature(member) && holds(member.type)) return marked(info.markers);
  for (const decl of file.types.values())
    if (ts.isTypeAliasDeclaration(decl.node) && holds(decl.node.type)) return marked(decl.markers);
  return false;
}

function isLoose(t: T.TypeNode): boolean {
  if (t.kind === ts.SyntaxKind.AnyKeyword || t.kind === ts.SyntaxKind.UnknownKeyword) return true;
  if (ts.isUnionTypeNode(t)) return t.types.some(isLoose);
  return false;
}

function entityName(n: T.EntityName): string {
  return ts.isIdentifier(n) ? n.text : `${entityName(n.left)}.${n.right.text}`;
}

function propertyName(n: T.PropertyName): string | undefined {
  if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))
    return n.text;
  return undefined;
}
