/**
 * AdmissionReview handling as controller-runtime's pkg/webhook/admission: a defaulting handler answers with the JSON
 * patch from the object it received to the object the defaulter left; a validating handler answers allowed, or
 * denied with the validator's field errors as an Invalid status; warnings pass through; a handler that throws is
 * answered, never fatal.
 */
import { isPanic } from '../panic.js';
import { ApiError } from '../rest/errors.js';
import type { KubeObject, Resource, Status } from '../rest/types.js';
import { objectDecodeProblem, requestDecodeProblem } from './decode.js';
import { invalidStatus, qualifiedKind } from './field.js';
import { createJsonPatch } from './jsonpatch.js';
import { webhookPanics } from './metrics.js';
import type {
  AdmissionContext,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  CustomDefaulter,
  CustomValidator,
  ValidationResult,
} from './types.js';
import { MAX_REVIEW_BYTES, type WebhookHandler, type WebhookRequestContext } from './handler.js';

/** An admission response before the review's uid is filled in. */
export type AdmissionResult = Omit<AdmissionResponse, 'uid'>;

/** Decides one admission request (controller-runtime's admission.Handler). */
export interface AdmissionHandler {
  /** Answers the request: allowed, denied, or allowed with a patch. */
  handle(req: AdmissionRequest, ctx: AdmissionContext): Promise<AdmissionResult>;
}

/** Allowed, with status code 200. */
export function allowed(message?: string): AdmissionResult {
  return { allowed: true, status: { code: 200, ...(message ? { message } : {}) } };
}

/** Denied with 403 Forbidden and `message` (controller-runtime's admission.Denied). */
export function denied(message: string): AdmissionResult {
  return { allowed: false, status: { code: 403, reason: 'Forbidden', ...(message ? { message } : {}) } };
}

/** Failed to decide (controller-runtime's admission.Errored): not allowed, with the code and error message. */
export function errored(code: number, message: string): AdmissionResult {
  return { allowed: false, status: { code, message } };
}

/** Not allowed, with a Status the caller built (an Invalid status, or an ApiError's). */
export function deniedWithStatus(status: Status): AdmissionResult {
  return { allowed: false, status };
}

