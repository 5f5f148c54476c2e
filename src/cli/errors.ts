import { UserError } from '../errors.js';

/** A command line the CLI refuses (a flag's value, a missing argument): main() prints its message and exits. */
export class CliError extends UserError {
  constructor(message: string, exitCode = 1) {
    super(message, { exitCode });
    this.name = 'CliError';
  }
}
