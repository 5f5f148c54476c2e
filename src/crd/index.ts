/** CRDs from TypeScript types: schemas, CRD assembly, structural checks. */
export { SchemaGenerator, fieldRequired, type SchemaOptions, type SchemaDeps } from './schema.js';
export { buildCRDs, crdSkeleton, findKinds, groupKinds, groupVersionOf, CRDCache, VERSION_ANNOTATION, type GroupVersion, type KindInfo, type CRDOptions } from './crd.js';
export { checkStructural } from './structural.js';
export { truncateDescriptions } from './description.js';
export { builtinTypeSchema, builtinTypeNames } from './builtin/index.js';
export type { CustomResourceDefinition, CRDVersion, JSONSchemaProps, JSONValue, PrinterColumn, ValidationRule } from './types.js';
