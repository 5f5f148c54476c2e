/** The type of a schema as the schema markers check and name it in their messages (controller-gen's wording). */
import type { JSONSchemaProps, ValidationRule } from '../apiextensions.js';

/** Whether the schema holds a number: integer or number. */
export const isNumeric = (s: JSONSchemaProps): boolean => s.type === 'integer' || s.type === 'number';

/** Whether the schema holds a string: a string, or an int-or-string. */
export const isTextual = (s: JSONSchemaProps): boolean =>
  s.type === 'string' || s['x-kubernetes-int-or-string'] === true;

/** The schema's type for a message: its type, `int-or-string`, or `no type`. */
export const typeOf = (s: JSONSchemaProps): string =>
  s.type ? s.type : s['x-kubernetes-int-or-string'] ? 'int-or-string' : 'no type';

/** Appends a CEL rule to the schema's `x-kubernetes-validations`, replacing the list (it may be shared). */
export function addRule(s: JSONSchemaProps, rule: ValidationRule): void {
  s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule];
}
