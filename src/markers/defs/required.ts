/**
 * Whether a property is required: `+optional`, `+required` and their k8s: and kubebuilder:validation: spellings,
 * read by the schema generator (crd/schema.ts) with controller-gen's precedence; on a package,
 * `+kubebuilder:validation:Optional` makes every field of the folder optional by default.
 */
import { flag, FIELD, type MarkerDefinition, type MarkerGroup, type MarkerTarget } from './define.js';
import type { ReadElsewhere } from './effect.js';

const read = (reads: string): ReadElsewhere => ({ on: 'read', by: 'crd/schema.ts', reads });
const fieldRequirement = (
  name: string,
  targets: readonly MarkerTarget[],
  help: string,
  reads: string,
): MarkerDefinition<ReadElsewhere> => ({
  name,
  targets,
  shape: flag,
  help,
  effect: read(reads),
});

/** `+kubebuilder:validation:Optional`: the field (or, on a package, every field of the folder) is optional. */
export const validationOptional = fieldRequirement(
  'kubebuilder:validation:Optional',
  ['package', 'field'],
  'on a field: the field is optional; in a package: all fields are optional by default',
  'the field is left out of `required`, before any other marker',
);
/** `+kubebuilder:validation:Required`: the field is required. */
export const validationRequired = fieldRequirement(
  'kubebuilder:validation:Required',
  ['package', 'field'],
  'on a field: the field is required',
  'the field is listed in `required`',
);
/** `+optional`: the field is optional. */
export const optional = fieldRequirement(
  'optional',
  FIELD,
  'the field is optional',
  'the field is left out of `required`',
);
/** `+required`: the field is required. */
export const required = fieldRequirement(
  'required',
  FIELD,
  'the field is required',
  'the field is listed in `required`',
);
/** `+k8s:optional`: the field is optional. */
export const k8sOptional = fieldRequirement(
  'k8s:optional',
  FIELD,
  'the field is optional',
  'the field is left out of `required`',
);
/** `+k8s:required`: the field is required. */
export const k8sRequired = fieldRequirement(
  'k8s:required',
  FIELD,
  'the field is required',
  'the field is listed in `required`',
);

/** Every spelling of "optional", in controller-gen's precedence among them. */
export const optionalMarkers: readonly MarkerDefinition[] = [validationOptional, optional, k8sOptional];
/** Every spelling of "required", in controller-gen's precedence among them. */
export const requiredMarkers: readonly MarkerDefinition[] = [validationRequired, required, k8sRequired];

/** The required/optional markers, as the marker reference lists them. */
export const requiredMarkerGroup: MarkerGroup = {
  title: 'Required and optional fields',
  definitions: [validationOptional, validationRequired, optional, required, k8sOptional, k8sRequired],
};
