/**
 * The base of envtest's errors that are the user's to fix: binaries that cannot be found, a download that failed, an
 * archive that cannot be unpacked. Their messages say what was wrong and what to do, so a CLI prints them without a
 * stack trace.
 */
export class EnvtestError extends Error {
  /** The process exit code a CLI should use for it. */
  readonly exitCode: number;

  constructor(message: string, opts: { cause?: unknown; exitCode?: number } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'EnvtestError';
    this.exitCode = opts.exitCode ?? 1;
  }
}
