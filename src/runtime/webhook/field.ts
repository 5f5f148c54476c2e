/**
 * Field errors and the Invalid status built from them, worded as apimachinery's field.Error and errors.NewInvalid,
 * so users see the same messages from a TypeScript webhook as from a Go one:
 *   Captain.crew.example.com "x" is invalid: spec.foo: Invalid value: "bar": must be short
 */
import type { Status } from '../rest/types.js';
import type { FieldError, FieldErrorType } from './types.js';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueForbidden: 'Forbidden',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
};

/** Constructors for field errors, as apimachinery's field.Required, field.Invalid, ... */
export const field = {
  required(path: string, detail: string): FieldError {
    return { field: path, type: 'FieldValueRequired', message: detail };
  },
  invalid(path: string, value: unknown, detail: string): FieldError {
    return { field: path, type: 'FieldValueInvalid', message: detail, value };
  },
  forbidden(path: string, detail: string): FieldError {
    return { field: path, type: 'FieldValueForbidden', message: detail };
  },
  notSupported(path: string, value: unknown, valid: string[]): FieldError {
    const detail = valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '';
    return { field: path, type: 'FieldValueNotSupported', message: detail, value };
  },
  duplicate(path: string, value: unknown): FieldError {
    return { field: path, type: 'FieldValueDuplicate', message: '', value };
  },
  tooLong(path: string, value: unknown, maxLength: number): FieldError {
    const detail =
      maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long';
    return { field: path, type: 'FieldValueTooLong', message: detail, value };
  },
};

// Go prints simple values with %v, strings with %q and (for us) anything else as JSON; a missing value prints "null".
function formatValue(value: unknown): string {
  if (value === undefined || value === null) return '"null"';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The error text without the field path (apimachinery's ErrorBody): `Invalid value: "bar": must be short`. */
export function fieldErrorBody(e: FieldError): string {
  const valueless =
    e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' || e.type === 'FieldValueTooLong';
  let s = valueless ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${formatValue(e.value)}`;
  if (e.message) s += `: ${e.message}`;
  return s;
}

/** `spec.foo: Invalid value: "bar": must be short` */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** Errors joined as apimachinery's aggregate: one message alone, several as `[a, b]`, repeats dropped. */
export function aggregateFieldErrors(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorString))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

/** `Kind.group`, or the bare kind for the core group (schema.GroupKind's String). */
export function qualifiedKind(gk: { group: string; kind: string }): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/**
 * The 422 Invalid status errors.NewInvalid builds: message `<Kind>.<group> "<name>" is invalid: <errors>` and one
 * cause per field error.
 */
export function invalidStatus(gk: { group: string; kind: string }, name: string, errs: readonly FieldError[]): Status {
  const qualified = qualifiedKind(gk);
  const message = errs.length
    ? `${qualified} ${JSON.stringify(name)} is invalid: ${aggregateFieldErrors(errs)}`
    : `${qualified} ${JSON.stringify(name)} is invalid`;
  return {
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message,
    details: {
      group: gk.group,
      kind: gk.kind,
      name,
      causes: errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
    },
  };
}
