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
  /** The user's name. */
  username?: string;
  /** A unique id of the user across time. */
  uid?: string;
  /** The groups the user belongs to. */
  groups?: string[];
  /** Further information the authenticator provided. */
  extra?: Record<string, string[]>;
}

/** AdmissionReview v1 `request`. */
export interface AdmissionRequest {
  /** Identifies this request; the response must echo it. */
  uid: string;
  /** The kind of the object, in the version the webhook is registered for. */
  kind: GroupVersionKind;
  /** The resource being acted on, in the version the webhook is registered for. */
  resource: GroupVersionResource;
  /** The subresource, e.g. 'status' or 'scale'; unset for the main resource. */
  subResource?: string;
  /** The kind as the client requested it, when the API server converted it to the registered version. */
  requestKind?: GroupVersionKind;
  /** The resource as the client requested it, when the API server converted it to the registered version. */
  requestResource?: GroupVersionResource;
  /** The subresource as the client requested it. */
  requestSubResource?: string;
  /** The object's name; may be unset on CREATE when the server generates it (generateName). */
  name?: string;
  /** The object's namespace, for namespaced resources. */
  namespace?: string;
  /** What is being done to the object. */
  operation: AdmissionOperation;
  /** Who is doing it. */
  userInfo: UserInfo;
  /** The new object (CREATE, UPDATE); null for DELETE. */
  object?: KubeObject | null;
  /** The existing object (UPDATE, DELETE). */
  oldObject?: KubeObject | null;
  /** True when the request will not be persisted: the webhook must have no side effects then. */
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions of the call. */
  options?: Record<string, unknown> | null;
}

/** AdmissionReview v1 `response`. */
export interface AdmissionResponse {
  /** The request's uid. */
  uid: string;
  /** Whether the request may proceed. */
  allowed: boolean;
  /** Why the request was denied (the Go field is Result, but its JSON name is `status`). */
  status?: Status;
  /** Base64 of a JSON patch (RFC 6902). */
  patch?: string;
  /** The patch's format; set whenever patch is. */
  patchType?: 'JSONPatch';
  /** Annotations the API server adds to the audit event of this request. */
  auditAnnotations?: Record<string, string>;
  /** Warnings the API server passes on to the client (kubectl prints them). */
  warnings?: string[];
}

/** An admission.k8s.io/v1 AdmissionReview: the API server sends a request, the webhook answers with a response. */
export interface AdmissionReview {
  /** 'admission.k8s.io/v1'. */
  apiVersion: string;
  /** Always 'AdmissionReview'. */
  kind: 'AdmissionReview';
  /** What the API server asks (set in the request it sends). */
  request?: AdmissionRequest;
  /** The webhook's answer (set in the response it returns). */
  response?: AdmissionResponse;
}

/** ConversionReview v1 `request`. */
export interface ConversionRequest {
  /** Identifies this request; the response must echo it. */
  uid: string;
  /** The 'group/version' to convert the objects to. */
  desiredAPIVersion: string;
  /** The objects to convert. */
  objects: KubeObject[];
}

/** ConversionReview v1 `response`. */
export interface ConversionResponse {
  /** The request's uid. */
  uid: string;
  /** The converted objects, in the order they were sent. */
  convertedObjects: KubeObject[];
  /** Success, or the failure's message. */
  result: Status;
}

/**
 * An apiextensions.k8s.io/v1 ConversionReview: the API server sends objects to convert, the webhook answers with the
 * converted objects.
 */
export interface ConversionReview {
  /** 'apiextensions.k8s.io/v1'. */
  apiVersion: string;
  /** Always 'ConversionReview'. */
  kind: 'ConversionReview';
  /** What the API server asks (set in the request it sends). */
  request?: ConversionRequest;
  /** The webhook's answer (set in the response it returns). */
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
  /** The path of the field, e.g. 'spec.replicas' or 'spec.ports[0].name'. */
  field: string;
  /** What is wrong with it. */
  type: FieldErrorType;
  /** A message for the user. */
  message: string;
  /** The offending value, shown in the message. */
  value?: unknown;
}

/** What a validator returns: warnings shown to the client, and field errors that deny the request. */
export interface ValidationResult {
  /** Shown to the client without denying the request. */
  warnings?: string[];
  /** Deny the request as Invalid, listing each field error. */
  errors?: FieldError[];
}

/** What a defaulter or validator gets besides the object: the request, a logger, and an abort signal. */
export interface AdmissionContext {
  /** Aborted when the API server hangs up (its webhook timeout) or the server stops. */
  signal: AbortSignal;
  /** A logger whose lines carry the request's uid, kind, namespace, name and operation. */
  log: Logger;
  /** The admission request being decided. */
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
