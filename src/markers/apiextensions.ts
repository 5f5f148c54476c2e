/**
 * The apiextensions.k8s.io/v1 objects the generators write: the OpenAPI v3 schema subset of JSONSchemaProps and the
 * CRD. They live with the markers because the markers' effects (src/markers/defs) write them; src/crd assembles them.
 */

export type { JSONValue } from '@kubescaffold/runtime/json';
import type { JSONValue } from '@kubescaffold/runtime/json';

/** One CEL rule of `x-kubernetes-validations` (+kubebuilder:validation:XValidation). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** An OpenAPI v3 schema as a CRD's openAPIV3Schema holds it, with the Kubernetes `x-kubernetes-*` extensions. */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  default?: JSONValue;
  example?: JSONValue;
  enum?: JSONValue[];
  nullable?: boolean;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  externalDocs?: { url: string; description?: string };
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** An additionalPrinterColumns entry (+kubebuilder:printcolumn): a column of `kubectl get`. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** One version of a CRD: its schema, whether it is served and stored, subresources and printer columns. */
export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition object the generator writes (to config/crd/bases by default).
 */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      /** Always written by controller-gen; `+kubescaffold:crd:listKind=""` leaves it out. */
      listKind?: string;
      plural: string;
      /** Always written by controller-gen; `+kubescaffold:crd:singular=""` leaves it out. */
      singular?: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: string;
    versions: CRDVersion[];
    /** How versions convert (`+kubescaffold:crd:conversion`); controller-gen writes none. */
    conversion?: { strategy: 'None' | 'Webhook'; webhook?: Record<string, JSONValue> };
    /** Only false in apiextensions.k8s.io/v1 (`+kubescaffold:crd:preserveUnknownFields`). */
    preserveUnknownFields?: boolean;
  };
}
