/**
 * JavaScript's closest thing to a Go panic: a programming error (TypeError, ReferenceError, RangeError, SyntaxError)
 * or a thrown non-Error value. Controllers count these in controller_runtime_reconcile_panics_total; webhooks answer
 * them with a 500 and count them in controller_runtime_webhook_panics_total.
 */
export function isPanic(err: unknown): boolean {
  return (
    !(err instanceof Error) ||
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError ||
    err instanceof SyntaxError
  );
}