/** Allowed, with the JSON patch from `original` to `current` (none when they are equal). */
export function patchResponse(original: unknown, current: unknown): AdmissionResult {
  const ops = createJsonPatch(original, current);
  if (ops.length === 0) return allowed();
  return { ...allowed(), patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What a thrown error becomes: an ApiError's own status, a panic's 500, or else 403 with its message. */
export function responseForError(err: unknown, ctx: { log: AdmissionContext['log'] }): AdmissionResult {
  if (err instanceof ApiError) return deniedWithStatus(err.status);
  if (isPanic(err)) {
    webhookPanics.inc();
    ctx.log.error(err, 'webhook handler panicked');
    return errored(500, `panic: ${errorMessage(err)} [recovered]`);
  }
  return denied(errorMessage(err));
}

// The API server sends what the webhook's rules match; anything else is a misconfiguration worth a clear answer.
function kindMismatch(res: Resource, req: AdmissionRequest): AdmissionResult | undefined {
  if (req.kind?.group === res.group && req.kind?.kind === res.kind) return undefined;
  const got = req.kind ? qualifiedKind(req.kind) : 'no kind';
  return errored(400, `this webhook handles ${qualifiedKind(res)}, but the request is for ${got}`);
}

// The request's own object: validators may read it as it is, since nothing reads it after them.
function objectOf<T extends KubeObject>(raw: KubeObject | null | undefined): T | undefined {
  return raw === null || raw === undefined ? undefined : (raw as T);
}

/** The defaulting handler for `res`: DELETE is allowed untouched; CREATE/UPDATE get the defaulter's changes as a patch. */
export function defaultingHandler<T extends KubeObject>(
  res: Resource<T>,
  defaulter: CustomDefaulter<T>,
): AdmissionHandler {
  return {
    async handle(req, ctx) {
      if (req.operation === 'DELETE') return allowed();
      const mismatch = kindMismatch(res, req);
      if (mismatch) return mismatch;
      if (req.object === null || req.object === undefined) return errored(400, 'there is no content to decode');
      const bad = objectDecodeProblem(req.object, 'request.object');
      if (bad) return errored(400, `cannot decode the object: ${bad}`);
      // The defaulter changes a copy: the original is needed for the patch.
      const obj = structuredClone(req.object) as T;
      try {
        await defaulter.default(obj, ctx);
      } catch (err) {
        return responseForError(err, ctx);
      }
      return patchResponse(req.object, obj);
    },
  };
}

/** The validating handler for `res`: field errors deny with an Invalid status; warnings reach the client either way. */
export function validatingHandler<T extends KubeObject>(
  res: Resource<T>,
  validator: CustomValidator<T>,
): AdmissionHandler {
  return {
    async handle(req, ctx) {
      if (req.operation === 'CONNECT') return allowed();
      const mismatch = kindMismatch(res, req);
      if (mismatch) return mismatch;
      for (const [field, raw] of [
        ['request.object', req.object],
        ['request.oldObject', req.oldObject],
      ] as const) {
        const bad = raw === null || raw === undefined ? undefined : objectDecodeProblem(raw, field);
        if (bad) return errored(400, `cannot decode the object: ${bad}`);
      }
      let subject: T | undefined;
      let result: ValidationResult | void;
      try {
        switch (req.operation) {
          case 'CREATE': {
            subject = objectOf<T>(req.object);
            if (!subject) return errored(400, 'there is no content to decode');
            result = await validator.validateCreate(subject, ctx);
            break;
          }
          case 'UPDATE': {
            subject = objectOf<T>(req.object);
            const old = objectOf<T>(req.oldObject);
            if (!subject || !old) return errored(400, 'there is no content to decode');
            result = await validator.validateUpdate(old, subject, ctx);
            break;
          }
          case 'DELETE': {
            // The object being deleted arrives as oldObject (kubernetes/kubernetes#76346).
            subject = objectOf<T>(req.oldObject);
            if (!subject) return errored(400, 'there is no content to decode');
            result = await validator.validateDelete(subject, ctx);
            break;
          }
          default:
            return errored(400, `unknown operation "${String(req.operation)}"`);
        }
      } catch (err) {
        return responseForError(err, ctx);
      }
      const warnings = result?.warnings?.length ? { warnings: [...result.warnings] } : {};
      const errs = result?.errors ?? [];
      if (errs.length === 0) return { ...allowed(), ...warnings };
      const name = subject.metadata?.name ?? req.name ?? '';
      return { ...deniedWithStatus(invalidStatus(res, name, errs)), ...warnings };
    },
  };
}

const REVIEW_VERSIONS = new Set(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']);

function reviewOf(apiVersion: string, response: AdmissionResponse): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', response };
}

/**
 * Serves AdmissionReviews over HTTP: decodes the review, runs the handler, and answers with the response (uid
 * copied). As in controller-runtime, a review that cannot be decoded is still answered with an errored review.
 */
export class AdmissionWebhook implements WebhookHandler {
  /** controller-runtime's limit for admission reviews. */
  readonly maxRequestBytes = MAX_REVIEW_BYTES;

  constructor(readonly handler: AdmissionHandler) {}

  async handle(body: unknown, ctx: WebhookRequestContext): Promise<AdmissionReview> {
    const review = body as Partial<AdmissionReview> | null;
    const apiVersion = typeof review?.apiVersion === 'string' ? review.apiVersion : 'admission.k8s.io/v1';
    if (
      !review ||
      typeof review !== 'object' ||
      review.kind !== 'AdmissionReview' ||
      !REVIEW_VERSIONS.has(apiVersion)
    ) {
      return reviewOf('admission.k8s.io/v1', {
        uid: '',
        ...errored(400, `unsupported AdmissionReview: want kind AdmissionReview of admission.k8s.io/v1`),
      });
    }
    const request = review.request;
    if (!request || typeof request !== 'object' || typeof request.uid !== 'string') {
      return reviewOf(apiVersion, { uid: '', ...errored(400, 'got an empty AdmissionReview request') });
    }
    const bad = requestDecodeProblem(request as unknown as Record<string, unknown>);
    if (bad) return reviewOf(apiVersion, { uid: request.uid, ...errored(400, `cannot decode the request: ${bad}`) });
    const log = ctx.log.withValues({
      uid: request.uid,
      kind: request.kind?.kind,
      namespace: request.namespace,
      name: request.name,
      operation: request.operation,
    });
    let result: AdmissionResult;
    try {
      result = await this.handler.handle(request, { signal: ctx.signal, log, request });
    } catch (err) {
      // Handlers built here catch their user's errors; this is for hand-written ones.
      result = responseForError(err, { log });
    }
    return reviewOf(apiVersion, { ...result, uid: request.uid });
  }
}
