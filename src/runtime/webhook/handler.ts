import type { Logger } from '../log/index.js';

/** The largest AdmissionReview or ConversionReview body served (7 MiB, controller-runtime's limit). */
export const MAX_REVIEW_BYTES = 7 * 1024 * 1024;

/** What the server passes a handler with each request. */
export interface WebhookRequestContext {
  /** Aborted when the caller hangs up or the server stops. */
  signal: AbortSignal;
  /** A logger for this request. */
  log: Logger;
}

/**
 * Answers the JSON documents POSTed to one path of the webhook server (controller-runtime registers an
 * http.Handler per path). The returned object is written with status 200; throw an HttpError for another status.
 */
export interface WebhookHandler {
  /** Handles one POSTed JSON document (an AdmissionReview or a ConversionReview) and returns the response document. */
  handle(body: unknown, ctx: WebhookRequestContext): Promise<object>;
  /** Larger request bodies are refused with 413; unlimited when unset. */
  readonly maxRequestBytes?: number;
}

/** Thrown by a handler to answer with an HTTP error status and a plain-text message instead of a review. */
export class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
