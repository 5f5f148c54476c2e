/**
 * The wire types of admission.k8s.io/v1 and apiextensions.k8s.io/v1 ConversionReview, and the interfaces generated
 * webhook code implements (controller-runtime's CustomDefaulter, CustomValidator, Hub/Convertible).
 */
import type { Logger } from '../log/index.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject, Status } from '../rest/types.js';

/** The operation an admission request is about. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Who made the request (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** AdmissionReview v1 `request`. */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  /** The new object (CREATE, UPDATE); null for DELETE. */
  object?: KubeObject | null;
  /** The existing object (UPDATE, DELETE). */
  oldObject?: KubeObject | null;
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions of the call. */
  options?: Record<string, unknown> | null;
}

/** AdmissionReview v1 `response`. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** Why the request was denied (the Go field is Result, but its JSON name is `status`). */
  status?: Status;
  /** Base64 of a JSON patch (RFC 6902). */
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/** An admission.k8s.io/v1 AdmissionReview: the API server sends a request, the webhook answers with a response. */
export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** ConversionReview v1 `request`. */
export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

/** ConversionReview v1 `response`. */
export interface ConversionResponse {
  uid: string;
  convertedObjects: KubeObject[];
  result: Status;
}

/**
 * An apiextensions.k8s.io/v1 ConversionReview: the API server sends objects to convert, the webhook answers with the
 * converted objects.
 */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: ConversionRequest;
  response?: ConversionResponse;
}

/** apimachinery's field.ErrorType values, as they appear in Status causes. */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong';

/** One problem with one field (apimachinery's field.Error); `field` is a path such as `spec.replicas`. */
export interface FieldError {
  field: string;
  type: FieldErrorType;
  message: string;
  value?: unknown;
}

/** What a validator returns: warnings shown to the client, and field errors that deny the request. */
export interface ValidationResult {
  warnings?: string[];
  errors?: FieldError[];
}

/** What a defaulter or validator gets besides the object: the request, a logger, and an abort signal. */
export interface AdmissionContext {
  /** Aborted when the API server hangs up (its webhook timeout) or the server stops. */
  signal: AbortSignal;
  log: Logger;
  request: AdmissionRequest;
}

/**
 * Sets defaults on the object in place (a copy of the request's; the difference becomes the JSON patch); throwing
 * denies the request with the error's message.
 */
export interface CustomDefaulter<T extends KubeObject> {
  /** Sets defaults on obj in place. */
  default(obj: T, ctx: AdmissionContext): Promise<void> | void;
}

type Validation = Promise<ValidationResult | void> | ValidationResult | void;

/**
 * Validates creates, updates and deletes; field errors deny the request as an Invalid status. The objects passed are
 * the request's own, not copies (a review can be 7 MiB): read them, don't change them.
 */
export interface CustomValidator<T extends KubeObject> {
  /** Validates a new object. */
  validateCreate(obj: T, ctx: AdmissionContext): Validation;
  /** Validates a change from oldObj to newObj. */
  validateUpdate(oldObj: T, newObj: T, ctx: AdmissionContext): Validation;
  /** Validates the deletion of obj. */
  validateDelete(obj: T, ctx: AdmissionContext): Validation;
}

/**
 * Converts one spoke version to and from the hub (the storage version), as controller-runtime's Convertible does.
 * Every conversion goes through the hub: spoke → convertTo → hub → convertFrom → other spoke.
 */
export interface Conversion<Spoke extends KubeObject, Hub extends KubeObject> {
  /** Converts this spoke version's object to the hub version. */
  convertTo(spoke: Spoke): Hub;
  /** Converts a hub version object to this spoke version. */
  convertFrom(hub: Hub): Spoke;
}
