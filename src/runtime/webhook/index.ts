/**
 * Admission (defaulting, validating) and conversion webhooks, the HTTPS server that serves them, and the builder that
 * registers a kind's webhooks with it.
 *
 * @module @kubescaffold/runtime/webhook
 */
export type {
  AdmissionContext,
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  Conversion,
  ConversionRequest,
  ConversionResponse,
  ConversionReview,
  CustomDefaulter,
  CustomValidator,
  FieldError,
  FieldErrorType,
  UserInfo,
  ValidationResult,
} from './types.js';
export { field, fieldErrorBody, fieldErrorString, aggregateFieldErrors, invalidStatus } from './field.js';
export { createJsonPatch } from './jsonpatch.js';
export {
  AdmissionWebhook,
  allowed,
  denied,
  errored,
  deniedWithStatus,
  patchResponse,
  defaultingHandler,
  validatingHandler,
  type AdmissionHandler,
  type AdmissionResult,
} from './admission.js';
export {
  ConversionWebhook,
  ConversionError,
  isConversionError,
  type SpokeConversion,
  type SpokeConversions,
} from './conversion.js';
export { HttpError, type WebhookHandler, type WebhookRequestContext } from './handler.js';
export {
  WebhookServer,
  DEFAULT_WEBHOOK_PORT,
  CONVERSION_PATH,
  type WebhookServerOptions,
  type WebhookServerManagerLink,
} from './server.js';
export { CertWatcher, type CertWatcherOptions, type CertKeyPem } from './certwatcher.js';
export { generateLocalServingCert, type LocalServingCert } from './certs.js';
export { injectCABundle, type CABundleInjection, type ServingEndpoint } from './cabundle.js';
export {
  WebhookBuilder,
  newWebhookManagedBy,
  defaultingWebhookPath,
  validatingWebhookPath,
  type WebhookServerProvider,
} from './builder.js';
