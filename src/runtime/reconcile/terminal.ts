/**
 * An error that retrying cannot fix (invalid spec, missing permission the user must grant).
 * The controller logs and counts it but does not requeue the request.
 */
export class TerminalError extends Error {
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message ?? 'terminal error', options);
    this.name = 'TerminalError';
  }

  /** Marks an existing error as terminal, keeping it as the cause. */
  static wrap(err: unknown): TerminalError {
    if (err instanceof TerminalError) return err;
    return new TerminalError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** True when `err` or any error in its cause chain is a TerminalError (as Go's errors.Is unwraps). */
export function isTerminalError(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur instanceof Error && depth < 16; depth++) {
    if (cur instanceof TerminalError) return true;
    cur = cur.cause;
  }
  return false;
}
