/**
 * One error model for the CLI and the generators. A UserError is the user's to fix: its message says what was wrong
 * and what to do, and `scaffold` prints it without a stack trace. Anything else that reaches the CLI's top is a bug in
 * kubescaffold, printed with its stack and a request to report it.
 */
export class UserError extends Error {
  /** The process exit code the CLI uses for it. */
  readonly exitCode: number;

  constructor(message: string, opts: { cause?: unknown; exitCode?: number } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'UserError';
    this.exitCode = opts.exitCode ?? 1;
  }
}

/** A scaffold command refused its input or the project it found; nothing was written. */
export class ScaffoldError extends UserError {
  constructor(message: string, opts?: { cause?: unknown; exitCode?: number }) {
    super(message, opts);
    this.name = 'ScaffoldError';
  }
}

/** Whether `err` is the user's to fix (a UserError) rather than a bug. */
export function isUserError(err: unknown): err is UserError {
  return err instanceof UserError;
}
