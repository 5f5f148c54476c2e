/**
 * The TypeScript that `scaffold import crd` writes, as a model: per group and version, the declarations (interfaces
 * and type aliases) with their doc comments and markers, the Kinds among them, and the problems found on the way.
 */

/** A property of an interface. */
export interface FieldModel {
  /** The JSON name. */
  name: string;
  optional: boolean;
  /** The TypeScript type as written. */
  type: string;
  doc: string;
  /** Marker lines without the `// ` prefix, e.g. `+kubebuilder:validation:MaxLength=10`. */
  markers: string[];
}

/** An exported interface or type alias. */
export interface DeclModel {
  name: string;
  doc: string;
  markers: string[];
  /** The interface's properties; undefined for a type alias. */
  fields?: FieldModel[];
  /** The aliased type of a type alias. */
  alias?: string;
  extendsTypeMeta?: boolean;
  /** Names of the declarations and runtime types it refers to. */
  refs: Set<string>;
  /** The Kind it was made for, when it is a Kind. */
  kind?: KindModel;
}

/** A Kind of a group and version, with the names the CRD gives its resource. */
export interface KindModel {
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** A construct of the CRD that no marker spells, where it is, and what was written instead. */
export interface ImportProblem {
  /** Where in the CRD object, as keys and indexes from its root (for the line in the source). */
  docPath: (string | number)[];
  /** Where in the Kind's object, e.g. `Certificate v1 .spec.secretTemplate`. */
  where: string;
  message: string;
}

/** The names the runtime package exports that generated types use. */
export const RUNTIME_TYPES = new Set([
  'TypeMeta',
  'ObjectMeta',
  'int32',
  'int64',
  'IntOrString',
  'Quantity',
  'Time',
  'JSONValue',
  'RawExtension',
  'Condition',
  'k8s',
]);
