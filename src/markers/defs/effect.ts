/**
 * What a marker does, as a typed effect: what it acts on (a schema, a CRD, one version of a CRD, the RBAC roles, the
 * webhook configurations) and the function that does it, or where else it is read. The generators dispatch on `on`,
 * so a marker's effect is written once, next to its definition.
 */
import type { JSONValue } from '@kubescaffold/runtime/json';
import type { MarkerValue } from '../grammar.js';
import type { CRDVersion, CustomResourceDefinition, JSONSchemaProps } from '../apiextensions.js';

/** Records a problem at the position of the marker being applied. */
export type Report = (message: string) => void;

/** Where a schema marker stands: on a property, or on a named type. */
export type SchemaMarkerTarget = 'field' | 'type';

/**
 * Changes a schema (controller-gen's ApplyToSchema, pkg/crd/markers/validation.go and topology.go). Markers apply by
 * `priority` (lower first, source order within one), and `items` markers apply to the array's items after all others.
 */
export interface SchemaEffect {
  on: 'schema';
  /** controller-gen's ApplyPriority: 9 for markers that set up what others check, 10 by default, 11-13 for OneOf rules. */
  priority: number;
  /** Whether the marker applies to the items of an array (the `validation:items:` markers). */
  items: boolean;
  /** Changes `schema`'s own keys only (nested schemas may be shared); returns a problem, or undefined. */
  apply(schema: JSONSchemaProps, value: MarkerValue, target: SchemaMarkerTarget): string | undefined;
}

/** Changes the whole CRD (names, scope, metadata), from the markers on the Kind of each of its versions. */
export interface CRDEffect {
  on: 'crd';
  /** Whether every version must carry the same marker (controller-gen would apply them in random order). */
  sameOnEveryVersion: boolean;
  apply(crd: CustomResourceDefinition, value: MarkerValue, report: Report): void;
}

/** Changes one version of a CRD (subresources, printer columns, storage, served, deprecation, selectable fields). */
export interface VersionEffect {
  on: 'version';
  apply(version: CRDVersion, value: MarkerValue, report: Report): void;
}

/** One RBAC rule before merging: every list as the marker gave it. */
export interface RbacRule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

/** A Role (or the ClusterRole, namespace "") and the rules markers grant it. */
export interface GrantedRole {
  namespace: string;
  name: string;
  rules: RbacRule[];
}

/** The roles the RBAC markers build up, by `JSON.stringify([namespace, name])`. */
export interface RoleGrants {
  /** The name of a role whose marker gives none (`--role-name`, manager-role by default). */
  defaultName: string;
  roles: Map<string, GrantedRole>;
}

/** Adds the rules of one marker to the roles (controller-gen's pkg/rbac/parser.go). */
export interface RbacEffect {
  on: 'rbac';
  apply(grants: RoleGrants, value: MarkerValue): void;
}

/** Which of the two webhook configurations: MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
export type WebhookKind = 'mutating' | 'validating';

/** The webhook configurations the webhook markers build up: their names and their entries. */
export interface WebhookManifests {
  names: Record<WebhookKind, string>;
  /** Configurations a `webhookconfiguration` marker has named already. */
  renamed: Set<WebhookKind>;
  webhooks: Record<WebhookKind, Array<Record<string, JSONValue>>>;
}

/**
 * Changes the webhook configurations (controller-gen's pkg/webhook/parser.go). `webhook-configuration` markers apply
 * before `webhook` markers.
 */
export interface WebhookEffect {
  on: 'webhook' | 'webhook-configuration';
  apply(manifests: WebhookManifests, value: MarkerValue, report: Report): void;
}

/**
 * A marker another part of the generators reads by its definition's name, rather than applying it: `by` is that
 * module (relative to src/), which refers to the definition, and `reads` what it does with it.
 */
export interface ReadElsewhere {
  on: 'read';
  by: string;
  reads: string;
}

/** A marker accepted for compatibility with controller-gen that has nothing to do in TypeScript, and why. */
export interface Accepted {
  on: 'accepted';
  why: string;
}

/** Every kind of effect a marker can have. */
export type MarkerEffect =
  SchemaEffect | CRDEffect | VersionEffect | RbacEffect | WebhookEffect | ReadElsewhere | Accepted;
