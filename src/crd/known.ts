/**
 * Fixed schemas of the types controller-gen does not derive from source (pkg/crd/known_types.go), the TypeMeta
 * field descriptions, and metav1.Condition as controller-gen generates it from k8s.io/apimachinery v0.37.
 */
import type { JSONSchemaProps } from '../markers/apiextensions.js';

/** The description controller-gen gives TypeMeta's apiVersion field. */
export const apiVersionDescription =
  'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';

/** The description controller-gen gives TypeMeta's kind field. */
export const kindDescription =
  'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The properties metav1.TypeMeta contributes when embedded (`extends TypeMeta`). */
export function typeMetaProperties(): Record<string, JSONSchemaProps> {
  return {
    apiVersion: { description: apiVersionDescription, type: 'string' },
    kind: { description: kindDescription, type: 'string' },
  };
}

const quantityPattern =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** The schema of metav1.Condition, used for any field of type Condition (or k8s.V1Condition). */
export const conditionSchema: JSONSchemaProps = {
  description: 'Condition contains details for one aspect of the current state of this API Resource.',
  properties: {
    lastTransitionTime: {
      description:
        'lastTransitionTime is the last time the condition transitioned from one status to another.\nThis should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.',
      format: 'date-time',
      type: 'string',
    },
    message: {
      description:
        'message is a human readable message indicating details about the transition.\nThis may be an empty string.',
      maxLength: 32768,
      type: 'string',
    },
    observedGeneration: {
      description:
        'observedGeneration represents the .metadata.generation that the condition was set based upon.\nFor instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\nwith respect to the current state of the instance.',
      format: 'int64',
      minimum: 0,
      type: 'integer',
    },
    reason: {
      description:
        "reason contains a programmatic identifier indicating the reason for the condition's last transition.\nProducers of specific condition types may define expected values and meanings for this field,\nand whether the values are considered a guaranteed API.\nThe value should be a CamelCase string.\nThis field may not be empty.",
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      type: 'string',
    },
    status: {
      description: 'status of the condition, one of True, False, Unknown.',
      enum: ['True', 'False', 'Unknown'],
      type: 'string',
    },
    type: {
      description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      type: 'string',
    },
  },
  required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  type: 'object',
};

/** Schemas by the name the runtime exports the type under; undefined for names that are not known types. */
export function knownTypeSchema(name: string): JSONSchemaProps | undefined {
  switch (name) {
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'int':
      return { type: 'integer' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'ObjectMeta':
    case 'V1ObjectMeta':
    case 'k8s.V1ObjectMeta':
      return { type: 'object' };
    case 'Condition':
    case 'V1Condition':
    case 'k8s.V1Condition':
      return conditionSchema;
    case 'Time':
    case 'MicroTime':
      return { type: 'string', format: 'date-time' };
    case 'Duration':
      return { type: 'string' };
    case 'Quantity':
      return {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        pattern: quantityPattern,
        'x-kubernetes-int-or-string': true,
      };
    case 'IntOrString':
      return { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
    case 'RawExtension':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'JSONValue':
    case 'JSON':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    case 'Fields':
      return { type: 'object', additionalProperties: true };
    default:
      return undefined;
  }
}
